package planner

import (
	"slices"

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
	if relDrawsPerRow(first.rel) {
		extra = append(slices.Clip(extra), rowToken())
	}
	n := ir.Arity(c.rel)
	c.derive(ir.NewMap(c.rel, extra...))
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
	d := c.domain(keys, extra, n)
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
	c.derive(ir.NewProject(joined, proj...))
	return out
}

// derive replaces c.rel by rel, whose first columns are c.rel's, in place,
// and whose rows carry the values of c.rel's rows there: all of them
// (a Map, a left join back) or some (a semi-join). It records that
// c.rel's domain base (domainBase) is rel's.
func (c *ectx) derive(rel ir.Rel) {
	c.b.domainBases[rel] = c.domainBase()
	c.rel = rel
}

// domainBase returns the relation c.rel was derived from: its columns are
// a prefix of c.rel's, and its distinct values on any of them include
// c.rel's (equal them when only Maps and left joins back derived c.rel), so
// a subquery's domain can be computed from it. Without it, each domain
// would read c.rel, which holds every earlier subquery's join (and so its
// domain): n correlated subqueries in one select list, or n EXISTS
// conjuncts, would make a plan whose tree unfolding grows as 3^n (2^n),
// and every pass over the tree (types, nullability, printing, the
// optimizer's rules) would pay for it.
//
// A larger domain never changes a result: the join back or the semi-join
// matches c.rel's rows to their own values' results only. After a
// semi-join, a later subquery is computed for the outer values the plain
// conjuncts of WHERE keep, as if its conjunct came first (PostgreSQL, too,
// evaluates conjuncts in an order of its choosing).
func (c *ectx) domainBase() ir.Rel {
	if base, ok := c.b.domainBases[c.rel]; ok {
		return base
	}
	return c.rel
}

// domain returns the distinct values of c.rel's columns keys, of which
// columns n and on are extra (the Map correlate appended). It reads the
// domain base when the keys and extra read only the base's columns.
func (c *ectx) domain(keys []int, extra []expr.Expr, n int) ir.Rel {
	base := c.domainBase()
	nb := ir.Arity(base)
	for _, e := range extra {
		// A volatile extra value is read from c.rel, where it is drawn
		// once per row (volatile.go).
		if expr.IsVolatile(e) || slices.ContainsFunc(expr.Columns(e), func(col int) bool { return col >= nb }) {
			return c.relDomain(keys)
		}
	}
	base = c.guardedDomain(c.shareBase(base))
	bkeys := make([]int, len(keys))
	for i, k := range keys {
		switch {
		case k >= n:
			bkeys[i] = nb + k - n // an extra column
		case k >= nb:
			return c.relDomain(keys)
		default:
			bkeys[i] = k
		}
	}
	return ir.NewDistinct(ir.NewProject(ir.NewMap(base, extra...), bkeys...))
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
	vals, err := c.singleRowBack(p, keys)
	if err != nil {
		return nil, err
	}
	return vals[0], nil
}

// singleRowBack joins the per-key rows of the planned subquery p back to
// c.rel and returns its values: p's columns when it returns at most one
// row per key, else those of singleRow.
func (c *ectx) singleRowBack(p *planned, keys []int) ([]expr.Expr, error) {
	sub := c.b.subqueryRel(p)
	if p.atMostOne {
		return c.joinBack(sub, keys), nil
	}
	red, err := c.singleRow(sub, len(keys))
	if err != nil {
		return nil, err
	}
	back := c.joinBack(red, keys)
	return c.pickSingle(back[0], back[1:])
}

// singleRow groups the rows of a scalar subquery that may return several
// (k key columns, then the values) by the key: the k key columns, the
// key's row count, then the min of each value, which is the row's value
// whenever the count is one. State: the reduce's per-key count and value
// multisets.
func (c *ectx) singleRow(sub ir.Rel, k int) (ir.Rel, error) {
	vts := sub.ColTypes()[k:]
	aggs := []expr.Agg{{Kind: expr.AggCountStar, T: repr.Int8}}
	for i, vt := range vts {
		if _, err := expr.AggType(expr.AggMin, vt); err != nil {
			return nil, repr.Unsupported("scalar subquery of type %s that may return more than one row", vt.Name())
		}
		aggs = append(aggs, expr.Agg{Kind: expr.AggMin, Col: k + i, T: vt})
	}
	return &ir.Reduce{Input: sub, Key: identityCols(k), Aggs: aggs}, nil
}

