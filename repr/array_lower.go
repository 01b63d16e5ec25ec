package repr

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
)

// Lower bounds. PostgreSQL's arrays carry a lower bound per dimension
// ('[0:2]={1,2,3}', array_fill(v, dims, lbounds), a[i] = v below the
// first subscript); the bounds take part in equality, ordering and every
// output form. Arrays whose lower bounds are all 1 keep the two payload
// forms of array_dims.go (the encodings data directories hold); an array
// with another lower bound starts instead with uvarint(lowerMark + ndim)
// (1 <= ndim <= MaxArrayDims), then each dimension's length as a uvarint,
// then each lower bound as a varint, then its elements as one row. A
// payload of this form must have a lower bound other than 1, so each
// value still has exactly one encoding. Its key terminator is
// multiDimKey, lowerKeyFlag|ndim, the lengths and the lower bounds
// (biased to sort as signed), 4 big-endian bytes each; the flag keeps it
// apart from a multidimensional array's shape, so keys stay prefix-free
// and equal only for equal arrays.
const (
	lowerMark    = multiDimMark + 16
	lowerKeyFlag = 0x80
)

// NewArrayBounds returns the array of shape dims with lower bounds lbs
// (nil: all 1) holding elems in row-major order. The caller has checked
// the bounds with CheckArrayBounds; an empty array has no bounds.
func NewArrayBounds(elems []Datum, dims, lbs []int) Datum {
	if len(elems) == 0 || !hasLowerBounds(lbs) {
		return NewArrayDims(elems, dims)
	}
	buf := binary.AppendUvarint(nil, lowerMark+uint64(len(dims)))
	for _, n := range dims {
		buf = binary.AppendUvarint(buf, uint64(n))
	}
	for _, lb := range lbs {
		buf = binary.AppendVarint(buf, int64(lb))
	}
	return Datum{fam: FamArray, s: string(AppendRow(buf, elems))}
}

// ArrayLike returns the array of d's shape and lower bounds holding elems
// (as many as d has).
func ArrayLike(d Datum, elems []Datum) Datum {
	return NewArrayBounds(elems, d.ArrayDims(), d.ArrayLBounds())
}

// ArrayLBounds returns the lower bound of each of an array datum's
// dimensions (none for an empty array).
func (d Datum) ArrayLBounds() []int {
	dims, lbs, _ := arrayHeader(d.s)
	switch {
	case lbs != nil:
		return lbs
	case dims == nil && d.ArrayLen() > 0:
		return []int{1}
	}
	lbs = make([]int, len(dims))
	for i := range lbs {
		lbs[i] = 1
	}
	return lbs
}

// CheckArrayBounds is PostgreSQL's ArrayCheckBounds: each dimension's
// length plus its lower bound must fit in an int4 (54000 otherwise).
func CheckArrayBounds(dims, lbs []int) error {
	for i, n := range dims {
		if lbs == nil {
			continue
		}
		if lbs[i] < math.MinInt32 || int64(lbs[i])+int64(n) > math.MaxInt32 {
			return Errorf(CodeProgramLimitExceeded, "array lower bound is too large: %d", lbs[i])
		}
	}
	return nil
}

// hasLowerBounds reports whether some bound of lbs is not 1.
func hasLowerBounds(lbs []int) bool {
	return slices.ContainsFunc(lbs, func(lb int) bool { return lb != 1 })
}

// lowerHeader decodes the rest of a lower-bound header of ndim
// dimensions from a valid payload.
func lowerHeader(ndim int, s string) ([]int, []int, string) {
	dims, lbs := make([]int, ndim), make([]int, ndim)
	for i := range dims {
		n, k := uvarint(s)
		dims[i], s = int(n), s[k:]
	}
	for i := range lbs {
		lb, k := varint(s)
		lbs[i], s = int(lb), s[k:]
	}
	return dims, lbs, s
}

// validLowerHeader checks the rest of a lower-bound header of ndim
// dimensions and returns the rest of the payload and the number of
// elements it promises.
func validLowerHeader(ndim uint64, s string) (string, uint64, bool) {
	if ndim < 1 || ndim > MaxArrayDims {
		return "", 0, false
	}
	dims, total := make([]int, ndim), uint64(1)
	for i := range dims {
		n, k := uvarint(s)
		if k <= 0 || n == 0 || n > MaxArrayLen {
			return "", 0, false
		}
		if total *= n; total > MaxArrayLen {
			return "", 0, false
		}
		dims[i], s = int(n), s[k:]
	}
	lbs := make([]int, ndim)
	for i := range lbs {
		lb, k := varint(s)
		if k <= 0 || lb != int64(int32(lb)) {
			return "", 0, false
		}
		lbs[i], s = int(lb), s[k:]
	}
	if !hasLowerBounds(lbs) || CheckArrayBounds(dims, lbs) != nil {
		return "", 0, false
	}
	if n, k := uvarint(s); k <= 0 || n != total {
		return "", 0, false
	}
	return s, total, true
}

// appendLowerKey appends the key terminator of an array with lower
// bounds other than 1.
func appendLowerKey(buf []byte, dims, lbs []int) []byte {
	buf = append(buf, multiDimKey, lowerKeyFlag|byte(len(dims)))
	for _, n := range dims {
		buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	}
	for _, lb := range lbs {
		buf = binary.BigEndian.AppendUint32(buf, uint32(int32(lb))^0x80000000)
	}
	return buf
}

// appendDimsDecoration appends array_out's "[lb:ub]...=" prefix when some
// lower bound is not 1.
func appendDimsDecoration(buf []byte, d Datum) []byte {
	dims, lbs, _ := arrayHeader(d.s)
	if lbs == nil {
		return buf
	}
	for i, n := range dims {
		buf = append(buf, '[')
		buf = strconv.AppendInt(buf, int64(lbs[i]), 10)
		buf = append(buf, ':')
		buf = strconv.AppendInt(buf, int64(lbs[i]+n-1), 10)
		buf = append(buf, ']')
	}
	return append(buf, '=')
}

// varint decodes binary.AppendVarint's zig-zag form from the start of s.
func varint(s string) (int64, int) {
	ux, k := uvarint(s)
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x, k
}
