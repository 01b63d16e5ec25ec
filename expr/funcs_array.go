package expr

import (
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// Array functions and operators (PostgreSQL's anyarray/anycompatible
// family). Each is a polymorphic overload: its instantiation for the
// argument types picks the common element type, so int4[] || int8 is
// int8[] || int8 with the array cast element-wise, as in PostgreSQL.
// Arrays have up to repr.MaxArrayDims dimensions, each with its lower
// bound; functions that build an array from another keep its bounds as
// PostgreSQL's do (array_append, array_cat, array_remove, casts), and
// subscripts count from them.

// polyFunc registers a polymorphic overload of name in table with nargs
// parameters; inst returns its instance for concrete argument types, or
// nil when it does not apply.
func polyFunc(table map[string][]*Func, name string, nargs int, inst func(args []repr.T) *Func) {
	f := &Func{Name: name, Args: make([]repr.T, nargs), Strict: true, poly: inst}
	for i := range f.Args {
		f.Args[i] = anyT
	}
	table[name] = append(table[name], f)
}

// elemOf returns the element type of an array argument; ok is false for
// anything else (an unknown literal cannot fix a polymorphic type).
func elemOf(t repr.T) (repr.T, bool) {
	return t.ElemType(), t.Family == repr.FamArray
}

// commonElem is the common type of element types ts (unknowns skipped),
// false if there is none or it is an array.
func commonElem(ts ...repr.T) (repr.T, bool) {
	t, err := CommonType(ts, "")
	return t, err == nil && t.Family != repr.FamArray
}

// newFunc builds an instance with the given signature.
func newFunc(name string, ret repr.T, strict bool, impl implFn, args ...repr.T) *Func {
	return &Func{Name: name, Args: args, Ret: ret, Strict: strict, Impl: impl}
}

// arrayFn instantiates f(anyarray, extra...) -> ret(elem).
func arrayFn(name string, extra []repr.T, ret func(elem repr.T) repr.T, strict bool, impl implFn) {
	polyFunc(functions, name, 1+len(extra), func(args []repr.T) *Func {
		e, ok := elemOf(args[0])
		if !ok {
			return nil
		}
		return newFunc(name, ret(e), strict, impl, append([]repr.T{args[0]}, extra...)...)
	})
}

func always(t repr.T) func(repr.T) repr.T { return func(repr.T) repr.T { return t } }

func init() {
	registerArrayInfo()
	registerArrayEdit()
	registerArrayOps()
	registerArrayText()
	registerArrayInternal()
	registerArraySet()
}

// registerArrayInfo adds the dimension functions.
func registerArrayInfo() {
	i4 := repr.Int4
	arrayFn("array_length", []repr.T{i4}, always(i4), true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return dimInfo(a[0], a[1], func(n int) repr.Datum { return repr.NewInt(int64(n)) }), nil
	})
	arrayFn("array_upper", []repr.T{i4}, always(i4), true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return boundInfo(a[0], a[1], func(lb, n int) repr.Datum { return repr.NewInt(int64(lb + n - 1)) }), nil
	})
	arrayFn("array_lower", []repr.T{i4}, always(i4), true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return boundInfo(a[0], a[1], func(lb, _ int) repr.Datum { return repr.NewInt(int64(lb)) }), nil
	})
	arrayFn("array_ndims", nil, always(i4), true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if n := a[0].ArrayNDims(); n > 0 {
			return repr.NewInt(int64(n)), nil
		}
		return repr.Null, nil
	})
	arrayFn("array_dims", nil, always(repr.Text), true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if dims := a[0].ArrayDims(); dims != nil {
			return repr.NewText(repr.FormatArrayDims(dims, a[0].ArrayLBounds())), nil
		}
		return repr.Null, nil
	})
	arrayFn("cardinality", nil, always(i4), true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(int64(a[0].ArrayLen())), nil
	})
}

// dimInfo applies f to the length of dimension dim of a, NULL when a has
// no such dimension (an empty array has none).
func dimInfo(a, dim repr.Datum, f func(n int) repr.Datum) repr.Datum {
	dims := a.ArrayDims()
	if d := dim.Int(); d >= 1 && d <= int64(len(dims)) {
		return f(dims[d-1])
	}
	return repr.Null
}

// boundInfo applies f to the lower bound and length of dimension dim of
// a, NULL when a has no such dimension.
func boundInfo(a, dim repr.Datum, f func(lb, n int) repr.Datum) repr.Datum {
	dims, lbs := a.ArrayDims(), a.ArrayLBounds()
	if d := dim.Int(); d >= 1 && d <= int64(len(dims)) {
		return f(lbs[d-1], dims[d-1])
	}
	return repr.Null
}

