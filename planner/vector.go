package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// int2vector and oidvector (pg_index.indkey, pg_proc.proargtypes) are
// arrays whose subscripts start at 0, as in PostgreSQL. Eddy's arrays
// start at 1, so calls over a vector are rewritten here onto the plain
// array: v[i] reads element i+1, array_lower and array_upper answer one
// less, generate_subscripts(v, 1) is generate_series(0, n - 1), and a
// slice of a vector is 0A000.

// isVector reports whether e is an int2vector or oidvector.
func isVector(e expr.Expr) bool { return e.Type().Vector }

// plainArray returns vector v as the array of its elements.
func plainArray(v expr.Expr) expr.Expr { return expr.NewCast(v, repr.ArrayOf(v.Type().ElemType())) }

// vectorFunction plans function name over args whose first argument is
// a vector; ok is false when name needs no rewriting (the caller then
// passes the plain array).
func (c *ectx) vectorFunction(name string, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
	args = append([]expr.Expr{plainArray(args[0])}, args[1:]...)
	one := &expr.Lit{D: repr.NewInt(1), T: repr.Int4}
	switch name {
	case "array_subscript":
		i, err := c.op("+", loc, args[1], one)
		if err != nil {
			return nil, true, err
		}
		e, err := c.function(name, []expr.Expr{args[0], i}, loc)
		return e, true, err
	case "array_lower", "array_upper":
		e, err := c.function(name, args, loc)
		if err != nil {
			return nil, true, err
		}
		e, err = c.op("-", loc, e, one)
		return e, true, err
	case "array_slice", "array_slice_from", "array_slice_to":
		return nil, true, repr.Unsupported("slices of int2vector and oidvector")
	}
	return nil, false, nil
}

// vectorSubscripts rewrites generate_subscripts(v, dim) over a vector to
// generate_series(0, array_length(v, dim) - 1); ok is false otherwise.
func (c *ectx) vectorSubscripts(name string, args []expr.Expr, loc int32) (string, []expr.Expr, error) {
	if name != "generate_subscripts" || len(args) == 0 || !isVector(args[0]) {
		return name, args, nil
	}
	if len(args) != 2 {
		return "", nil, repr.Unsupported("generate_subscripts(int2vector, dim, reverse)")
	}
	n, err := c.function("array_length", []expr.Expr{plainArray(args[0]), args[1]}, loc)
	if err != nil {
		return "", nil, err
	}
	hi, err := c.op("-", loc, n, &expr.Lit{D: repr.NewInt(1), T: repr.Int4})
	if err != nil {
		return "", nil, err
	}
	return "generate_series", []expr.Expr{&expr.Lit{D: repr.NewInt(0), T: repr.Int4}, hi}, nil
}
