package expr

import "github.com/eddydb/eddy/repr"

// implFn is the signature of every built-in implementation.
type implFn = func(ctx *Ctx, args []repr.Datum) (repr.Datum, error)

// The registries: binary operators, prefix operators and functions by name.
// They are filled by the init functions of the ops_*.go and funcs.go files
// and read-only afterwards.
var (
	binaryOps = map[string][]*Func{}
	prefixOps = map[string][]*Func{}
	functions = map[string][]*Func{}
	// variadics resolve functions whose signature depends on the argument
	// count or types (concat, greatest, least, nullif).
	variadics = map[string]func(args []repr.T) (*Func, error){}
)

// register adds a strict, immutable overload to table.
func register(table map[string][]*Func, name string, ret repr.T, impl implFn, args ...repr.T) *Func {
	f := &Func{Name: name, Args: args, Ret: ret, Strict: true, Impl: impl}
	table[name] = append(table[name], f)
	return f
}

// binop registers a binary operator.
func binop(name string, l, r, ret repr.T, impl implFn) *Func {
	return register(binaryOps, name, ret, impl, l, r)
}

// fn registers a function overload.
func fn(name string, ret repr.T, impl implFn, args ...repr.T) *Func {
	return register(functions, name, ret, impl, args...)
}

// numericTypes are the number types in PostgreSQL's order of widening.
var numericTypes = []repr.T{repr.Int2, repr.Int4, repr.Int8, repr.Float4, repr.Float8, repr.Numeric}

// LookupFunc reports whether name is a built-in function (for the planner's
// error messages and default column names).
func LookupFunc(name string) bool {
	_, ok := functions[name]
	_, v := variadics[name]
	return ok || v
}