// errNotOneDim is array_append's and array_prepend's error for an array
// of more than one dimension.
func errNotOneDim() error {
	return repr.Errorf("22000", "argument must be empty or one-dimensional array")
}

// registerArrayEdit adds the functions that build a new array.
func registerArrayEdit() {
	polyFunc(functions, "array_append", 2, func(args []repr.T) *Func {
		return appendInst("array_append", args, 0)
	})
	polyFunc(functions, "array_prepend", 2, func(args []repr.T) *Func {
		return appendInst("array_prepend", args, 1)
	})
	polyFunc(functions, "array_cat", 2, func(args []repr.T) *Func { return catInst("array_cat", args) })
	polyFunc(functions, "array_remove", 2, func(args []repr.T) *Func {
		e, ok := arrayAndElem(args, 0)
		if !ok {
			return nil
		}
		return newFunc("array_remove", repr.ArrayOf(e), false, arrayRemove(elemEq(e)), repr.ArrayOf(e), e)
	})
	polyFunc(functions, "array_replace", 3, func(args []repr.T) *Func {
		e, ok := arrayAndElem(args, 0, args[2])
		if !ok {
			return nil
		}
		return newFunc("array_replace", repr.ArrayOf(e), false, arrayReplace(elemEq(e)), repr.ArrayOf(e), e, e)
	})
	polyFunc(functions, "array_position", 2, positionInst)
	polyFunc(functions, "array_position", 3, positionInst)
	for _, n := range []int{2, 3} {
		polyFunc(functions, "array_fill", n, func(args []repr.T) *Func {
			e := args[0]
			if e.Family == repr.FamUnknown || e.Family == repr.FamArray || !implicitOK(args[1], repr.ArrayOf(repr.Int4)) {
				return nil
			}
			sig := []repr.T{e, repr.ArrayOf(repr.Int4), repr.ArrayOf(repr.Int4)}[:n]
			return newFunc("array_fill", repr.ArrayOf(e), false, arrayFill, sig...)
		})
	}
	polyFunc(functions, "array_positions", 2, func(args []repr.T) *Func {
		e, ok := arrayAndElem(args, 0)
		if !ok {
			return nil
		}
		return newFunc("array_positions", repr.ArrayOf(repr.Int4), false, arrayPositions(elemEq(e)), repr.ArrayOf(e), e)
	})
}

// arrayAndElem resolves (anycompatiblearray, anycompatible...) with the
// array at position arr: the common element type.
func arrayAndElem(args []repr.T, arr int, more ...repr.T) (repr.T, bool) {
	e, ok := elemOf(args[arr])
	if !ok {
		return repr.Unknown, false
	}
	ts := []repr.T{e}
	for i, a := range args {
		if i != arr {
			if a.Family == repr.FamArray {
				return repr.Unknown, false
			}
			ts = append(ts, a)
		}
	}
	return commonElem(append(ts, more...)...)
}

// appendInst instantiates array_append (arr at 0) or array_prepend (arr
// at 1); an unknown element literal takes the array's element type.
func appendInst(name string, args []repr.T, arr int) *Func {
	e, ok := arrayAndElem(args, arr)
	if !ok {
		return nil
	}
	sig := []repr.T{e, e}
	sig[arr] = repr.ArrayOf(e)
	return newFunc(name, repr.ArrayOf(e), false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		var elems []repr.Datum
		lbs := []int{1}
		if !a[arr].IsNull() {
			if a[arr].ArrayNDims() > 1 {
				return repr.Null, errNotOneDim()
			}
			elems = a[arr].Array()
			if len(elems) > 0 {
				lbs = a[arr].ArrayLBounds()
			}
		}
		if arr == 0 {
			elems = append(elems, a[1])
		} else {
			elems = append([]repr.Datum{a[0]}, elems...)
		}
		return newArrayChecked(elems, []int{len(elems)}, lbs)
	}, sig...)
}

// catInst instantiates array_cat and array || array: a NULL operand is
// an empty array, two NULLs give NULL.
func catInst(name string, args []repr.T) *Func {
	ea, ok1 := elemOf(args[0])
	eb, ok2 := elemOf(args[1])
	switch {
	case ok1 && args[1].Family == repr.FamUnknown:
		eb, ok2 = ea, true
	case ok2 && args[0].Family == repr.FamUnknown:
		ea, ok1 = eb, true
	}
	if !ok1 || !ok2 {
		return nil
	}
	e, ok := commonElem(ea, eb)
	if !ok {
		return nil
	}
	at := repr.ArrayOf(e)
	return newFunc(name, at, false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		switch {
		case a[0].IsNull():
			return a[1], nil
		case a[1].IsNull():
			return a[0], nil
		}
		return concatArrays(a[0], a[1])
	}, at, at)
}

