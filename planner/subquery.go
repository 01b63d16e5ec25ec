package planner

import (
	"github.com/cockroachdb/apd/v3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Subqueries in expressions are decorrelated (Neumann and Kemper, "Unnesting
// Arbitrary Queries"): a first planning pass records which columns of the
// enclosing relation R the subquery references; the distinct values D of
// those columns are computed; the subquery is planned again over D (its FROM
// items are joined to D, its aggregates grouped by D's columns, its LIMIT
// applied per D row), yielding per-value results that are left-joined back
// to R on a NULL-safe equality of the values. The subquery's result becomes
// a new column of R (ectx.rel), so R keeps its rows and multiplicities.

// subLink plans a subquery expression.
func (c *ectx) subLink(sl *pg_query.SubLink) (expr.Expr, error) {
	if v, ok := c.onSubs[sl]; ok {
		return v, nil
	}
	if c.noSubquery {
		return nil, repr.Unsupported("subqueries in %s", c.clause)
	}
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, repr.Unsupported("subquery %s", nodeName(sl.Subselect))
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXPR_SUBLINK:
		return c.scalarSubquery(sel, sl.Location)
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return c.exists(sel)
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		return c.quantified(sel, sl)
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		return c.arraySubquery(sl)
	}
	return nil, repr.Unsupported("%s subqueries", sl.SubLinkType)
}

// correlate plans sel as a subquery of c. extra are expressions over c.rel
// the subquery needs per row (the left side of IN); they are appended to
// c.rel and passed as the first outer values. It returns the planned block
// (over the outer values when correlated) and the columns of c.rel that
// key it (extra first).
func (c *ectx) correlate(sel *pg_query.SelectStmt, extra []expr.Expr) (*planned, []int, error) {
	saved := c.sc.rec
	c.sc.rec = &recorder{}
	first, err := c.b.planQuery(sel, c.sc, nil)
	refs := c.sc.rec.cols
	c.sc.rec = saved
	if err != nil {
		return nil, nil, err
	}
	if len(refs) == 0 && len(extra) == 0 {
		return first, nil, nil
	}
	n := ir.Arity(c.rel)
	c.rel = ir.NewMap(c.rel, extra...)
	var keys []int
	var cols []scopeCol
	for i, e := range extra {
		keys = append(keys, n+i)
		cols = append(cols, scopeCol{typ: e.Type(), outer: true, hidden: true})
	}
	for _, r := range refs {
		col := c.sc.cols[r]
		col.outer, col.hidden = true, false
		keys, cols = append(keys, r), append(cols, col)
	}
	d := ir.NewDistinct(ir.NewProject(c.rel, keys...))
	p, err := c.b.planQuery(sel, c.sc, &outerRel{rel: d, cols: cols})
	return p, keys, err
}

// joinBack left-joins per-key results (keyed by their first len(keys)
// columns) to c.rel and returns references to the result's other columns.
func (c *ectx) joinBack(res ir.Rel, keys []int) []expr.Expr {
	n, k := ir.Arity(c.rel), len(keys)
	on := c.b.nullSafeKeys(c.rel, res, keys, identityCols(k))
	joined := ir.NewJoin(ir.JoinLeft, c.rel, res, on...)
	ts := res.ColTypes()
	proj := identityCols(n)
	var out []expr.Expr
	for i := k; i < len(ts); i++ {
		proj = append(proj, n+i)
		out = append(out, &expr.Col{Idx: len(proj) - 1, T: ts[i]})
	}
	c.rel = ir.NewProject(joined, proj...)
	return out
}

// scalarSubquery is (SELECT x ...): NULL when empty, the row's value when
// one, and error 21000 when several (see singleRow).
func (c *ectx) scalarSubquery(sel *pg_query.SelectStmt, loc int32) (expr.Expr, error) {
	p, keys, err := c.correlate(sel, nil)
	if err != nil {
		return nil, err
	}
	if len(p.cols) != 1 {
		return nil, repr.Errorf(repr.CodeSyntax, "subquery must return only one column").WithPosition(loc + 1)
	}
	sub := c.b.subqueryRel(p)
	if !p.atMostOne {
		if sub, err = c.singleRow(sub, len(keys)); err != nil {
			return nil, err
		}
	}
	return c.joinBack(sub, keys)[0], nil
}

