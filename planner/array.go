package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// arrayExpr builds ARRAY[e1, ...]: the elements coerced to their common
// type, as the internal function array(...). ARRAY[] needs a cast to fix
// its type (typeCast handles ARRAY[]::t[]); nested ARRAY[[...]] would make
// a multidimensional array, which Eddy refuses.
func (c *ectx) arrayExpr(ae *pg_query.A_ArrayExpr) (scalar.Expr, error) {
	for _, el := range ae.Elements {
		if el.GetAArrayExpr() != nil {
			return nil, pgerr.Unsupported("multidimensional arrays").WithPosition(ae.Location + 1)
		}
	}
	elems, err := c.exprs(ae.Elements)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, pgerr.New("42P18", "cannot determine type of empty array").WithPosition(ae.Location + 1).
			WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
	}
	ts := make([]types.T, len(elems))
	for i, e := range elems {
		ts[i] = e.Type()
	}
	t, err := scalar.CommonType(ts, "ARRAY")
	if err != nil {
		return nil, withPos(err, ae.Location)
	}
	if t.Family == types.FamArray {
		return nil, pgerr.Unsupported("multidimensional arrays").WithPosition(ae.Location + 1)
	}
	for i, e := range elems {
		if elems[i], err = c.b.coerce(e, t); err != nil {
			return nil, err
		}
	}
	return c.function("array", elems, ae.Location)
}

// arraySubscript applies the subscripts of ind to the array arr: a[i] is
// the element (NULL out of range), a[i:j], a[i:], a[:j] and a[:] slices.
// One subscript only: arrays are one-dimensional.
func (c *ectx) arraySubscript(arr scalar.Expr, ind *pg_query.A_Indirection) (scalar.Expr, error) {
	if len(ind.Indirection) != 1 {
		return nil, pgerr.Unsupported("subscripts of multidimensional arrays")
	}
	idx := ind.Indirection[0].GetAIndices()
	if idx == nil {
		return nil, pgerr.Unsupported("field selection")
	}
	var bounds []scalar.Expr
	for _, n := range []*pg_query.Node{idx.Lidx, idx.Uidx} {
		if n == nil {
			bounds = append(bounds, nil)
			continue
		}
		e, err := c.subscriptExpr(n)
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, e)
	}
	lo, hi := bounds[0], bounds[1]
	switch {
	case !idx.IsSlice:
		return c.function("array_subscript", []scalar.Expr{arr, hi}, location(idx.Uidx))
	case lo != nil && hi != nil:
		return c.function("array_slice", []scalar.Expr{arr, lo, hi}, location(idx.Lidx))
	case lo != nil:
		return c.function("array_slice_from", []scalar.Expr{arr, lo}, location(idx.Lidx))
	case hi != nil:
		return c.function("array_slice_to", []scalar.Expr{arr, hi}, location(idx.Uidx))
	}
	return arr, nil
}

// subscriptExpr builds a subscript, coerced to integer as PostgreSQL does
// (with assignment semantics: bigint and numeric subscripts are converted).
func (c *ectx) subscriptExpr(n *pg_query.Node) (scalar.Expr, error) {
	e, err := c.expr(n)
	if err != nil {
		return nil, err
	}
	if t := e.Type(); t.Family != types.FamUnknown && types.CastContextOf(t, types.Int4) < types.CastAssignment {
		return nil, pgerr.New(pgerr.CodeDatatypeMismatch, "array subscript must have type integer").WithPosition(location(n) + 1)
	}
	return c.b.coerce(e, types.Int4)
}

// anyAll builds x op ANY (array) and x op ALL (array) for the comparison
// operators, as any_<op>/all_<op> (exec/scalar). ANY (subquery) is a
// SubLink and does not reach here.
func (c *ectx) anyAll(op string, a *pg_query.A_Expr) (scalar.Expr, error) {
	suffix, ok := scalar.AnyAllOps[op]
	kind := "ANY"
	if a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL {
		kind = "ALL"
	}
	if !ok {
		return nil, pgerr.Unsupported("operator %s with %s (array)", op, kind).WithPosition(a.Location + 1)
	}
	l, r, err := c.pair(a.Lexpr, a.Rexpr)
	if err != nil {
		return nil, err
	}
	if f := r.Type().Family; f != types.FamArray && f != types.FamUnknown {
		return nil, pgerr.New(pgerr.CodeWrongObjectType, "op ANY/ALL (array) requires array on right side").WithPosition(a.Location + 1)
	}
	name := "any_" + suffix
	if kind == "ALL" {
		name = "all_" + suffix
	}
	e, err := c.function(name, []scalar.Expr{l, r}, a.Location)
	if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.CodeUndefinedFunction {
		elem := r.Type().ElemType()
		return nil, pgerr.New(pgerr.CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type().Name(), op, elem.Name()).WithPosition(a.Location + 1)
	}
	return e, err
}
