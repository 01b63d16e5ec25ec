package repr

import "math"

// identical reports whether a and b have exactly the same representation
// (stricter than Equal: 1.0 and 1.00 differ, -0 and 0 floats differ).
func identical(a, b Datum) bool {
	if a.fam == FamFloat && b.fam == FamFloat && math.IsNaN(a.Float()) && math.IsNaN(b.Float()) {
		return true // NaN payloads are not significant
	}
	if a.fam != b.fam || a.i != b.i || a.mon != b.mon || a.day != b.day || a.s != b.s {
		return false
	}
	if a.fam != FamNumeric {
		return true
	}
	x, y := a.dec, b.dec
	return x.Form == y.Form && x.Negative == y.Negative && x.Exponent == y.Exponent && x.Coeff.Cmp(&y.Coeff) == 0
}