// singleRow turns the rows of a scalar subquery that may return several
// (k key columns, then the value) into one row per key: the value when the
// key has one row, and an expression failing with 21000 when it has more,
// as PostgreSQL fails the query. It groups by the key, counting rows and
// keeping min(value), which is the value whenever the count is one. In a
// view the error fails the write that made a second row appear. State: the
// reduce's per-key count and value multiset.
func (c *ectx) singleRow(sub ir.Rel, k int) (ir.Rel, error) {
	vt := sub.ColTypes()[k]
	if _, err := expr.AggType(expr.AggMin, vt); err != nil {
		return nil, repr.Unsupported("scalar subquery of type %s that may return more than one row", vt.Name())
	}
	red := &ir.Reduce{Input: sub, Key: identityCols(k), Aggs: []expr.Agg{
		{Kind: expr.AggCountStar, T: repr.Int8},
		{Kind: expr.AggMin, Col: k, T: vt},
	}}
	many, err := c.op(">", -1, &expr.Col{Idx: k, T: repr.Int8}, &expr.Lit{D: repr.NewInt(1), T: repr.Int8})
	if err != nil {
		return nil, err
	}
	var fail expr.Expr = &expr.Call{Fn: expr.CardinalityError}
	if vt != fail.Type() {
		// No identity cast: the plan parser drops it, and the printed
		// plan must read back as itself.
		fail = &expr.Cast{Arg: fail, To: vt}
	}
	pick := &expr.Case{Whens: []expr.When{{Cond: many, Then: fail}}, Else: &expr.Col{Idx: k + 1, T: vt}, T: vt}
	return ir.NewProject(ir.NewMap(red, pick), append(identityCols(k), k+2)...), nil
}

// exists is EXISTS (SELECT ...): a per-key count of rows, true when positive.
func (c *ectx) exists(sel *pg_query.SelectStmt) (expr.Expr, error) {
	p, keys, err := c.correlate(sel, nil)
	if err != nil {
		return nil, err
	}
	k := len(keys)
	counts := &ir.Reduce{Input: c.b.subqueryRel(p), Key: identityCols(k),
		Aggs: []expr.Agg{{Kind: expr.AggCountStar, T: repr.Int8}}}
	cnt := c.joinBack(counts, keys)[0]
	gt, err := c.op(">", -1, cnt, &expr.Lit{D: repr.NewInt(0), T: repr.Int8})
	if err != nil {
		return nil, err
	}
	return &expr.Coalesce{Args: []expr.Expr{gt, boolLit(false)}, T: repr.Bool}, nil
}

// quantified is x op ANY (SELECT y ...) (IN is = ANY) and x op ALL (...),
// with SQL's three-valued result: per outer row, whether some comparison
// is true (ANY) or false (ALL), else NULL if some comparison is NULL, else
// the empty-set answer (false for ANY, true for ALL).
func (c *ectx) quantified(sel *pg_query.SelectStmt, sl *pg_query.SubLink) (expr.Expr, error) {
	q, err := c.prepareQuantified(sel, sl)
	if err != nil {
		return nil, err
	}
	if !q.correlated && (q.op == "=" && !q.all || q.op == "<>" && q.all) {
		return c.inUncorrelated(q.x, c.b.subqueryRel(q.probe), q.want, q.all)
	}
	p, keys, err := c.correlate(sel, []expr.Expr{q.x})
	if err != nil {
		return nil, err
	}
	stats, err := c.b.quantifiedStats(c.b.subqueryRel(p), len(keys), q.fn, q.want, q.all)
	if err != nil {
		return nil, err
	}
	res := c.joinBack(stats, keys)
	decisive, unknown := res[0], res[1]
	return &expr.Case{Whens: []expr.When{
		{Cond: decisive, Then: boolLit(!q.all)},
		{Cond: unknown, Then: &expr.Lit{D: repr.Null, T: repr.Bool}},
	}, Else: boolLit(q.all), T: repr.Bool}, nil
}

// quantifiedLink is a resolved x op ANY/ALL (subquery): x coerced to the
// operator's left type, the subquery planned once as a probe (over no
// outer values) and whether it references the enclosing query.
type quantifiedLink struct {
	x          expr.Expr
	op         string
	all        bool
	fn         *expr.Func
	want       []repr.T
	probe      *planned
	correlated bool
}