// pickSingle returns the values of a scalar subquery from the count and
// mins of singleRow joined back to c.rel: each min, or, when the count is
// above one, a call failing with 21000 (PostgreSQL's error). The choice is
// made in the enclosing expression, per row of c.rel, so the error is
// raised only for rows that evaluate the subquery: not for outer values
// that only rows dropped by an earlier clause, or not reaching this CASE
// branch, have (PostgreSQL evaluates a subquery only where it is reached,
// too). In a view the error fails the write that made a second row
// appear for such a row.
func (c *ectx) pickSingle(count expr.Expr, mins []expr.Expr) ([]expr.Expr, error) {
	many, err := c.op(">", -1, count, &expr.Lit{D: repr.NewInt(1), T: repr.Int8})
	if err != nil {
		return nil, err
	}
	picks := make([]expr.Expr, len(mins))
	for i, m := range mins {
		vt := m.Type()
		var fail expr.Expr = &expr.Call{Fn: expr.CardinalityError}
		if vt != fail.Type() {
			// No identity cast: the plan parser drops it, and the printed
			// plan must read back as itself.
			fail = &expr.Cast{Arg: fail, To: vt}
		}
		picks[i] = &expr.Case{Whens: []expr.When{{Cond: many, Then: fail}}, Else: m, T: vt}
	}
	return picks, nil
}

// rowSubquery is (a, b) op (SELECT x, y ...) (PostgreSQL's ROWCOMPARE
// sublink): the row-wise comparison (rowcompare.go) of the row's fields
// with the subquery's one row, NULLs when it has none (21000 when
// several, as singleRow).
func (c *ectx) rowSubquery(op string, fields []*pg_query.Node, sl *pg_query.SubLink, loc int32) (expr.Expr, error) {
	if !isRowCompareOp(op) {
		return nil, repr.Errorf("42883", "could not determine interpretation of row comparison operator %s", op).WithPosition(loc + 1)
	}
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, repr.Unsupported("subquery %s", nodeName(sl.Subselect))
	}
	if c.noSubquery {
		return nil, repr.Unsupported("subqueries in %s", c.clause)
	}
	xs, err := c.rowItems(fields)
	if err != nil {
		return nil, err
	}
	p, keys, err := c.correlate(sel, nil)
	if err != nil {
		return nil, err
	}
	if err := checkSubqueryWidth(len(p.cols), len(xs), loc); err != nil {
		return nil, err
	}
	ys, err := c.singleRowBack(p, keys)
	if err != nil {
		return nil, err
	}
	pairs := make([][2]expr.Expr, len(xs))
	for i := range xs {
		pairs[i] = [2]expr.Expr{xs[i], ys[i]}
	}
	return c.rowCompareExprs(op, pairs, loc)
}

