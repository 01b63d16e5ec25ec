package expr

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

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

// Builtin describes one registered function overload for the system
// catalog (pg_proc).
type Builtin struct {
	Name string
	// Args and Ret are the signature; Poly marks polymorphic overloads,
	// whose Args and Ret are then not meaningful.
	Args     []repr.T
	Ret      repr.T
	Strict   bool
	Volatile bool
	Poly     bool
}

// Builtins returns every function overload (not operators, not the
// internal functions of syntax forms), in no particular order.
func Builtins() []Builtin {
	var out []Builtin
	for name, fs := range functions {
		if internalFuncs[name] || (strings.HasPrefix(name, "any_") || strings.HasPrefix(name, "all_")) && name != "any_value" {
			continue
		}
		for _, f := range fs {
			out = append(out, Builtin{Name: name, Args: f.Args, Ret: f.Ret, Strict: f.Strict, Volatile: f.Volatile,
				Poly: f.poly != nil})
		}
	}
	return out
}

// internalFuncs are functions that stand for syntax forms (a[i], x op
// ANY (a)) rather than callable functions.
var internalFuncs = map[string]bool{"array_subscript": true, "array_slice": true, "array_slice_from": true,
	"array_slice_to": true, "array_set": true, "array_set_slice": true}

// Operators returns every operator overload as a Builtin (one argument
// for prefix operators), in no particular order.
func Operators() []Builtin {
	var out []Builtin
	for _, table := range []map[string][]*Func{binaryOps, prefixOps} {
		for name, fs := range table {
			for _, f := range fs {
				out = append(out, Builtin{Name: name, Args: f.Args, Ret: f.Ret, Strict: f.Strict, Volatile: f.Volatile,
					Poly: f.poly != nil})
			}
		}
	}
	return out
}

// IsVariadic reports whether name is resolved as a function of any
// number of arguments (concat, format, jsonb_extract_path, ...), whose
// resolved signature does not say how PostgreSQL's VARIADIC or "any"
// parameters take the arguments.
func IsVariadic(name string) bool { return variadics[name] != nil }
