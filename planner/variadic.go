package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// variadicCall plans f(x, ..., VARIADIC arr). For a function with a
// VARIADIC parameter (expr.TakesVariadic) the array's elements are its
// variadic arguments, spread at run time (expr's f_variadic); the array
// must follow exactly the function's fixed arguments (42883 otherwise)
// and be an array (42804; an untyped literal is one only where the
// parameter is declared text[]). For any other function VARIADIC is
// ignored and the array is an ordinary last argument, as in PostgreSQL
// (cardinality(VARIADIC a) is cardinality(a)).
func (c *ectx) variadicCall(name string, fc *pg_query.FuncCall) (expr.Expr, error) {
	args, err := c.exprs(fc.Args)
	if err != nil {
		return nil, err
	}
	fixed, elem, ok := expr.TakesVariadic(name)
	if !ok {
		return c.function(name, args, fc.Location)
	}
	last := len(args) - 1
	if t := args[last].Type(); t.Family == repr.FamUnknown && elem.Family != repr.FamUnknown {
		if args[last], err = c.b.coerce(args[last], repr.ArrayOf(elem)); err != nil {
			return nil, err
		}
	} else if t.Family != repr.FamArray {
		return nil, repr.Errorf(repr.CodeDatatypeMismatch, "VARIADIC argument must be an array").
			WithPosition(location(fc.Args[last]) + 1)
	}
	_ = fixed // f_variadic refuses other arities with 42883, naming f's argument types
	return c.function(expr.VariadicName(name), args, fc.Location)
}