// exists is EXISTS (SELECT ...): a per-key count of rows, true when positive.
func (c *ectx) exists(sel *pg_query.SelectStmt) (expr.Expr, error) {
	p, keys, err := c.correlate(sel, nil)
	if err != nil {
		return nil, err
	}
	k := len(keys)
	counts := &ir.Reduce{Input: c.b.existsRel(sel, p), Key: identityCols(k),
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
// the empty-set answer (false for ANY, true for ALL). A row on the left,
// (a, b) IN (SELECT x, y ...), compares row-wise (rowcompare.go).
func (c *ectx) quantified(sel *pg_query.SelectStmt, sl *pg_query.SubLink) (expr.Expr, error) {
	q, err := c.prepareQuantified(sel, sl)
	if err != nil {
		return nil, err
	}
	if !q.correlated && !q.row && (q.op == "=" && !q.all || q.op == "<>" && q.all) {
		return c.inUncorrelated(q.xs[0], c.b.subqueryRel(q.probe), []repr.T{q.xs[0].Type(), q.ys[0]}, q.all)
	}
	p, keys, err := c.correlate(sel, q.xs)
	if err != nil {
		return nil, err
	}
	sub := c.b.subqueryRel(p)
	cmp, err := c.subCompare(q, sub, len(keys))
	if err != nil {
		return nil, err
	}
	res := c.joinBack(quantifiedStats(sub, len(keys), cmp, q.all), keys)
	decisive, unknown := res[0], res[1]
	return &expr.Case{Whens: []expr.When{
		{Cond: decisive, Then: boolLit(!q.all)},
		{Cond: unknown, Then: &expr.Lit{D: repr.Null, T: repr.Bool}},
	}, Else: boolLit(q.all), T: repr.Bool}, nil
}

// quantifiedLink is a resolved x op ANY/ALL (subquery): the left operands
// xs (one, or a row's fields) coerced to the operator's left types, the
// types ys the subquery's columns are coerced to, the subquery planned
// once as a probe (over no outer values) and whether it references the
// enclosing query.
type quantifiedLink struct {
	xs         []expr.Expr
	ys         []repr.T
	op         string
	all        bool
	row        bool       // a row on the left: compared row-wise
	fn         *expr.Func // the operator, when not row
	loc        int32
	probe      *planned
	correlated bool
}

// prepareQuantified resolves the operator and the left operands of sl.
func (c *ectx) prepareQuantified(sel *pg_query.SelectStmt, sl *pg_query.SubLink) (*quantifiedLink, error) {
	q := &quantifiedLink{op: opName(sl.OperName), all: sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK, loc: sl.Location}
	if q.op == "" {
		q.op = "="
	}
	var err error
	if fields := rowArgs(sl.Testexpr); fields != nil {
		q.row = true
		if !isRowCompareOp(q.op) {
			return nil, repr.Errorf("42883", "could not determine interpretation of row comparison operator %s", q.op).WithPosition(sl.Location + 1)
		}
		q.xs, err = c.rowItems(fields)
	} else {
		var x expr.Expr
		x, err = c.expr(sl.Testexpr)
		q.xs = []expr.Expr{x}
	}
	if err != nil {
		return nil, err
	}
	probeScope := &scope{cols: c.sc.cols, parent: c.sc.parent, rec: &recorder{}}
	if q.probe, err = c.b.planQuery(sel, probeScope, nil); err != nil {
		return nil, err
	}
	q.correlated = len(probeScope.rec.cols) > 0
	if err := checkSubqueryWidth(len(q.probe.cols), len(q.xs), sl.Location); err != nil {
		return nil, err
	}
	if len(q.xs) == 0 {
		return nil, errZeroRow(sl.Location)
	}
	for i, x := range q.xs {
		fn, want, err := expr.ResolveOp(q.op, []repr.T{x.Type(), q.probe.cols[i].Type})
		if err != nil {
			return nil, withPos(err, sl.Location)
		}
		if q.xs[i], err = c.b.convert(x, want[0]); err != nil {
			return nil, err
		}
		c.b.noteOp(fn, []repr.T{x.Type(), q.probe.cols[i].Type}, want, nil)
		q.fn, q.ys = fn, append(q.ys, want[1])
	}
	return q, nil
}

// checkSubqueryWidth is PostgreSQL's 42601 for a subquery with more or
// fewer columns than the operands it is compared with.
func checkSubqueryWidth(have, want int, loc int32) error {
	switch {
	case have > want:
		return repr.Errorf(repr.CodeSyntax, "subquery has too many columns").WithPosition(loc + 1)
	case have < want:
		return repr.Errorf(repr.CodeSyntax, "subquery has too few columns").WithPosition(loc + 1)
	}
	return nil
}

// subCompare builds x op y over the rows of sub, planned per key: its k
// key columns start with the left operands, its columns after the keys
// are the subquery's.
func (c *ectx) subCompare(q *quantifiedLink, sub ir.Rel, k int) (expr.Expr, error) {
	ts := sub.ColTypes()
	xs := make([]expr.Expr, len(q.xs))
	ys := make([]expr.Expr, len(q.xs))
	for i := range q.xs {
		xs[i] = &expr.Col{Idx: i, T: ts[i]}
		y, err := c.b.coerce(&expr.Col{Idx: k + i, T: ts[k+i]}, q.ys[i])
		if err != nil {
			return nil, err
		}
		ys[i] = y
	}
	if !q.row {
		return &expr.Call{Fn: q.fn, Args: []expr.Expr{xs[0], ys[0]}}, nil
	}
	pairs := make([][2]expr.Expr, len(xs))
	for i := range xs {
		pairs[i] = [2]expr.Expr{xs[i], ys[i]}
	}
	return c.rowCompareExprs(q.op, pairs, q.loc)
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

// quantifiedStats reduces the subquery rows (k keys) to per-key flags:
// whether any comparison cmp (over a row) is decisive (true for ANY, false
// for ALL) and whether any is NULL.
func quantifiedStats(sub ir.Rel, k int, cmp expr.Expr, all bool) ir.Rel {
	var decisive = cmp
	if all {
		decisive = &expr.Not{Arg: cmp}
	}
	n := ir.Arity(sub)
	mapped := ir.NewMap(sub,
		&expr.Coalesce{Args: []expr.Expr{decisive, boolLit(false)}, T: repr.Bool},
		&expr.IsNull{Arg: cmp})
	aggs := []expr.Agg{
		{Kind: expr.AggBoolOr, Col: n, T: repr.Bool},
		{Kind: expr.AggBoolOr, Col: n + 1, T: repr.Bool},
	}
	return &ir.Reduce{Input: mapped, Key: identityCols(k), Aggs: aggs}
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

// existsPlain reports whether EXISTS ignores sel's select list: as
// PostgreSQL's simplify_EXISTS_query decides, a plain block without
// aggregates, grouping, windows, set-returning calls, HAVING, OFFSET or
// locking, whose LIMIT (if any) is a positive constant. Its select list
// is then never evaluated, so a volatile entry (nextval()) is never drawn
// (existsRel).
func (b *builder) existsPlain(sel *pg_query.SelectStmt) bool {
	if sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.ValuesLists) > 0 || sel.WithClause != nil ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.WindowClause) > 0 ||
		sel.LimitOffset != nil || len(sel.LockingClause) > 0 || sel.IntoClause != nil ||
		sel.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return false
	}
	if sel.LimitCount != nil {
		c := sel.LimitCount.GetAConst()
		if c == nil || c.GetIval() == nil || c.GetIval().Ival <= 0 {
			return false
		}
	}
	plain := true
	for _, n := range slices.Concat(sel.TargetList, sel.SortClause, sel.DistinctClause) {
		walk(n, func(x *pg_query.Node) bool {
			if x.GetSubLink() != nil {
				return false // a subquery's own aggregates are its own
			}
			if fc := x.GetFuncCall(); fc != nil {
				name := funcName(fc)
				if fc.Over != nil || isAggregate(fc) || expr.IsTableFunc(name) || populateFuncs[name] != "" || b.sqlSetFunc(name) {
					plain = false
				}
			}
			return plain
		})
	}
	return plain
}

// existsRel is the relation of p, the planned block of EXISTS (sel): with
// the select list's volatile entries NULL when EXISTS ignores the select
// list (existsPlain), so they are not drawn. The block is planned whole
// first, so its errors are PostgreSQL's (an unknown column in the select
// list is 42703 there too, before simplification).
func (b *builder) existsRel(sel *pg_query.SelectStmt, p *planned) ir.Rel {
	if b.existsPlain(sel) {
		p.rel = withoutDraws(p.rel)
	}
	return b.subqueryRel(p)
}

// withoutDraws returns rel with the expressions of its top Map (under a
// Project or not) that draw per row (drawsPerRow) replaced by NULL.
func withoutDraws(rel ir.Rel) ir.Rel {
	proj, _ := rel.(*ir.Project)
	top := rel
	if proj != nil {
		top = proj.Input
	}
	m, ok := top.(*ir.Map)
	if !ok || !slices.ContainsFunc(m.Exprs, drawsPerRow) {
		return rel
	}
	exprs := slices.Clone(m.Exprs)
	for i, e := range exprs {
		if drawsPerRow(e) {
			exprs[i] = &expr.Lit{D: repr.Null, T: e.Type()}
		}
	}
	var out ir.Rel = &ir.Map{Input: m.Input, Exprs: exprs}
	if proj != nil {
		out = ir.NewProject(out, proj.Cols...)
	}
	return out
}