// concatArrays is array_cat of two non-NULL arrays as PostgreSQL defines
// it for any dimensions: arrays of equal rank join along their first
// dimension (the result takes x's lower bounds), an array of one rank less
// is added as a first or last element of the other (whose bounds the
// result keeps); the element dimensions, lower bounds included, must agree
// and other shapes fail with 2202E.
func concatArrays(x, y repr.Datum) (repr.Datum, error) {
	dx, dy := x.ArrayDims(), y.ArrayDims()
	switch {
	case dx == nil:
		return y, nil
	case dy == nil:
		return x, nil
	}
	lx, ly := x.ArrayLBounds(), y.ArrayLBounds()
	elems := append(x.Array(), y.Array()...)
	bad := func(detail string, args ...any) error {
		return repr.Errorf("2202E", "cannot concatenate incompatible arrays").WithDetail(detail, args...)
	}
	switch {
	case len(dx) == len(dy):
		if !slices.Equal(dx[1:], dy[1:]) || !slices.Equal(lx[1:], ly[1:]) {
			return repr.Null, bad("Arrays with differing element dimensions are not compatible for concatenation.")
		}
		return newArrayChecked(elems, append([]int{dx[0] + dy[0]}, dx[1:]...), lx)
	case len(dx) == len(dy)+1:
		if !slices.Equal(dx[1:], dy) || !slices.Equal(lx[1:], ly) {
			return repr.Null, bad("Arrays with differing dimensions are not compatible for concatenation.")
		}
		return newArrayChecked(elems, append([]int{dx[0] + 1}, dx[1:]...), lx)
	case len(dy) == len(dx)+1:
		if !slices.Equal(dy[1:], dx) || !slices.Equal(ly[1:], lx) {
			return repr.Null, bad("Arrays with differing dimensions are not compatible for concatenation.")
		}
		return newArrayChecked(elems, append([]int{dy[0] + 1}, dy[1:]...), ly)
	}
	return repr.Null, bad("Arrays of %d and %d dimensions are not compatible for concatenation.", len(dx), len(dy))
}

// newArrayChecked is repr.NewArrayBounds after PostgreSQL's checks of the
// bounds (54000) and the size.
func newArrayChecked(elems []repr.Datum, dims, lbs []int) (repr.Datum, error) {
	if len(elems) > repr.MaxArrayLen {
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", repr.MaxArrayLen)
	}
	if err := repr.CheckArrayBounds(dims, lbs); err != nil {
		return repr.Null, err
	}
	return repr.NewArrayBounds(elems, dims, lbs), nil
}

// elemEq returns IS NOT DISTINCT FROM on elements of type e, as e's =
// compares them (comparator: bpchar values without their trailing
// blanks).
func elemEq(e repr.T) func(a, b repr.Datum) bool {
	cmp := comparator(e)
	return func(a, b repr.Datum) bool {
		if a.IsNull() || b.IsNull() {
			return a.IsNull() && b.IsNull()
		}
		return cmp(a, b) == 0
	}
}

// arrayRemove is array_remove with notDistinct the elements' IS NOT
// DISTINCT FROM.
func arrayRemove(notDistinct func(a, b repr.Datum) bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, nil
		}
		if a[0].ArrayNDims() > 1 {
			return repr.Null, repr.Unsupported("removing elements from multidimensional arrays")
		}
		var out []repr.Datum
		for _, e := range a[0].Array() {
			if !notDistinct(e, a[1]) {
				out = append(out, e)
			}
		}
		return repr.NewArrayBounds(out, []int{len(out)}, a[0].ArrayLBounds()), nil
	}
}

// arrayReplace is array_replace with notDistinct the elements' IS NOT
// DISTINCT FROM.
func arrayReplace(notDistinct func(a, b repr.Datum) bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, nil
		}
		elems := a[0].Array()
		for i, e := range elems {
			if notDistinct(e, a[1]) {
				elems[i] = a[2]
			}
		}
		return repr.ArrayLike(a[0], elems), nil
	}
}

