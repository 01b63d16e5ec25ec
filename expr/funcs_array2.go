package expr

import (
	"math"
	"slices"

	"github.com/eddydb/eddy/repr"
)

// The array constructs that SQL writes as syntax are internal functions
// here, so they print and parse like any call: ARRAY[a, b] is array(a, b)
// (its arguments already coerced to one element type by the planner),
// a[i] is array_subscript(a, i) (a[i][j] array_subscript(a, i, j)),
// a[i:j] array_slice(a, i, j) (with array_slice_from and array_slice_to
// for a missing bound; a[i:j][k:l] is array_slices(a, i, j, k, l)), and
// x op ANY (a) / x op ALL (a) are any_<op>(x, a) / all_<op>(x, a).

// AnyAllOps maps a boolean operator to the suffix of its ANY/ALL
// functions (any_eq, all_ne, any_like, ...).
var AnyAllOps = map[string]string{"=": "eq", "<>": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
	"~~": "like", "!~~": "notlike", "~~*": "ilike", "!~~*": "notilike", "~": "match", "!~": "notmatch",
	"~*": "imatch", "!~*": "notimatch", "@>": "contains", "<@": "containedby", "&&": "overlaps"}

func registerArrayInternal() {
	variadics["array"] = arrayConstructor
	for n := 1; n <= repr.MaxArrayDims; n++ {
		polyFunc(functions, "array_subscript", 1+n, func(args []repr.T) *Func {
			e, ok := elemOf(args[0])
			if !ok {
				return nil
			}
			return newFunc("array_subscript", e, true, arraySubscript, int4Sig(args[0], n)...)
		})
		polyFunc(functions, "array_slices", 1+2*n, func(args []repr.T) *Func {
			if _, ok := elemOf(args[0]); !ok {
				return nil
			}
			return newFunc("array_slices", args[0], true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
				bounds := make([][2]int64, n)
				for i := range bounds {
					bounds[i] = [2]int64{a[1+2*i].Int(), a[2+2*i].Int()}
				}
				return sliceArray(a[0], bounds), nil
			}, int4Sig(args[0], 2*n)...)
		})
	}
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
	slice("array_slice_to", 2, func(a []repr.Datum) (int64, int64) { return math.MinInt32, a[1].Int() })
	polyFunc(functions, "array_agg_box", 1, func(args []repr.T) *Func {
		if args[0].Family != repr.FamArray {
			return nil
		}
		return newFunc("array_agg_box", args[0], false, arrayAggBox, args[0])
	})
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
	sig := make([]repr.T, len(args))
	for i := range sig {
		sig[i] = e
	}
	if e.Family == repr.FamArray {
		return newFunc("array", e, false, stackArrays, sig...), nil
	}
	return newFunc("array", repr.ArrayOf(e), false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewArray(append([]repr.Datum(nil), a...)), nil
	}, sig...), nil
}

// arrayAggBox boxes an array value of array_agg as the array of one more
// dimension holding it (finalArrayAgg stacks the boxes); NULL (22004) and
// empty (2202E) values cannot be aggregated, as in PostgreSQL.
func arrayAggBox(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[0].IsNull() {
		return repr.Null, repr.Errorf("22004", "cannot accumulate null arrays")
	}
	dims := a[0].ArrayDims()
	switch {
	case dims == nil:
		return repr.Null, repr.Errorf("2202E", "cannot accumulate empty arrays")
	case len(dims)+1 > repr.MaxArrayDims:
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(dims)+1, repr.MaxArrayDims)
	}
	return repr.NewArrayBounds(a[0].Array(), append([]int{1}, dims...), append([]int{1}, a[0].ArrayLBounds()...)), nil
}

// stackArrays is ARRAY[a1, ..., an] over arrays: an array of one more
// dimension whose sub-arrays are the arguments, which must have the same
// dimensions and lower bounds (2202E), which the result's inner dimensions
// keep; NULL and empty arguments count as empty, and only empty arguments
// give the empty array, as in PostgreSQL.
func stackArrays(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	var sub, subLbs []int
	var elems []repr.Datum
	empty := 0
	for i, d := range a {
		var dims, lbs []int
		if !d.IsNull() {
			dims, lbs = d.ArrayDims(), d.ArrayLBounds()
		}
		if dims == nil {
			empty++
		}
		if i > 0 && (!slices.Equal(dims, sub) || !slices.Equal(lbs, subLbs)) {
			return repr.Null, repr.Errorf("2202E", "multidimensional arrays must have array expressions with matching dimensions")
		}
		sub, subLbs = dims, lbs
		if dims != nil {
			elems = append(elems, d.Array()...)
		}
	}
	if empty == len(a) {
		return repr.NewArray(nil), nil
	}
	if len(sub)+1 > repr.MaxArrayDims {
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(sub)+1, repr.MaxArrayDims)
	}
	return repr.NewArrayBounds(elems, append([]int{len(a)}, sub...), append([]int{1}, subLbs...)), nil
}

// int4Sig is the signature of an array followed by n int4 subscripts.
func int4Sig(arr repr.T, n int) []repr.T {
	sig := []repr.T{arr}
	for range n {
		sig = append(sig, repr.Int4)
	}
	return sig
}

// arraySubscript is a[i][j]...: the element, NULL out of range or when the
// number of subscripts is not the array's number of dimensions.
func arraySubscript(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	dims, lbs := a[0].ArrayDims(), a[0].ArrayLBounds()
	if len(dims) != len(a)-1 {
		return repr.Null, nil
	}
	at := int64(0)
	for k, n := range dims {
		i := a[1+k].Int() - int64(lbs[k])
		if i < 0 || i >= int64(n) {
			return repr.Null, nil
		}
		at = at*int64(n) + i
	}
	return a[0].Array()[at], nil
}

// arraySlice is a[lo:hi]: the first dimension sliced, the others whole.
func arraySlice(a repr.Datum, lo, hi int64) repr.Datum {
	return sliceArray(a, [][2]int64{{lo, hi}})
}

// sliceArray is a[lo1:hi1][lo2:hi2]...: each bound clamped to its
// dimension, dimensions past the bounds whole. An empty range, or more
// bounds than dimensions, gives the empty array, as in PostgreSQL. The
// result's lower bounds are 1 whatever the array's.
func sliceArray(a repr.Datum, bounds [][2]int64) repr.Datum {
	dims, lbs := a.ArrayDims(), a.ArrayLBounds()
	if len(bounds) > len(dims) {
		return repr.NewArray(nil)
	}
	los, out := make([]int, len(dims)), make([]int, len(dims))
	for k, n := range dims {
		lo, hi := int64(1), int64(n)
		if k < len(bounds) {
			lo, hi = max(bounds[k][0]-int64(lbs[k])+1, 1), min(bounds[k][1]-int64(lbs[k])+1, int64(n))
		}
		if lo > hi {
			return repr.NewArray(nil)
		}
		los[k], out[k] = int(lo)-1, int(hi-lo)+1
	}
	var elems []repr.Datum
	all := a.Array()
	var walk func(k, base int)
	walk = func(k, base int) {
		for i := los[k]; i < los[k]+out[k]; i++ {
			at := base*dims[k] + i
			if k == len(dims)-1 {
				elems = append(elems, all[at])
			} else {
				walk(k+1, at)
			}
		}
	}
	walk(0, 0)
	return repr.NewArrayDims(elems, out)
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
