package scalar

import "github.com/eddydb/eddy/sql/types"

// implFn is the signature of every built-in implementation.
type implFn = func(ctx *Ctx, args []types.Datum) (types.Datum, error)

// The registries: binary operators, prefix operators and functions by name.
// They are filled by the init functions of the ops_*.go and funcs.go files
// and read-only afterwards.
var (
	binaryOps = map[string][]*Func{}
	prefixOps = map[string][]*Func{}
	functions = map[string][]*Func{}
	// variadics resolve functions whose signature depends on the argument
	// count or types (concat, greatest, least, nullif).
	variadics = map[string]func(args []types.T) (*Func, error){}
)

// register adds a strict, immutable overload to table.
func register(table map[string][]*Func, name string, ret types.T, impl implFn, args ...types.T) *Func {
	f := &Func{Name: name, Args: args, Ret: ret, Strict: true, Impl: impl}
	table[name] = append(table[name], f)
	return f
}

// binop registers a binary operator.
func binop(name string, l, r, ret types.T, impl implFn) *Func {
	return register(binaryOps, name, ret, impl, l, r)
}

// fn registers a function overload.
func fn(name string, ret types.T, impl implFn, args ...types.T) *Func {
	return register(functions, name, ret, impl, args...)
}

// numericTypes are the number types in PostgreSQL's order of widening.
var numericTypes = []types.T{types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric}

// LookupFunc reports whether name is a built-in function (for the planner's
// error messages and default column names).
func LookupFunc(name string) bool {
	_, ok := functions[name]
	_, v := variadics[name]
	return ok || v
}