// positionInst instantiates array_position(arr, elem [, start]).
func positionInst(args []repr.T) *Func {
	e, ok := arrayAndElem(args[:2], 0)
	if !ok || len(args) == 3 && !implicitOK(args[2], repr.Int4) {
		return nil
	}
	sig := []repr.T{repr.ArrayOf(e), e, repr.Int4}[:len(args)]
	return newFunc("array_position", repr.Int4, false, arrayPosition(elemEq(e)), sig...)
}

// arrayPosition is the first subscript at or after start (default the
// lower bound) whose element is not distinct from the value (notDistinct);
// NULL if none.
func arrayPosition(notDistinct func(a, b repr.Datum) bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, nil
		}
		start := int64(math.MinInt64)
		if len(a) == 3 {
			if a[2].IsNull() {
				return repr.Null, repr.Errorf("22004", "initial position must not be null")
			}
			start = a[2].Int()
		}
		if a[0].ArrayNDims() > 1 {
			return repr.Null, errSearchMultiDim()
		}
		lb := int64(lowerBound(a[0]))
		for i, e := range a[0].Array() {
			if lb+int64(i) >= start && notDistinct(e, a[1]) {
				return repr.NewInt(lb + int64(i)), nil
			}
		}
		return repr.Null, nil
	}
}

// lowerBound is the lower bound of a's first dimension (1 when empty).
func lowerBound(a repr.Datum) int {
	if lbs := a.ArrayLBounds(); len(lbs) > 0 {
		return lbs[0]
	}
	return 1
}

// errSearchMultiDim is array_position's and array_positions' 0A000.
func errSearchMultiDim() error {
	return repr.Unsupported("searching for elements in multidimensional arrays")
}

// arrayFill is array_fill(value, dims [, lbounds]): an array of shape
// dims (empty if any length is below 1) and lower bounds lbounds (default
// 1) with every element value.
func arrayFill(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[1].IsNull() || len(a) == 3 && a[2].IsNull() {
		return repr.Null, repr.Errorf("22004", "dimension array or low bound array cannot be null")
	}
	dims := a[1].Array()
	if len(a) == 3 && a[2].ArrayLen() != len(dims) {
		return repr.Null, repr.Errorf("2202E", "wrong number of array subscripts").WithDetail("Low bound array has different size than dimensions array.")
	}
	if len(dims) > repr.MaxArrayDims {
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(dims), repr.MaxArrayDims)
	}
	shape, lbs, total := make([]int, len(dims)), make([]int, len(dims)), int64(1)
	for i, d := range dims {
		lbs[i] = 1
		if len(a) == 3 {
			lb := a[2].Array()[i]
			if lb.IsNull() {
				return repr.Null, repr.Errorf("22004", "dimension values cannot be null")
			}
			lbs[i] = int(lb.Int())
		}
		if d.IsNull() {
			return repr.Null, repr.Errorf("22004", "dimension values cannot be null")
		}
		shape[i] = int(max(d.Int(), 0))
		if total = min(total*int64(shape[i]), repr.MaxArrayLen+1); total > repr.MaxArrayLen {
			return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", repr.MaxArrayLen)
		}
	}
	if total == 0 || len(dims) == 0 {
		return repr.NewArray(nil), nil
	}
	elems := make([]repr.Datum, total)
	for i := range elems {
		elems[i] = a[0]
	}
	return newArrayChecked(elems, shape, lbs)
}

// arrayPositions is array_positions with notDistinct the elements' IS
// NOT DISTINCT FROM.
func arrayPositions(notDistinct func(a, b repr.Datum) bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, nil
		}
		if a[0].ArrayNDims() > 1 {
			return repr.Null, errSearchMultiDim()
		}
		out := []repr.Datum{}
		lb := int64(lowerBound(a[0]))
		for i, e := range a[0].Array() {
			if notDistinct(e, a[1]) {
				out = append(out, repr.NewInt(lb+int64(i)))
			}
		}
		return repr.NewArray(out), nil
	}
}

