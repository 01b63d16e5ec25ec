package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// PL/pgSQL functions (SQLFunction.Procedural) are not inlined: a call is
// an expr.RoutineFunc (in FROM, an expr.RoutineTableFunc) that runs the
// session's interpreter at run time over the call's arguments, coerced
// to the parameter types (defaults filled in). Being volatile, such a
// call is never folded. A materialized view, which no session
// maintains, gets the function translated into an expression instead
// (plinline.go); a call in its FROM is refused (0A000). A call in FROM may read the columns of the
// FROM items before it (implicitly LATERAL), as any table function.

// routineCall plans a select-list call of fn, a PL/pgSQL function, over
// args (then defs, the defaults of the parameters not written).
func (c *ectx) routineCall(fn *SQLFunction, args []expr.Expr, defs []*pg_query.Node, loc int32) (expr.Expr, error) {
	if fn.RetSet {
		return nil, repr.Unsupported("set-returning PL/pgSQL function %s outside FROM", fn.Name).WithPosition(loc + 1)
	}
	if len(fn.RetCols) > 1 {
		return nil, repr.Unsupported("calling %s, a function with several OUT parameters, outside FROM", fn.Name).WithPosition(loc + 1)
	}
	all, err := c.routineArgs(fn, args, defs)
	if err != nil {
		return nil, err
	}
	ret := fn.Ret
	if len(fn.RetCols) == 1 {
		ret = fn.RetCols[0].Type
	}
	return &expr.Call{Fn: expr.RoutineFunc(fn.ID, fn.Name, fn.Args, ret, fn.Strict), Args: all}, nil
}

// routineArgs records the call of fn (privileges, dependencies; refused
// in a materialized view) and returns its arguments coerced to fn's
// parameter types, defaults included.
func (c *ectx) routineArgs(fn *SQLFunction, args []expr.Expr, defs []*pg_query.Node) ([]expr.Expr, error) {
	b := c.b
	b.routines = true
	if b.opts.MaterializedView {
		return nil, repr.Unsupported("calling the PL/pgSQL function %s() in a materialized view", fn.Name)
	}
	if b.opts.Calls != nil {
		*b.opts.Calls = append(*b.opts.Calls, Call{SQLFunction: fn.ID})
	}
	if u, ok := b.cat.(FunctionUser); ok {
		u.UseFunction(fn.ID)
	}
	more, err := c.exprs(defs)
	if err != nil {
		return nil, err
	}
	all := append(append([]expr.Expr(nil), args...), more...)
	for i, a := range all {
		if all[i], err = b.coerce(a, fn.Args[i]); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// routineTableCall plans a call of a PL/pgSQL function in FROM (ok
// false: name is no such function).
func (c *ectx) routineTableCall(fc *pg_query.FuncCall, defs []*pg_query.Node) (expr.TableCall, bool, error) {
	name := funcName(fc)
	fns := c.b.sqlFunctions(name)
	if len(fns) == 0 || !fns[0].Procedural || expr.IsTableFunc(name) || expr.LookupFunc(name) {
		return expr.TableCall{}, false, nil
	}
	fc, err := c.positionalCall(fc)
	if err == nil {
		fc, err = c.variadicForm(fc)
	}
	if err != nil {
		return expr.TableCall{}, true, err
	}
	if len(defs) > 0 {
		return expr.TableCall{}, true, repr.Unsupported("a column definition list on PL/pgSQL function %s", name)
	}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return expr.TableCall{}, true, err
	}
	fn, dflt, err := resolveSQLFunction(name, fns, exprTypes(args))
	if err != nil {
		return expr.TableCall{}, true, withPos(err, fc.Location)
	}
	all, err := c.routineArgs(fn, args, dflt)
	if err != nil {
		return expr.TableCall{}, true, err
	}
	var cols []expr.TableCol
	for _, rc := range fn.RetCols {
		cols = append(cols, expr.TableCol{Name: rc.Name, T: rc.Type})
	}
	if len(cols) == 0 {
		cols = []expr.TableCol{{T: fn.Ret}}
	}
	return expr.TableCall{Func: expr.RoutineTableFunc(fn.ID, fn.Name, fn.Args, cols, fn.Strict), Args: all}, true, nil
}
