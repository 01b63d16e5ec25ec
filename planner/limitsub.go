package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// A LIMIT or OFFSET holding a subquery (LIMIT (SELECT count(*) FROM t))
// has no value at planning time, and in a view it changes with the data.
// Such a block numbers its rows in its ORDER BY order (row_number per
// outer value, the order among ties being any, as LIMIT's is) and keeps
// those numbered past the offset and within the count: the counts are
// scalar subqueries of the numbered relation, decorrelated like any other
// (an uncorrelated one is one row joined to every row). NULL counts
// mean no limit and no offset; a negative one fails when a row meets it
// (2201W, 2201X), as in PostgreSQL. FETCH FIRST ... WITH TIES compares
// the row's rank instead, keeping the peers of the last row.

// dynamicLimit applies sel's LIMIT and OFFSET, one of which holds a
// subquery, to p.rel, leaving p with no constant limit.
func (b *builder) dynamicLimit(sel *pg_query.SelectStmt, p *planned) error {
	ties := sel.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES
	n := ir.Arity(p.rel)
	w := &ir.Window{Input: p.rel, Key: identityCols(p.nOuter), Order: p.order}
	for _, k := range []expr.WinKind{expr.WinRowNumber, expr.WinRank} {
		w.Funcs = append(w.Funcs, expr.WinFunc{Kind: k, Col: -1, NCol: -1, Default: -1, Frame: expr.DefaultFrame, T: repr.Int8})
	}
	sc := &scope{}
	for _, t := range w.ColTypes() {
		sc.cols = append(sc.cols, scopeCol{typ: t, hidden: true})
	}
	ec := &ectx{b: b, sc: sc, rel: w}
	lim, err := ec.countExpr(sel.LimitCount, "LIMIT", expr.CheckLimit)
	if err != nil {
		return err
	}
	off, err := ec.countExpr(sel.LimitOffset, "OFFSET", expr.CheckOffset)
	if err != nil {
		return err
	}
	rn, last := &expr.Col{Idx: n, T: repr.Int8}, &expr.Col{Idx: n, T: repr.Int8}
	if ties {
		last = &expr.Col{Idx: n + 1, T: repr.Int8}
	}
	pred, err := ec.withinLimit(rn, last, lim, off)
	if err != nil {
		return err
	}
	p.rel = ir.NewProject(ir.NewFilter(ec.rel, pred), identityCols(n)...)
	p.limit, p.offset = -1, 0
	return nil
}

// countExpr builds a LIMIT or OFFSET count over c.rel as a bigint passed
// through check; a missing clause is NULL.
func (c *ectx) countExpr(n *pg_query.Node, clause string, check *expr.Func) (expr.Expr, error) {
	if n == nil {
		return &expr.Lit{D: repr.Null, T: repr.Int8}, nil
	}
	c.clause = clause
	e, err := c.expr(n)
	if err != nil {
		return nil, err
	}
	switch e.Type().Family {
	case repr.FamInt, repr.FamUnknown, repr.FamNumeric, repr.FamFloat:
	default:
		return nil, repr.Errorf(repr.CodeDatatypeMismatch, "argument of %s must be type bigint, not type %s", clause, e.Type().Name()).WithPosition(location(n) + 1)
	}
	if e, err = c.b.coerce(e, repr.Int8); err != nil {
		return nil, err
	}
	return &expr.Call{Fn: check, Args: []expr.Expr{e}}, nil
}

// withinLimit is the predicate keeping row number rn under the counts:
// rn > coalesce(off, 0) AND pos - coalesce(off, 0) <= coalesce(lim, pos),
// where pos is rn, or for WITH TIES the row's rank (the number of its
// first peer), so that the peers of the last row kept are kept too.
// rn and pos are at least 1 and off at least 0, so nothing overflows.
func (c *ectx) withinLimit(rn, pos, lim, off expr.Expr) (expr.Expr, error) {
	off = &expr.Coalesce{Args: []expr.Expr{off, &expr.Lit{D: repr.NewInt(0), T: repr.Int8}}, T: repr.Int8}
	past, err := c.op(">", -1, rn, off)
	if err != nil {
		return nil, err
	}
	rel, err := c.op("-", -1, pos, off)
	if err != nil {
		return nil, err
	}
	within, err := c.op("<=", -1, rel, &expr.Coalesce{Args: []expr.Expr{lim, pos}, T: repr.Int8})
	if err != nil {
		return nil, err
	}
	return &expr.And{Args: []expr.Expr{past, within}}, nil
}
