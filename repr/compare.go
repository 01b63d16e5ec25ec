package repr

import (
	"cmp"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Compare returns -1, 0 or +1 as a sorts before, equal to, or after b in
// PostgreSQL's default ascending order: NULL sorts after every value (NULLS
// LAST), NaN after every other float or numeric, -0 equals +0, 1.0 equals
// 1.00, and intervals compare by their span with a month as 30 days.
//
// Integers, floats and numerics compare with each other by value; other
// mixed families compare by family, which callers avoid by casting first.
// Compare agrees with AppendKey: Compare(a,b) == bytes.Compare(key(a), key(b)).
func Compare(a, b Datum) int {
	switch {
	case a.fam == FamUnknown || b.fam == FamUnknown:
		return cmp.Compare(nullRank(a), nullRank(b))
	case a.fam != b.fam:
		return compareMixed(a, b)
	}
	switch a.fam {
	case FamBool, FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ:
		return cmp.Compare(a.i, b.i)
	case FamFloat:
		return compareFloat(a.Float(), b.Float())
	case FamNumeric:
		return compareDecimal(a.dec, b.dec)
	case FamText, FamBytea, FamUUID, FamJSON, FamJSONPath:
		return strings.Compare(a.s, b.s)
	case FamJSONB:
		return compareJSONB(a.s, b.s)
	case FamInterval:
		return cmp.Compare(a.Interval().span(), b.Interval().span())
	case FamArray:
		if a.s == b.s {
			return 0
		}
		if c := CompareRows(a.Array(), b.Array()); c != 0 {
			return c
		}
		return compareArrayShapes(a, b)
	case FamRecord:
		return compareRecords(a, b)
	case FamBit:
		return compareBits(a, b)
	case FamEnum:
		return strings.Compare(a.s, b.s) // the sort order leads (enum.go)
	}
	return 0
}

// Equal reports whether a and b are equal under Compare (NULL equals NULL
// here; SQL's three-valued = is the evaluator's business).
func Equal(a, b Datum) bool { return Compare(a, b) == 0 }

// CompareRows compares rows column by column with Compare, then by length.
func CompareRows(a, b Row) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func nullRank(d Datum) int {
	if d.fam == FamUnknown {
		return 1
	}
	return 0
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		return cmp.Compare(b2i(an), b2i(bn))
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareDecimal(a, b *apd.Decimal) int {
	an, bn := a.Form == apd.NaN || a.Form == apd.NaNSignaling, b.Form == apd.NaN || b.Form == apd.NaNSignaling
	if an || bn {
		return cmp.Compare(b2i(an), b2i(bn))
	}
	return a.Cmp(b)
}

// compareMixed orders numbers of different families by value and anything
// else by family.
func compareMixed(a, b Datum) int {
	if isNumber(a.fam) && isNumber(b.fam) {
		return compareDecimal(a.asDecimal(), b.asDecimal())
	}
	return cmp.Compare(a.fam, b.fam)
}

func isNumber(f Family) bool { return f == FamInt || f == FamFloat || f == FamNumeric }

// asDecimal converts an int, float or numeric datum to a decimal.
func (d Datum) asDecimal() *apd.Decimal {
	switch d.fam {
	case FamInt:
		return apd.New(d.i, 0)
	case FamFloat:
		f := d.Float()
		if math.IsNaN(f) {
			return &apd.Decimal{Form: apd.NaN}
		}
		if math.IsInf(f, 0) {
			return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}
		}
		var x apd.Decimal
		_, _ = x.SetFloat64(f)
		return &x
	}
	return d.dec
}

// span is the interval's length in microseconds with PostgreSQL's
// conventions (a month is 30 days, a day 24 hours), saturating on overflow.
func (iv Interval) span() float64 {
	return float64(iv.Months)*30*86400e6 + float64(iv.Days)*86400e6 + float64(iv.Micros)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