// registerArrayOps adds ||, @>, <@, && and the comparisons of arrays.
func registerArrayOps() {
	polyFunc(binaryOps, "||", 2, func(args []repr.T) *Func { return catInst("||", args) })
	polyFunc(binaryOps, "||", 2, func(args []repr.T) *Func {
		if args[1].Family == repr.FamUnknown {
			return nil // array || unknown is array || array
		}
		return appendInst("||", args, 0)
	})
	polyFunc(binaryOps, "||", 2, func(args []repr.T) *Func {
		if args[0].Family == repr.FamUnknown {
			return nil
		}
		return appendInst("||", args, 1)
	})
	setOp := func(name string, f func(a, b []repr.Datum, eq func(a, b repr.Datum) bool) bool) {
		polyFunc(binaryOps, name, 2, func(args []repr.T) *Func {
			at, ok := sameArrays(args)
			if !ok {
				return nil
			}
			eq := elemEq(at.ElemType())
			return newFunc(name, repr.Bool, true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
				return repr.NewBool(f(a[0].Array(), a[1].Array(), eq)), nil
			}, at, at)
		})
	}
	setOp("@>", containsAll)
	setOp("<@", func(a, b []repr.Datum, eq func(a, b repr.Datum) bool) bool { return containsAll(b, a, eq) })
	setOp("&&", overlaps)
	for op, pred := range cmpPredicates() {
		polyFunc(binaryOps, op, 2, func(args []repr.T) *Func {
			at, ok := sameArrays(args)
			if !ok {
				return nil
			}
			compare := compareTrimmed(at)
			return newFunc(op, repr.Bool, true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
				return repr.NewBool(pred(compare(a[0], a[1]))), nil
			}, at, at)
		})
	}
}

// sameArrays resolves (anycompatiblearray, anycompatiblearray): both
// arrays (or one an unknown literal) of a common element type.
func sameArrays(args []repr.T) (repr.T, bool) {
	ea, ok1 := elemOf(args[0])
	eb, ok2 := elemOf(args[1])
	switch {
	case ok1 && !ok2 && args[1].Family == repr.FamUnknown:
		return args[0], true
	case ok2 && !ok1 && args[0].Family == repr.FamUnknown:
		return args[1], true
	case !ok1 || !ok2:
		return repr.Unknown, false
	}
	e, ok := commonElem(ea, eb)
	return repr.ArrayOf(e), ok
}

// containsAll is a @> b: every element of b equals (eq) some element of
// a (a NULL never equals anything).
func containsAll(a, b []repr.Datum, eq func(a, b repr.Datum) bool) bool {
	for _, x := range b {
		if !containsElem(a, x, eq) {
			return false
		}
	}
	return true
}

// overlaps is a && b: some non-NULL element is in both.
func overlaps(a, b []repr.Datum, eq func(a, b repr.Datum) bool) bool {
	for _, x := range b {
		if containsElem(a, x, eq) {
			return true
		}
	}
	return false
}

func containsElem(a []repr.Datum, x repr.Datum, eq func(a, b repr.Datum) bool) bool {
	if x.IsNull() {
		return false
	}
	for _, y := range a {
		if !y.IsNull() && eq(x, y) {
			return true
		}
	}
	return false
}

// registerArrayText adds array_to_string and string_to_array.
func registerArrayText() {
	t := repr.Text
	for _, n := range []int{2, 3} {
		polyFunc(functions, "array_to_string", n, func(args []repr.T) *Func {
			if _, ok := elemOf(args[0]); !ok {
				return nil
			}
			f := newFunc("array_to_string", t, n == 2, arrayToString(args[0]), append([]repr.T{args[0]}, t, t)[:n]...)
			f.zoned = zonedType(args[0])
			return f
		})
		fn("string_to_array", repr.ArrayOf(t), stringToArray, append([]repr.T{t}, t, t)[:n]...).Strict = false
	}
}

// arrayToString joins the elements' text forms with the delimiter,
// skipping NULL elements or writing the null string in their place.
func arrayToString(at repr.T) implFn {
	return func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() || a[1].IsNull() {
			return repr.Null, nil
		}
		var b strings.Builder
		first := true
		for _, e := range a[0].Array() {
			var s string
			switch {
			case !e.IsNull():
				s = formatText(e, at.ElemType(), ctx.Location())
			case len(a) == 3 && !a[2].IsNull():
				s = a[2].Text()
			default:
				continue
			}
			if !first {
				b.WriteString(a[1].Text())
			}
			b.WriteString(s)
			first = false
		}
		return repr.NewText(b.String()), nil
	}
}

// stringToArray splits a string at each delimiter (a NULL delimiter
// splits into characters, an empty one not at all); elements equal to the
// null string become NULL. An empty string gives an empty array.
func stringToArray(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[0].IsNull() {
		return repr.Null, nil
	}
	s := a[0].Text()
	var parts []string
	switch {
	case s == "":
	case a[1].IsNull():
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case a[1].Text() == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, a[1].Text())
	}
	elems := make([]repr.Datum, len(parts))
	for i, p := range parts {
		if len(a) < 3 || a[2].IsNull() || p != a[2].Text() {
			elems[i] = repr.NewText(p)
		}
	}
	return repr.NewArray(elems), nil
}
