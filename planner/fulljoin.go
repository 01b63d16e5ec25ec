package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// errFullJoin is PostgreSQL 15's refusal of a FULL JOIN it can run
// neither as a merge join nor as a hash join (joinpath.c), 0A000 as there.
func errFullJoin() error {
	return repr.Errorf(repr.CodeFeatureNotSupported, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
}

// checkFullJoinOn refuses a FULL JOIN ... ON quals exactly when
// PostgreSQL 15's planner does: a merge join needs every conjunct of ON
// merge-joinable, a hash join at least one hash-joinable (the others are
// checked per matched pair); a conjunct is either when it is `x = y` with
// x reading only one side's columns and y only the other's, subqueries'
// references included, and no volatile call (check_mergejoinable,
// clause_sides_match_join). Conjuncts that fold to true are dropped, and
// one that folds to false or NULL makes the whole condition a constant,
// which PostgreSQL accepts (eval_const_expressions). cols are the join's
// columns, the left side's first nl; columns marked outer (the outer
// values a correlated join carries) are PostgreSQL's Params, no side's.
// A conjunct that does not plan here leaves the refusal to the real
// planning, which reports its own error. Eddy itself runs any FULL JOIN
// (filterJoin); the refusal is only for equality with PostgreSQL. Not
// reproduced: PostgreSQL's outer-join reduction, which turns a FULL JOIN
// under a WHERE strict on both sides into an inner join it then accepts.
func (b *builder) checkFullJoinOn(quals *pg_query.Node, cols []scopeCol, nl int, parent *scope) error {
	defer b.probing()()
	merge, hash := true, false
	for _, q := range conjuncts(quals) {
		switch k, err := b.constConjunct(q, cols, parent); {
		case err != nil || k == constFalse:
			return nil
		case k == constTrue:
			continue
		}
		for _, pair := range equalityPairs(q) {
			if pair[0] == nil {
				merge = false
				continue
			}
			ok, err := b.splitsSides(pair[0], pair[1], cols, nl, parent)
			if err != nil {
				return nil
			}
			merge, hash = merge && ok, hash || ok
		}
	}
	if merge || hash {
		return nil
	}
	return errFullJoin()
}

// equalityPairs returns the operand pairs of conjunct q when it is an
// equality (ROW(a, b) = ROW(c, d) is a = c AND b = d, as PostgreSQL
// expands it when parsing), else one pair of nils.
func equalityPairs(q *pg_query.Node) [][2]*pg_query.Node {
	a := q.GetAExpr()
	if a == nil || a.Kind != pg_query.A_Expr_Kind_AEXPR_OP || opName(a.Name) != "=" || a.Lexpr == nil {
		return [][2]*pg_query.Node{{nil, nil}}
	}
	l, r := a.Lexpr.GetRowExpr(), a.Rexpr.GetRowExpr()
	if l == nil || r == nil || len(l.Args) != len(r.Args) || len(l.Args) == 0 {
		return [][2]*pg_query.Node{{a.Lexpr, a.Rexpr}}
	}
	out := make([][2]*pg_query.Node, len(l.Args))
	for i := range l.Args {
		out[i] = [2]*pg_query.Node{l.Args[i], r.Args[i]}
	}
	return out
}

// constKind classifies a conjunct by its constant value, if any.
type constKind int

const (
	notConst constKind = iota
	constTrue
	constFalse // false or NULL
)

// constConjunct plans q in a scope below the join's and reports the
// constant it folds to when it reads no column and has no subquery.
func (b *builder) constConjunct(q *pg_query.Node, cols []scopeCol, parent *scope) (constKind, error) {
	if hasSubLink(q) {
		return notConst, nil
	}
	js := &scope{cols: cols, parent: parent, rec: &recorder{}}
	ec := &ectx{b: b, sc: &scope{parent: js}, rel: unitRel(), clause: "JOIN/ON"}
	e, err := ec.predicate(q)
	if err != nil {
		return notConst, err
	}
	lit, ok := expr.Fold(e).(*expr.Lit)
	if !ok || js.rec.hits > 0 {
		return notConst, nil
	}
	if lit.D.IsNull() || !lit.D.Bool() {
		return constFalse, nil
	}
	return constTrue, nil
}

// splitsSides reports whether x = y compares a value of one side with a
// value of the other: each operand reads columns of exactly one side, not
// the same one, and neither calls a volatile function.
func (b *builder) splitsSides(x, y *pg_query.Node, cols []scopeCol, nl int, parent *scope) (bool, error) {
	xl, xr, xv, err := b.sidesOf(x, cols, nl, parent)
	if err != nil {
		return false, err
	}
	yl, yr, yv, err := b.sidesOf(y, cols, nl, parent)
	if err != nil {
		return false, err
	}
	if xv || yv || xl == xr || yl == yr {
		return false, nil
	}
	return xl != yl, nil
}

// sidesOf plans n in a scope below the join's whose recorder notes every
// join column n reads (inside its subqueries too), and reports whether it
// reads the left side, the right side, and calls a volatile function.
func (b *builder) sidesOf(n *pg_query.Node, cols []scopeCol, nl int, parent *scope) (left, right, volatile bool, err error) {
	js := &scope{cols: cols, parent: parent, rec: &recorder{}}
	ec := &ectx{b: b, sc: &scope{parent: js}, rel: unitRel(), clause: "JOIN/ON"}
	e, err := ec.expr(n)
	if err != nil {
		return false, false, false, err
	}
	for _, i := range js.rec.cols {
		switch {
		case cols[i].outer:
		case i < nl:
			left = true
		default:
			right = true
		}
	}
	return left, right, expr.IsVolatile(e), nil
}

// probing saves what planning an expression records beside its result
// (inferred parameter types, the calls noted for EXECUTE checks) and
// returns how to restore it: checkFullJoinOn plans parts of ON that the
// real planning plans again.
func (b *builder) probing() (restore func()) {
	types := append([]repr.T(nil), b.paramTypes...)
	calls := -1
	if b.opts.Calls != nil {
		calls = len(*b.opts.Calls)
	}
	return func() {
		b.paramTypes = types
		if calls >= 0 {
			*b.opts.Calls = (*b.opts.Calls)[:calls]
		}
	}
}
