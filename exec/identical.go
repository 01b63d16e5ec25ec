package exec

import (
	"math"

	"github.com/eddydb/eddy/sql/types"
)

// identicalRows reports whether a and b are the same rows value for value
// (see identical); nil differs from every row.
func identicalRows(a, b types.Row) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return a == nil && b == nil
	}
	for i := range a {
		if !identical(a[i], b[i]) {
			return false
		}
	}
	return true
}

// identical is stricter than types.Equal: numerics must also have the same
// scale (1.0 and 1.00 print differently) and floats the same bits (-0 and
// +0 print differently), so that an aggregate whose printed value changes
// is re-emitted.
func identical(a, b types.Datum) bool {
	if a.Family() != b.Family() || types.Compare(a, b) != 0 {
		return false
	}
	switch a.Family() {
	case types.FamNumeric:
		return a.Numeric().Exponent == b.Numeric().Exponent
	case types.FamFloat:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case types.FamInterval:
		return a.Interval() == b.Interval()
	}
	return true
}
