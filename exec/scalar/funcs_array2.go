package scalar

import (
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// The array constructs that SQL writes as syntax are internal functions
// here, so they print and parse like any call: ARRAY[a, b] is array(a, b)
// (its arguments already coerced to one element type by the planner),
// a[i] is array_subscript(a, i), a[i:j] array_slice(a, i, j) (with
// array_slice_from and array_slice_to for a missing bound), and
// x op ANY (a) / x op ALL (a) are any_<op>(x, a) / all_<op>(x, a).

// AnyAllOps maps a boolean operator to the suffix of its ANY/ALL
// functions (any_eq, all_ne, any_like, ...).
var AnyAllOps = map[string]string{"=": "eq", "<>": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
	"~~": "like", "!~~": "notlike", "~~*": "ilike", "!~~*": "notilike", "~": "match", "!~": "notmatch",
	"~*": "imatch", "!~*": "notimatch", "@>": "contains", "<@": "containedby", "&&": "overlaps"}

func registerArrayInternal() {
	variadics["array"] = arrayConstructor
	polyFunc(functions, "array_subscript", 2, func(args []types.T) *Func {
		e, ok := elemOf(args[0])
		if !ok {
			return nil
		}
		return newFunc("array_subscript", e, true, arraySubscript, args[0], types.Int4)
	})
	polyFunc(functions, "array_set", 3, func(args []types.T) *Func {
		e, ok := elemOf(args[0])
		if !ok {
			return nil
		}
		return newFunc("array_set", args[0], false, arraySet, args[0], types.Int4, e)
	})
	slice := func(name string, nargs int, bounds func(a []types.Datum) (int64, int64)) {
		polyFunc(functions, name, nargs, func(args []types.T) *Func {
			if _, ok := elemOf(args[0]); !ok {
				return nil
			}
			sig := []types.T{args[0], types.Int4, types.Int4}[:nargs]
			return newFunc(name, args[0], true, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				lo, hi := bounds(a)
				return arraySlice(a[0], lo, hi), nil
			}, sig...)
		})
	}
	slice("array_slice", 3, func(a []types.Datum) (int64, int64) { return a[1].Int(), a[2].Int() })
	slice("array_slice_from", 2, func(a []types.Datum) (int64, int64) { return a[1].Int(), 1 << 40 })
	slice("array_slice_to", 2, func(a []types.Datum) (int64, int64) { return 1, a[1].Int() })
	for op, suffix := range AnyAllOps {
		for _, all := range []bool{false, true} {
			name := "any_" + suffix
			if all {
				name = "all_" + suffix
			}
			polyFunc(functions, name, 2, func(args []types.T) *Func { return anyAllInst(name, op, all, args) })
		}
	}
}

// arrayConstructor instantiates array(x1, ..., xn) over arguments of one
// non-array type.
func arrayConstructor(args []types.T) (*Func, error) {
	if len(args) == 0 {
		return nil, pgerr.New("42P18", "cannot determine type of empty array").WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
	}
	e, err := CommonType(args, "ARRAY")
	if err != nil {
		return nil, err
	}
	if e.Family == types.FamArray {
		return nil, pgerr.Unsupported("multidimensional arrays")
	}
	sig := make([]types.T, len(args))
	for i := range sig {
		sig[i] = e
	}
	return newFunc("array", types.ArrayOf(e), false, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewArray(append([]types.Datum(nil), a...)), nil
	}, sig...), nil
}

// arraySubscript is a[i]: NULL out of range.
func arraySubscript(_ *Ctx, a []types.Datum) (types.Datum, error) {
	i := a[1].Int()
	if i < 1 || i > int64(a[0].ArrayLen()) {
		return types.Null, nil
	}
	return a[0].Array()[i-1], nil
}

// arraySet is the assignment a[i] = v (UPDATE ... SET a[i] = v): the
// element replaced, or the array extended with NULLs up to i. Positions
// that would move the lower bound off 1 (i < 1, or i > 1 on a NULL array)
// are 0A000; a NULL subscript is 22004, as in PostgreSQL.
func arraySet(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if a[1].IsNull() {
		return types.Null, pgerr.New("22004", "array subscript in assignment must not be null")
	}
	i := a[1].Int()
	var elems []types.Datum
	if !a[0].IsNull() {
		elems = a[0].Array()
	}
	switch {
	case i < 1 || len(elems) == 0 && i > 1:
		return types.Null, pgerr.Unsupported("arrays with a lower bound other than 1")
	case i > types.MaxArrayLen:
		return types.Null, pgerr.New(pgerr.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", types.MaxArrayLen)
	}
	for int64(len(elems)) < i {
		elems = append(elems, types.Null)
	}
	elems[i-1] = a[2]
	return types.NewArray(elems), nil
}

// arraySlice is a[lo:hi] with the bounds clamped to the array; an empty
// range gives an empty array.
func arraySlice(a types.Datum, lo, hi int64) types.Datum {
	n := int64(a.ArrayLen())
	lo, hi = max(lo, 1), min(hi, n)
	if lo > hi {
		return types.NewArray(nil)
	}
	return types.NewArray(a.Array()[lo-1 : hi])
}

// anyAllInst instantiates x op ANY/ALL (array): op is resolved over x's
// type and the element type (an unknown array literal takes x's type), and
// the signature asks the caller to coerce x and the array's elements to
// the operator's operand types.
func anyAllInst(name, op string, all bool, args []types.T) *Func {
	x := args[0]
	var e types.T
	switch {
	case args[1].Family == types.FamArray:
		e = args[1].ElemType()
	case args[1].Family != types.FamUnknown:
		return nil
	case x.Family == types.FamUnknown:
		x, e = types.Text, types.Text // 'b' = ANY('{a,b}') compares text
	default:
		e = x // an unknown array literal takes the other operand's type
	}
	opFn, targets, err := ResolveOp(op, []types.T{x, e})
	if err != nil || opFn.Ret.Family != types.FamBool {
		return nil
	}
	f := newFunc(name, types.Bool, false, nil, targets[0], types.ArrayOf(targets[1]))
	f.zoned = opFn.zoned
	f.Impl = func(ctx *Ctx, a []types.Datum) (types.Datum, error) {
		return anyAll(ctx, opFn, all, a[0], a[1])
	}
	return f
}

// anyAll evaluates x op ANY/ALL (arr) with three-valued logic: ANY is true
// if some comparison is true, else NULL if some is NULL, else false (an
// empty array gives false); ALL is the dual (an empty array gives true).
func anyAll(ctx *Ctx, op *Func, all bool, x, arr types.Datum) (types.Datum, error) {
	if arr.IsNull() {
		return types.Null, nil
	}
	sawNull := false
	pair := make([]types.Datum, 2)
	for _, e := range arr.Array() {
		if x.IsNull() || e.IsNull() {
			sawNull = true
			continue
		}
		pair[0], pair[1] = x, e
		r, err := op.Impl(ctx, pair)
		if err != nil {
			return types.Null, err
		}
		switch {
		case r.IsNull():
			sawNull = true
		case r.Bool() != all:
			return types.NewBool(!all), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(all), nil
}
