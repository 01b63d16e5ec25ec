package exec

import (
	"math"

	"github.com/eddydb/eddy/repr"
)

// identicalRows reports whether a and b are the same rows value for value
// (see identical); nil differs from every row.
func identicalRows(a, b repr.Row) bool {
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

// identical is stricter than repr.Equal: numerics must also have the same
// scale (1.0 and 1.00 print differently) and floats the same bits (-0 and
// +0 print differently), so that an aggregate whose printed value changes
// is re-emitted.
func identical(a, b repr.Datum) bool {
	if a.Family() != b.Family() || repr.Compare(a, b) != 0 {
		return false
	}
	switch a.Family() {
	case repr.FamNumeric:
		return a.Numeric().Exponent == b.Numeric().Exponent
	case repr.FamFloat:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case repr.FamInterval:
		return a.Interval() == b.Interval()
	case repr.FamJSONB, repr.FamArray, repr.FamRecord:
		return a.Text() == b.Text() // their encodings hold each value as written
	}
	return true
}
