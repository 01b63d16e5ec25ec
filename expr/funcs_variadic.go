package expr

import (
	"strings"
	"sync"

	"github.com/eddydb/eddy/repr"
)

// VARIADIC arrays: f(x, VARIADIC arr) passes the elements of arr (all of
// them, row-major, whatever its dimensions) as f's trailing arguments, as
// PostgreSQL's extract_variadic_args does for its functions with a
// VARIADIC "any" parameter. The number of arguments is then known only at
// run time, so the call is the internal function f_variadic (printed and
// parsed under that name), which instantiates f for the element count on
// each row (cached per count) and calls it.

// variadicDef declares how f takes a VARIADIC array.
type variadicDef struct {
	// fixed is the number of arguments before the array.
	fixed int
	// elem is the declared element type of the array (VARIADIC text[]),
	// Unknown for VARIADIC "any".
	elem repr.T
	// nullAsEmpty passes a NULL array as no arguments (format); otherwise
	// a NULL array makes the result NULL.
	nullAsEmpty bool
	// empty is the result for an empty array when f cannot be called
	// without its variadic arguments (concat()); nil when it can.
	empty func(fixed []repr.Datum) repr.Datum
}

// variadicDefs are the functions with a VARIADIC parameter in PostgreSQL
// that Eddy has.
var variadicDefs = map[string]variadicDef{
	"concat":                  {empty: emptyText},
	"concat_ws":               {fixed: 1, empty: emptyText},
	"format":                  {fixed: 1, nullAsEmpty: true},
	"num_nulls":               {empty: zeroInt4},
	"num_nonnulls":            {empty: zeroInt4},
	"json_build_object":       {},
	"jsonb_build_object":      {},
	"jsonb_extract_path":      {fixed: 1, elem: repr.Text},
	"jsonb_extract_path_text": {fixed: 1, elem: repr.Text},
}

func init() {
	for name, d := range variadicDefs {
		variadics[VariadicName(name)] = spreadFunc(name, d)
	}
}

// VariadicName is the internal function that calls name with the
// elements of its last argument.
func VariadicName(name string) string { return name + "_variadic" }

// IsInternalVariadic reports whether name is the internal f_variadic of
// a function with a VARIADIC parameter: plans print and parse it, but SQL
// cannot call it by name (PostgreSQL has no such function: 42883).
func IsInternalVariadic(name string) bool {
	base, ok := strings.CutSuffix(strings.ToLower(name), "_variadic")
	if !ok {
		return false
	}
	_, ok = variadicDefs[base]
	return ok
}

// UndefinedFunction is PostgreSQL's 42883 for a call of name with
// arguments of types args that no function takes.
func UndefinedFunction(name string, args []repr.T) error { return funcError(name, args, false) }

// TakesVariadic reports whether name has a VARIADIC parameter, how many
// arguments precede it and its declared element type (Unknown for
// VARIADIC "any").
func TakesVariadic(name string) (fixed int, elem repr.T, ok bool) {
	d, ok := variadicDefs[name]
	return d.fixed, d.elem, ok
}

// emptyText is concat's and concat_ws's result without arguments: the
// empty string, or NULL for a NULL separator.
func emptyText(fixed []repr.Datum) repr.Datum {
	if len(fixed) > 0 && fixed[0].IsNull() {
		return repr.Null
	}
	return repr.NewText("")
}

// zeroInt4 is num_nulls' and num_nonnulls' result without arguments.
func zeroInt4([]repr.Datum) repr.Datum { return repr.NewInt(0) }

// spreadFunc instantiates name_variadic over (fixed..., array): its
// result type and fixed parameters are those of name over the fixed
// arguments and one element, which must resolve at plan time.
func spreadFunc(name string, d variadicDef) func([]repr.T) (*Func, error) {
	return func(args []repr.T) (*Func, error) {
		if len(args) != d.fixed+1 || args[d.fixed].Family != repr.FamArray {
			return nil, funcError(name, args, false)
		}
		elem := args[d.fixed].ElemType()
		fixed := args[:d.fixed:d.fixed]
		if d.elem.Family != repr.FamUnknown && !implicitOK(elem, d.elem) {
			return nil, funcError(name, args, false)
		}
		probe, _, err := ResolveFunc(name, append(fixed, elem))
		if err != nil {
			return nil, funcError(name, args, false)
		}
		inst := &instances{name: name, fixed: probe.Args[:d.fixed:d.fixed], elem: elem}
		sig := append(append([]repr.T(nil), probe.Args[:d.fixed]...), args[d.fixed])
		return &Func{Name: VariadicName(name), Args: sig, Ret: probe.Ret, zoned: probe.zoned,
			Volatile: probe.Volatile, Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
				return inst.call(c, d, a)
			}}, nil
	}
}

// instances caches the instantiations of a variadic function for each
// element count of the arrays it is called with.
type instances struct {
	name  string
	fixed []repr.T
	elem  repr.T
	mu    sync.Mutex
	byN   map[int]*Func
}

// get returns name instantiated for n elements, nil when it has no
// instance for them (concat without arguments).
func (in *instances) get(n int) *Func {
	in.mu.Lock()
	defer in.mu.Unlock()
	if fn, ok := in.byN[n]; ok {
		return fn
	}
	ts := append([]repr.T(nil), in.fixed...)
	for range n {
		ts = append(ts, in.elem)
	}
	fn, _, err := ResolveFunc(in.name, ts)
	if err != nil {
		fn = nil
	}
	if in.byN == nil {
		in.byN = map[int]*Func{}
	}
	in.byN[n] = fn
	return fn
}

// call spreads the array a[d.fixed] into the arguments of the instance
// for its element count, honouring the instance's strictness.
func (in *instances) call(c *Ctx, d variadicDef, a []repr.Datum) (repr.Datum, error) {
	fixed := a[:d.fixed:d.fixed]
	var elems []repr.Datum
	switch arr := a[d.fixed]; {
	case arr.IsNull() && !d.nullAsEmpty:
		return repr.Null, nil
	case !arr.IsNull():
		elems = arr.Array()
	}
	fn := in.get(len(elems))
	if fn == nil {
		if d.empty == nil {
			return repr.Null, funcError(in.name, in.fixed, false)
		}
		return d.empty(fixed), nil
	}
	args := append(append(make([]repr.Datum, 0, len(fixed)+len(elems)), fixed...), elems...)
	if fn.Strict {
		for _, x := range args {
			if x.IsNull() {
				return repr.Null, nil
			}
		}
	}
	return fn.Impl(c, args)
}
