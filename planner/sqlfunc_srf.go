package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// A set-returning SQL function (RETURNS SETOF or TABLE) called in the
// select list expands its row like a built-in set-returning function
// (srf.go): each input row is repeated once per row of the call, whose
// value is the row's one column, or, for several columns, a record
// whose fields (f(x)).a and (f(x)).* read. The call is planned as
// functionRows plans it in FROM (the bound body, a correlated query over
// the arguments) and joined to the block's rows by the argument values:
// an inner join, so an input row for which the call returns no row
// (STRICT over a NULL argument too) yields nothing, as in PostgreSQL.
// PostgreSQL runs the calls of one level in lockstep (rows zipped,
// shorter results padded with NULL); a SQL function's rows have no
// order to zip by, so a level that holds a SQL function and another
// set-returning call is refused (0A000), as is a SQL set-returning call
// in GROUP BY.

// sqlSetFunc reports whether name calls a set-returning SQL function:
// every function of that name is one and no built-in has the name.
func (b *builder) sqlSetFunc(name string) bool {
	fns := b.sqlFunctions(name)
	if len(fns) == 0 || expr.IsTableFunc(name) || expr.LookupFunc(name) || populateFuncs[name] != "" {
		return false
	}
	for _, f := range fns {
		if !f.RetSet || f.Procedural {
			return false
		}
	}
	return true
}

// sqlSRFAt returns the first set-returning SQL call of level, or nil.
func sqlSRFAt(b *builder, calls []*pg_query.FuncCall, levels map[*pg_query.FuncCall]int, level int) *pg_query.FuncCall {
	for _, fc := range calls {
		if levels[fc] == level && b.sqlSetFunc(funcName(fc)) {
			return fc
		}
	}
	return nil
}

// sqlSRFLevel plans level, whose calls are the set-returning SQL call fc
// alone (or with calls equal to it, which share its value), as an inner
// join of ec.rel with fc's rows.
func (ec *ectx) sqlSRFLevel(fc *pg_query.FuncCall, calls []*pg_query.FuncCall, levels map[*pg_query.FuncCall]int, level int) error {
	name := funcName(fc)
	var same []*pg_query.FuncCall
	for _, other := range calls {
		if other == fc || levels[other] != level {
			continue
		}
		if !sameParse(&pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: other}}, &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: fc}}) {
			return repr.Unsupported("set-returning SQL function %s beside another set-returning function call in the select list", name).
				WithPosition(other.Location + 1).WithHint("Call the function in a LATERAL FROM item.")
		}
		same = append(same, other)
	}
	if len(same) > 0 {
		// Equal calls in lockstep pair each row with itself, unless a
		// call may return other rows each time.
		volatile := false
		for _, f := range ec.b.sqlFunctions(name) {
			volatile = volatile || f.Volatile
		}
		args, err := ec.exprs(fc.Args)
		if err != nil {
			return err
		}
		for _, a := range args {
			volatile = volatile || expr.IsVolatile(a)
		}
		if volatile {
			return repr.Unsupported("volatile set-returning SQL function %s called twice in the select list", name).
				WithPosition(same[0].Location + 1).WithHint("Call the function in a LATERAL FROM item.")
		}
	}
	if ec.srfCalls != nil {
		return repr.Unsupported("set-returning SQL function %s in GROUP BY", name).WithPosition(fc.Location + 1)
	}
	if fc.Over != nil || fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.AggWithinGroup {
		return repr.Unsupported("%s with aggregate or window syntax", name).WithPosition(fc.Location + 1)
	}
	rf := &pg_query.RangeFunction{Ordinality: ec.keepNatural}
	rs := &pg_query.RangeSubselect{}
	p, keys, err := ec.functionRows(rf, fc, rs)
	if err != nil {
		return err
	}
	sub := ec.b.subqueryRel(p)
	n, k := ir.Arity(ec.rel), len(keys)
	on := ec.b.nullSafeKeys(ec.rel, sub, keys, identityCols(k))
	joined := ir.NewJoin(ir.JoinInner, ec.rel, sub, on...)
	ts := sub.ColTypes()
	proj := identityCols(n)
	for i := k; i < len(ts); i++ {
		proj = append(proj, n+i)
	}
	ec.derive(ir.NewProject(joined, proj...))
	vals := p.cols
	if ec.keepNatural { // the ordinal, last, orders the call's rows
		vals = vals[:len(vals)-1]
		ec.natural = append(ec.natural, ec.colExpr(n+len(vals)))
	}
	defer ec.shareSRFs(sameAs(same, fc))
	if len(vals) == 1 {
		ec.srfs[fc] = ec.colExpr(n)
		return nil
	}
	cols := make([]expr.TableCol, len(vals))
	for i, c := range vals {
		cols[i] = expr.TableCol{Name: rs.Alias.Colnames[i].GetString_().GetSval(), T: c.Type}
	}
	return ec.recordSRF(fc, cols, n)
}

// sameAs maps each call of same to first.
func sameAs(same []*pg_query.FuncCall, first *pg_query.FuncCall) map[*pg_query.FuncCall]*pg_query.FuncCall {
	m := map[*pg_query.FuncCall]*pg_query.FuncCall{}
	for _, fc := range same {
		m[fc] = first
	}
	return m
}

// recordCall plans a call of fn, a function with several OUT parameters
// that is not set-returning, outside FROM (SELECT f(1), (f(1)).a,
// (f(1)).*): a record of its body's first row, as functionRows plans it
// in FROM, NULL when the body returns no row (a STRICT function over a
// NULL argument too). The record's fields are the OUT parameters, so
// field selection and .* read them; as in PostgreSQL, each (f(1)).x of
// a .* expansion is its own call.
func (c *ectx) recordCall(fn *SQLFunction, args []expr.Expr, defs []*pg_query.Node, loc int32) (expr.Expr, error) {
	if c.noSubquery {
		return nil, repr.Unsupported("calling SQL function %s, a function with several OUT parameters, in %s", fn.Name, c.clause).WithPosition(loc + 1)
	}
	vals, err := c.enterCall(fn, args, defs, loc)
	if err != nil {
		return nil, err
	}
	defer c.b.leaveFunction(fn)
	names := c.b.paramNames(fn)
	body, err := boundBody(fn, names)
	if err != nil {
		return nil, err
	}
	q := rowsQuery(fn, body, names, false)
	// A marker, TRUE on the row, NULL when there is none.
	found := &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{
		Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: true}}, Location: -1}}}
	q.TargetList = append(q.TargetList, pg_query.MakeResTargetNodeWithVal(found, -1))
	q.LimitCount, q.LimitOption = pg_query.MakeAConstIntNode(1, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
	p, keys, err := c.correlateBody(fn, q, names, vals)
	if err != nil {
		return nil, err
	}
	vs, err := c.singleRowBack(p, keys)
	if err != nil {
		return nil, err
	}
	fields := vs[:len(vs)-1]
	rec, err := c.function("row", fields, loc)
	if err != nil {
		return nil, err
	}
	out := &expr.Case{Whens: []expr.When{{Cond: vs[len(vs)-1], Then: rec}}, Else: &expr.Lit{D: repr.Null, T: rec.Type()}, T: rec.Type()}
	shape := make([]expr.TableCol, len(fields))
	for i, f := range fields {
		shape[i] = expr.TableCol{Name: fn.RetCols[i].Name, T: f.Type()}
	}
	if c.records == nil {
		c.records = map[expr.Expr][]expr.TableCol{}
	}
	c.records[out] = shape
	return out, nil
}