// prepareQuantified resolves the operator and the left operand of sl.
func (c *ectx) prepareQuantified(sel *pg_query.SelectStmt, sl *pg_query.SubLink) (*quantifiedLink, error) {
	if sl.Testexpr.GetRowExpr() != nil {
		return nil, repr.Unsupported("row comparisons with subqueries")
	}
	op := opName(sl.OperName)
	if op == "" {
		op = "="
	}
	x, err := c.expr(sl.Testexpr)
	if err != nil {
		return nil, err
	}
	probeScope := &scope{cols: c.sc.cols, parent: c.sc.parent, rec: &recorder{}}
	probe, err := c.b.planQuery(sel, probeScope, nil)
	if err != nil {
		return nil, err
	}
	if len(probe.cols) != 1 {
		return nil, repr.Errorf(repr.CodeSyntax, "subquery has too many columns").WithPosition(sl.Location + 1)
	}
	fn, want, err := expr.ResolveOp(op, []repr.T{x.Type(), probe.cols[0].Type})
	if err != nil {
		return nil, withPos(err, sl.Location)
	}
	if x, err = c.b.coerce(x, want[0]); err != nil {
		return nil, err
	}
	return &quantifiedLink{x: x, op: op, all: sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK,
		fn: fn, want: want, probe: probe, correlated: len(probeScope.rec.cols) > 0}, nil
}

// inUncorrelated is x IN (SELECT y ...) (x = ANY) over an uncorrelated
// subquery, or with negate x NOT IN (...) (x <> ALL, which is NOT x = ANY
// in three-valued logic). Rather than pairing every x with every row of
// the subquery, it left-joins the rows to the distinct non-NULL values of
// y on x = y (an equi-join: each row matches at most once) and
// cross-joins the subquery's one-row statistics (row count, whether some
// y is NULL): x = ANY is true on a match, NULL when unmatched and either x
// is NULL over a non-empty subquery or some y is NULL, else false. State:
// the distinct values of y and one statistics row, besides the join's
// arrangement of the outer rows.
func (c *ectx) inUncorrelated(x expr.Expr, sub ir.Rel, want []repr.T, negate bool) (expr.Expr, error) {
	y, err := c.b.coerce(&expr.Col{Idx: 0, T: sub.ColTypes()[0]}, want[1])
	if err != nil {
		return nil, err
	}
	ys := ir.NewProject(ir.NewMap(sub, y), 1)
	yc := &expr.Col{Idx: 0, T: want[1]}
	vals := ir.NewDistinct(ir.NewFilter(ys, &expr.IsNull{Arg: yc, Negate: true}))
	stats := &ir.Reduce{Input: ir.NewMap(ys, &expr.IsNull{Arg: yc}), Aggs: []expr.Agg{
		{Kind: expr.AggCountStar, T: repr.Int8},
		{Kind: expr.AggBoolOr, Col: 1, T: repr.Bool},
	}}
	n := ir.Arity(c.rel)
	xc := &expr.Col{Idx: n, T: want[0]}
	eq, err := c.op("=", -1, xc, &expr.Col{Idx: n + 1, T: want[1]})
	if err != nil {
		return nil, err
	}
	c.rel = ir.NewJoin(ir.JoinLeft, ir.NewMap(c.rel, x), vals, eq)
	c.rel = ir.NewJoin(ir.JoinCross, c.rel, stats)
	nonEmpty, err := c.op(">", -1, &expr.Col{Idx: n + 2, T: repr.Int8}, &expr.Lit{D: repr.NewInt(0), T: repr.Int8})
	if err != nil {
		return nil, err
	}
	unknown := &expr.Or{Args: []expr.Expr{
		&expr.And{Args: []expr.Expr{&expr.IsNull{Arg: xc}, nonEmpty}},
		&expr.Coalesce{Args: []expr.Expr{&expr.Col{Idx: n + 3, T: repr.Bool}, boolLit(false)}, T: repr.Bool},
	}}
	var res expr.Expr = &expr.Case{Whens: []expr.When{
		{Cond: &expr.IsNull{Arg: &expr.Col{Idx: n + 1, T: want[1]}, Negate: true}, Then: boolLit(true)},
		{Cond: unknown, Then: &expr.Lit{D: repr.Null, T: repr.Bool}},
	}, Else: boolLit(false), T: repr.Bool}
	if negate {
		res = &expr.Not{Arg: res}
	}
	return res, nil
}

