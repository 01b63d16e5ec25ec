package repr

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// Multidimensional arrays. A one-dimensional array's payload is its
// elements as a row (AppendRow: a uvarint count, then the values), the
// encoding data directories already hold. An array of 2 to MaxArrayDims
// dimensions (lower bounds 1) starts instead with uvarint(multiDimMark +
// ndim), a count no one-dimensional payload can have (it exceeds
// MaxArrayLen), then each dimension's length as a uvarint, then all
// elements as one row in row-major order. Each shape has exactly one
// encoding (one dimension always uses the short form, an empty array has
// none), so equal arrays have equal payloads.
//
// Comparison follows array_cmp: elements in row-major order, then the
// number of elements, then the number of dimensions, then the dimensions'
// lengths. The key encoding of a multidimensional array is its elements'
// keys, multiDimKey (instead of a one-dimensional array's arrayKeyEnd),
// ndim and each length as 4 big-endian bytes. Keys must be prefix-free
// (an arrangement or index seeks a key as a prefix of the stored keys
// that follow it with more columns), and a one-dimensional array's key is
// fixed by the data directories holding it, so no byte between
// arrayKeyEnd and keyValue is left to put a multidimensional array after
// the one-dimensional array with the same elements: its key sorts before
// it (and still after any array with fewer elements, before any with
// more). Equal keys are still exactly equal arrays; only ORDER BY over
// arrays of different ranks with the same elements differs from
// PostgreSQL.
//
// Lower bounds other than 1 (lower.go) use a third header form and a
// third key terminator; every other array keeps the two forms above.
const (
	// MaxArrayDims is PostgreSQL's MAXDIM.
	MaxArrayDims = 6
	multiDimMark = 1 << 32
	multiDimKey  = 0x00
)

// NewArrayDims returns an array datum of shape dims (each at least 1, at
// most MaxArrayDims of them, lower bounds 1) holding elems in row-major
// order; len(elems) must be the product of dims. No dimensions or one is
// NewArray.
func NewArrayDims(elems []Datum, dims []int) Datum {
	if len(dims) <= 1 || len(elems) == 0 {
		return NewArray(elems)
	}
	buf := binary.AppendUvarint(nil, multiDimMark+uint64(len(dims)))
	for _, n := range dims {
		buf = binary.AppendUvarint(buf, uint64(n))
	}
	return Datum{fam: FamArray, s: string(AppendRow(buf, elems))}
}

// ArrayDims returns the lengths of an array datum's dimensions: none for
// an empty array, one for a one-dimensional array.
func (d Datum) ArrayDims() []int {
	dims, _, _ := arrayHeader(d.s)
	if dims == nil {
		if n := d.ArrayLen(); n > 0 {
			return []int{n}
		}
	}
	return dims
}

// ArrayNDims returns the number of dimensions of an array datum (0 when
// empty).
func (d Datum) ArrayNDims() int { return len(d.ArrayDims()) }

// arrayHeader splits a payload into its dimensions (nil for the
// one-dimensional form), its lower bounds (nil when all are 1) and the row
// of elements. The payload is valid.
func arrayHeader(s string) ([]int, []int, string) {
	m, k := uvarint(s)
	if m < multiDimMark {
		return nil, nil, s
	}
	if m > lowerMark {
		return lowerHeader(int(m-lowerMark), s[k:])
	}
	dims := make([]int, m-multiDimMark)
	s = s[k:]
	for i := range dims {
		n, k := uvarint(s)
		dims[i], s = int(n), s[k:]
	}
	return dims, nil, s
}

// validArrayHeader checks a multidimensional header and returns the rest
// of the payload and the number of elements it promises.
func validArrayHeader(s string) (string, uint64, bool) {
	m, k := uvarint(s)
	if k <= 0 || m < multiDimMark {
		return s, 0, k > 0
	}
	if m > lowerMark {
		return validLowerHeader(m-lowerMark, s[k:])
	}
	ndim := m - multiDimMark
	if ndim < 2 || ndim > MaxArrayDims {
		return "", 0, false
	}
	s = s[k:]
	total := uint64(1)
	for range ndim {
		n, k := uvarint(s)
		if k <= 0 || n == 0 || n > MaxArrayLen {
			return "", 0, false
		}
		if total *= n; total > MaxArrayLen {
			return "", 0, false
		}
		s = s[k:]
	}
	if n, k := uvarint(s); k <= 0 || n != total {
		return "", 0, false
	}
	return s, total, true
}

// compareArrayShapes breaks a tie between arrays with equal elements as
// array_cmp does: fewer dimensions first, then shorter dimensions, then
// smaller lower bounds.
func compareArrayShapes(a, b Datum) int {
	da, db := a.ArrayDims(), b.ArrayDims()
	if len(da) != len(db) {
		return cmp.Compare(len(da), len(db))
	}
	if c := slices.Compare(da, db); c != 0 {
		return c
	}
	return slices.Compare(a.ArrayLBounds(), b.ArrayLBounds())
}

// appendArrayShapeKey appends the terminator of an array's key:
// arrayKeyEnd for one dimension or none, else multiDimKey and the shape.
func appendArrayShapeKey(buf []byte, d Datum) []byte {
	dims, lbs, _ := arrayHeader(d.s)
	if dims == nil {
		return append(buf, arrayKeyEnd)
	}
	if lbs != nil {
		return appendLowerKey(buf, dims, lbs)
	}
	buf = append(buf, multiDimKey, byte(len(dims)))
	for _, n := range dims {
		buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	}
	return buf
}

// errArrayDims is 54000 for more than MaxArrayDims dimensions.
func errArrayDims(n int) error {
	return Errorf(CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, MaxArrayDims)
}

// appendNested appends the elements of shape dims from elems, nested in
// braces, with elem appending one element; it returns the elements not
// used.
func appendNested(buf []byte, elems []Datum, dims []int, elem func([]byte, Datum) []byte) ([]byte, []Datum) {
	buf = append(buf, '{')
	for i := range dims[0] {
		if i > 0 {
			buf = append(buf, ',')
		}
		if len(dims) > 1 {
			buf, elems = appendNested(buf, elems, dims[1:], elem)
			continue
		}
		buf, elems = elem(buf, elems[0]), elems[1:]
	}
	return append(buf, '}'), elems
}

// FormatArrayDims prints a shape as array_dims does: [1:2][0:3], with
// lbs the lower bounds (nil: all 1).
func FormatArrayDims(dims, lbs []int) string {
	s := ""
	for i, n := range dims {
		lb := 1
		if lbs != nil {
			lb = lbs[i]
		}
		s += fmt.Sprintf("[%d:%d]", lb, lb+n-1)
	}
	return s
}
