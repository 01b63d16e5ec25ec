package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// int2vector and oidvector (pg_index.indkey, pg_proc.proargtypes) are
// arrays whose subscripts start at 0, as in PostgreSQL. A call over a
// vector reads it as the plain array it casts to, whose lower bound is 0
// ([0:2]={1,2,3}), so v[i], slices, array_lower/upper and
// generate_subscripts need no rewriting. An array of vectors (ARRAY[v],
// ARRAY(SELECT v), array_agg(v), int2vector[]) has no representation
// (a vector is itself an array, and an array of arrays stacks them into
// one more dimension, which PostgreSQL does not do for these types): it
// is 0A000 rather than a two-dimensional int2 array.

// isVector reports whether e is an int2vector or oidvector.
func isVector(e expr.Expr) bool { return e.Type().Vector }

// plainArray returns vector v as the array of its elements, subscripted
// from 0.
func plainArray(v expr.Expr) expr.Expr { return expr.NewCast(v, repr.ArrayOf(v.Type().ElemType())) }

// errVectorArray is the error for an array whose elements are vectors.
func errVectorArray(t repr.T) error {
	return repr.Unsupported("arrays of type %s", t.Name())
}
