package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// indirection plans a subscript of an array (array.go), or the one form
// of (regexp_match(s, p [, flags]))[n] Eddy keeps from before it had
// arrays (regexp_match itself is not yet an array function), planned as
// regexp_match_at(s, p, n [, flags]): the n-th captured group as text,
// NULL when there is no match or no such group (as PostgreSQL's array
// subscript yields NULL out of range).
func (c *ectx) indirection(ind *pg_query.A_Indirection) (expr.Expr, error) {
	if ind.Indirection[0].GetString_() != nil {
		return c.fieldSelect(ind)
	}
	fc := ind.Arg.GetFuncCall()
	if fc == nil || funcName(fc) != "regexp_match" || fc.Over != nil || len(ind.Indirection) != 1 {
		arr, err := c.expr(ind.Arg)
		if err != nil {
			return nil, err
		}
		if arr.Type().Family == repr.FamJSONB { // PostgreSQL 14's jsonb subscripting
			return nil, repr.Unsupported("subscripts and field selection of type %s", arr.Type().Name())
		}
		return c.indirectionSteps(arr, ind.Indirection, location(ind.Arg))
	}
	idx := ind.Indirection[0].GetAIndices()
	if idx == nil || idx.IsSlice || idx.Uidx == nil {
		return nil, repr.Unsupported("array slices and field selection")
	}
	if len(fc.Args) < 2 || len(fc.Args) > 3 {
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "function regexp_match with %d arguments does not exist", len(fc.Args)).WithPosition(fc.Location + 1)
	}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return nil, err
	}
	n, err := c.expr(idx.Uidx)
	if err != nil {
		return nil, err
	}
	args = append(append(args[:2:2], n), args[2:]...)
	return c.function("regexp_match_at", args, fc.Location)
}
