package expr

import (
	"slices"

	"github.com/eddydb/eddy/repr"
)

// Assignment to array elements and slices (UPDATE t SET a[i] = v,
// a[i][j] = v, a[i:j] = arr; INSERT INTO t (a[i]) ...), as PostgreSQL's
// array_set_element and array_set_slice: array_set(a, i1, ..., in, v) and
// array_set_slice(a, omitted, lo1, hi1, ..., lon, hin, src), where bit k
// of omitted marks a bound left out (bound 2k the lower, 2k+1 the upper).
// A NULL or empty array is assigned into as an empty one; a
// one-dimensional array grows (with NULLs) to take a subscript outside its
// bounds, moving its lower bound down if need be; a multidimensional one
// must contain every subscript (2202E).

func registerArraySet() {
	for n := 1; n <= repr.MaxArrayDims; n++ {
		polyFunc(functions, "array_set", 2+n, func(args []repr.T) *Func {
			e, ok := elemOf(args[0])
			if !ok {
				return nil
			}
			return newFunc("array_set", args[0], false, arraySet, append(int4Sig(args[0], n), e)...)
		})
		polyFunc(functions, "array_set_slice", 3+2*n, func(args []repr.T) *Func {
			if _, ok := elemOf(args[0]); !ok {
				return nil
			}
			return newFunc("array_set_slice", args[0], false, arraySetSlice, append(int4Sig(args[0], 1+2*n), args[0])...)
		})
	}
}

// errSubscriptRange is 2202E for a subscript outside a multidimensional
// array.
func errSubscriptRange() error { return repr.Errorf("2202E", "array subscript out of range") }

// errSubscriptCount is 2202E for subscripts that do not match the array's
// dimensions.
func errSubscriptCount() error { return repr.Errorf("2202E", "wrong number of array subscripts") }

// arraySet is array_set(a, i1, ..., in, v): a with the element at the
// subscripts replaced by v.
func arraySet(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	subs, v := a[1:len(a)-1], a[len(a)-1]
	idx := make([]int, len(subs))
	for k, s := range subs {
		if s.IsNull() {
			return repr.Null, repr.Errorf("22004", "array subscript in assignment must not be null")
		}
		idx[k] = int(s.Int())
	}
	if a[0].IsNull() || a[0].ArrayLen() == 0 {
		ones := make([]int, len(idx))
		for k := range ones {
			ones[k] = 1
		}
		return newArrayChecked([]repr.Datum{v}, ones, idx)
	}
	dims, lbs := a[0].ArrayDims(), a[0].ArrayLBounds()
	switch {
	case len(dims) != len(idx):
		return repr.Null, errSubscriptCount()
	case len(dims) == 1:
		return setOneDim(a[0].Array(), lbs[0], idx[0], idx[0], []repr.Datum{v})
	}
	at, ok := offset(dims, lbs, idx)
	if !ok {
		return repr.Null, errSubscriptRange()
	}
	elems := a[0].Array()
	elems[at] = v
	return repr.NewArrayBounds(elems, dims, lbs), nil
}

// offset is the row-major position of subscripts idx in an array of shape
// dims and lower bounds lbs; false when one is outside.
func offset(dims, lbs, idx []int) (int, bool) {
	at := 0
	for k, n := range dims {
		i := idx[k] - lbs[k]
		if i < 0 || i >= n {
			return 0, false
		}
		at = at*n + i
	}
	return at, true
}

// setOneDim replaces subscripts lo..hi of the one-dimensional array elems
// (lower bound lb) by vals, growing it with NULLs to cover them.
func setOneDim(elems []repr.Datum, lb, lo, hi int, vals []repr.Datum) (repr.Datum, error) {
	ub := lb + len(elems) - 1
	nlb, nub := min(lb, lo), max(ub, hi)
	if int64(nub)-int64(nlb)+1 > repr.MaxArrayLen {
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", repr.MaxArrayLen)
	}
	out := make([]repr.Datum, nub-nlb+1)
	copy(out[lb-nlb:], elems)
	copy(out[lo-nlb:], vals)
	return newArrayChecked(out, []int{len(out)}, []int{nlb})
}

// arraySetSlice is array_set_slice(a, omitted, lo1, hi1, ..., src): a
// with the slice replaced by src's first elements (row-major); src must
// have enough (2202E). An omitted bound is the dimension's own, which an
// empty array does not have (2202E).
func arraySetSlice(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	omitted, src := a[1].Int(), a[len(a)-1]
	raw := a[2 : len(a)-1]
	los, his := make([]int, len(raw)/2), make([]int, len(raw)/2)
	empty := a[0].IsNull() || a[0].ArrayLen() == 0
	var dims, lbs []int
	if !empty {
		dims, lbs = a[0].ArrayDims(), a[0].ArrayLBounds()
		if len(dims) < len(los) {
			return repr.Null, errSubscriptCount()
		}
	}
	for k := range los {
		for j, dst := range []*int{&los[k], &his[k]} {
			switch {
			case omitted&(1<<(2*k+j)) != 0 && empty:
				return repr.Null, repr.Errorf("2202E", "array slice subscript must provide both boundaries").
					WithDetail("When assigning to a slice of an empty array value, slice boundaries must be fully specified.")
			case omitted&(1<<(2*k+j)) != 0:
				*dst = lbs[k] + j*(dims[k]-1)
			case raw[2*k+j].IsNull():
				return repr.Null, repr.Errorf("22004", "array subscript in assignment must not be null")
			default:
				*dst = int(raw[2*k+j].Int())
			}
		}
		if his[k] < los[k] {
			return repr.Null, repr.Errorf("2202E", "upper bound cannot be less than lower bound")
		}
	}
	return setSlice(a[0], empty, dims, lbs, los, his, src)
}

// setSlice assigns src to the slice los..his of arr (bounds resolved).
func setSlice(arr repr.Datum, empty bool, dims, lbs, los, his []int, src repr.Datum) (repr.Datum, error) {
	for k := len(los); k < len(dims); k++ { // dimensions past the bounds: whole
		los, his = append(los, lbs[k]), append(his, lbs[k]+dims[k]-1)
	}
	need := 1
	for k := range los {
		need *= his[k] - los[k] + 1
	}
	if src.IsNull() || src.ArrayLen() < need {
		return repr.Null, repr.Errorf("2202E", "source array too small")
	}
	vals := src.Array()[:need]
	switch {
	case empty:
		shape := make([]int, len(los))
		for k := range shape {
			shape[k] = his[k] - los[k] + 1
		}
		return newArrayChecked(vals, shape, los)
	case len(dims) == 1:
		return setOneDim(arr.Array(), lbs[0], los[0], his[0], vals)
	}
	if _, ok := offset(dims, lbs, los); !ok {
		return repr.Null, errSubscriptRange()
	}
	if _, ok := offset(dims, lbs, his); !ok {
		return repr.Null, errSubscriptRange()
	}
	elems := arr.Array()
	idx := slices.Clone(los)
	for _, v := range vals {
		at, _ := offset(dims, lbs, idx)
		elems[at] = v
		for k := len(idx) - 1; k >= 0; k-- { // next subscript, row-major
			if idx[k]++; idx[k] <= his[k] {
				break
			}
			idx[k] = los[k]
		}
	}
	return repr.NewArrayBounds(elems, dims, lbs), nil
}