// quantifiedStats reduces the subquery rows (k keys, x first, then y) to
// per-key flags: whether any comparison x op y is decisive (true for ANY,
// false for ALL) and whether any is NULL.
func (b *builder) quantifiedStats(sub ir.Rel, k int, fn *expr.Func, want []repr.T, all bool) (ir.Rel, error) {
	ts := sub.ColTypes()
	y, err := b.coerce(&expr.Col{Idx: k, T: ts[k]}, want[1])
	if err != nil {
		return nil, err
	}
	cmp := &expr.Call{Fn: fn, Args: []expr.Expr{&expr.Col{Idx: 0, T: ts[0]}, y}}
	var decisive expr.Expr = cmp
	if all {
		decisive = &expr.Not{Arg: cmp}
	}
	n := len(ts)
	mapped := ir.NewMap(sub,
		&expr.Coalesce{Args: []expr.Expr{decisive, boolLit(false)}, T: repr.Bool},
		&expr.IsNull{Arg: cmp})
	aggs := []expr.Agg{
		{Kind: expr.AggBoolOr, Col: n, T: repr.Bool},
		{Kind: expr.AggBoolOr, Col: n + 1, T: repr.Bool},
	}
	return &ir.Reduce{Input: mapped, Key: identityCols(k), Aggs: aggs}, nil
}

// nullSafeKeys returns join conditions matching left[lcols[i]] with
// right[rcols[i]] when both are equal or both NULL. Each pair becomes two
// equalities, (l IS NULL) = (r IS NULL) and coalesce(l, z) = coalesce(r, z)
// for a fixed value z of the type, so the join stays an equi-join on keys;
// or, when one side is never NULL (ir.NotNull), the plain l = r, which is
// then the same condition.
func (b *builder) nullSafeKeys(left, right ir.Rel, lcols, rcols []int) []expr.Expr {
	lt, rt := left.ColTypes(), right.ColTypes()
	lnn, rnn := ir.NotNull(left), ir.NotNull(right)
	nl := len(lt)
	var on []expr.Expr
	for i := range lcols {
		l := expr.Expr(&expr.Col{Idx: lcols[i], T: lt[lcols[i]]})
		r := expr.Expr(&expr.Col{Idx: nl + rcols[i], T: rt[rcols[i]]})
		if lnn[lcols[i]] || rnn[rcols[i]] {
			if eq, _, err := expr.ResolveOp("=", []repr.T{l.Type(), r.Type()}); err == nil && l.Type() == r.Type() {
				on = append(on, &expr.Call{Fn: eq, Args: []expr.Expr{l, r}})
				continue
			}
		}
		on = append(on, b.nullSafeEq(l, r)...)
	}
	return on
}

// nullSafeEq returns the conjuncts of `l IS NOT DISTINCT FROM r`.
func (b *builder) nullSafeEq(l, r expr.Expr) []expr.Expr {
	t := l.Type()
	z, okZ := zeroOf(t)
	eq, _, errEq := expr.ResolveOp("=", []repr.T{t, t})
	beq, _, errB := expr.ResolveOp("=", []repr.T{repr.Bool, repr.Bool})
	if !okZ || errEq != nil || errB != nil || r.Type() != t {
		ec := &ectx{b: b}
		e, err := ec.notDistinct(l, r, -1)
		if err != nil {
			return []expr.Expr{boolLit(false)}
		}
		return []expr.Expr{e}
	}
	zl := &expr.Lit{D: z, T: t}
	return []expr.Expr{
		&expr.Call{Fn: beq, Args: []expr.Expr{&expr.IsNull{Arg: l}, &expr.IsNull{Arg: r}}},
		&expr.Call{Fn: eq, Args: []expr.Expr{
			&expr.Coalesce{Args: []expr.Expr{l, zl}, T: t},
			&expr.Coalesce{Args: []expr.Expr{r, zl}, T: t}}},
	}
}

// zeroOf returns a fixed non-NULL value of type t.
func zeroOf(t repr.T) (repr.Datum, bool) {
	switch t.Family {
	case repr.FamBool:
		return repr.NewBool(false), true
	case repr.FamInt:
		return repr.NewInt(0), true
	case repr.FamFloat:
		return repr.NewFloat(0), true
	case repr.FamNumeric:
		// At the type's scale, so the literal prints as it parses back
		// (0.00::numeric(6,2)).
		return repr.NewNumeric(apd.New(0, -t.Scale)), true
	case repr.FamText:
		if t.Kind == repr.KindChar {
			return repr.Null, false
		}
		return repr.NewText(""), true
	case repr.FamBytea:
		return repr.NewBytea(nil), true
	case repr.FamDate:
		return repr.NewDate(0), true
	case repr.FamTime:
		return repr.NewTime(0), true
	case repr.FamTimestamp:
		return repr.NewTimestamp(0), true
	case repr.FamTimestampTZ:
		return repr.NewTimestampTZ(0), true
	case repr.FamInterval:
		return repr.NewInterval(repr.Interval{}), true
	}
	return repr.Null, false
}
