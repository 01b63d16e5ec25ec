package expr

import "github.com/eddydb/eddy/repr"

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
	polyFunc(functions, "array_subscript", 2, func(args []repr.T) *Func {
		e, ok := elemOf(args[0])
		if !ok {
			return nil
		}
		return newFunc("array_subscript", e, true, arraySubscript, args[0], repr.Int4)
	})
	polyFunc(functions, "array_set", 3, func(args []repr.T) *Func {
		e, ok := elemOf(args[0])
		if !ok {
			return nil
		}
		return newFunc("array_set", args[0], false, arraySet, args[0], repr.Int4, e)
	})
	slice := func(name string, nargs int, bounds func(a []repr.Datum) (int64, int64)) {
		polyFunc(functions, name, nargs, func(args []repr.T) *Func {
			if _, ok := elemOf(args[0]); !ok {
				return nil
			}
			sig := []repr.T{args[0], repr.Int4, repr.Int4}[:nargs]
			return newFunc(name, args[0], true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
				lo, hi := bounds(a)
				return arraySlice(a[0], lo, hi), nil
			}, sig...)
		})
	}
	slice("array_slice", 3, func(a []repr.Datum) (int64, int64) { return a[1].Int(), a[2].Int() })
	slice("array_slice_from", 2, func(a []repr.Datum) (int64, int64) { return a[1].Int(), 1 << 40 })
	slice("array_slice_to", 2, func(a []repr.Datum) (int64, int64) { return 1, a[1].Int() })
	for op, suffix := range AnyAllOps {
		for _, all := range []bool{false, true} {
			name := "any_" + suffix
			if all {
				name = "all_" + suffix
			}
			polyFunc(functions, name, 2, func(args []repr.T) *Func { return anyAllInst(name, op, all, args) })
		}
	}
}

// arrayConstructor instantiates array(x1, ..., xn) over arguments of one
// non-array type.
func arrayConstructor(args []repr.T) (*Func, error) {
	if len(args) == 0 {
		return nil, repr.Errorf("42P18", "cannot determine type of empty array").WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
	}
	e, err := CommonType(args, "ARRAY")
	if err != nil {
		return nil, err
	}
	if e.Family == repr.FamArray {
		return nil, repr.Unsupported("multidimensional arrays")
	}
	sig := make([]repr.T, len(args))
	for i := range sig {
		sig[i] = e
	}
	return newFunc("array", repr.ArrayOf(e), false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewArray(append([]repr.Datum(nil), a...)), nil
	}, sig...), nil
}

// arraySubscript is a[i]: NULL out of range.
func arraySubscript(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	i := a[1].Int()
	if i < 1 || i > int64(a[0].ArrayLen()) {
		return repr.Null, nil
	}
	return a[0].Array()[i-1], nil
}

// arraySet is the assignment a[i] = v (UPDATE ... SET a[i] = v): the
// element replaced, or the array extended with NULLs up to i. Positions
// that would move the lower bound off 1 (i < 1, or i > 1 on a NULL array)
// are 0A000; a NULL subscript is 22004, as in PostgreSQL.
func arraySet(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[1].IsNull() {
		return repr.Null, repr.Errorf("22004", "array subscript in assignment must not be null")
	}
	i := a[1].Int()
	var elems []repr.Datum
	if !a[0].IsNull() {
		elems = a[0].Array()
	}
	switch {
	case i < 1 || len(elems) == 0 && i > 1:
		return repr.Null, repr.Unsupported("arrays with a lower bound other than 1")
	case i > repr.MaxArrayLen:
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", repr.MaxArrayLen)
	}
	for int64(len(elems)) < i {
		elems = append(elems, repr.Null)
	}
	elems[i-1] = a[2]
	return repr.NewArray(elems), nil
}

// arraySlice is a[lo:hi] with the bounds clamped to the array; an empty
// range gives an empty array.
func arraySlice(a repr.Datum, lo, hi int64) repr.Datum {
	n := int64(a.ArrayLen())
	lo, hi = max(lo, 1), min(hi, n)
	if lo > hi {
		return repr.NewArray(nil)
	}
	return repr.NewArray(a.Array()[lo-1 : hi])
}

// anyAllInst instantiates x op ANY/ALL (array): op is resolved over x's
// type and the element type (an unknown array literal takes x's type), and
// the signature asks the caller to coerce x and the array's elements to
// the operator's operand types.
func anyAllInst(name, op string, all bool, args []repr.T) *Func {
	x := args[0]
	var e repr.T
	switch {
	case args[1].Family == repr.FamArray:
		e = args[1].ElemType()
	case args[1].Family != repr.FamUnknown:
		return nil
	case x.Family == repr.FamUnknown:
		x, e = repr.Text, repr.Text // 'b' = ANY('{a,b}') compares text
	default:
		e = x // an unknown array literal takes the other operand's type
	}
	opFn, targets, err := ResolveOp(op, []repr.T{x, e})
	if err != nil || opFn.Ret.Family != repr.FamBool {
		return nil
	}
	f := newFunc(name, repr.Bool, false, nil, targets[0], repr.ArrayOf(targets[1]))
	f.zoned = opFn.zoned
	f.Impl = func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		return anyAll(ctx, opFn, all, a[0], a[1])
	}
	return f
}

// anyAll evaluates x op ANY/ALL (arr) with three-valued logic: ANY is true
// if some comparison is true, else NULL if some is NULL, else false (an
// empty array gives false); ALL is the dual (an empty array gives true).
func anyAll(ctx *Ctx, op *Func, all bool, x, arr repr.Datum) (repr.Datum, error) {
	if arr.IsNull() {
		return repr.Null, nil
	}
	sawNull := false
	pair := make([]repr.Datum, 2)
	for _, e := range arr.Array() {
		if x.IsNull() || e.IsNull() {
			sawNull = true
			continue
		}
		pair[0], pair[1] = x, e
		r, err := op.Impl(ctx, pair)
		if err != nil {
			return repr.Null, err
		}
		switch {
		case r.IsNull():
			sawNull = true
		case r.Bool() != all:
			return repr.NewBool(!all), nil
		}
	}
	if sawNull {
		return repr.Null, nil
	}
	return repr.NewBool(all), nil
}
