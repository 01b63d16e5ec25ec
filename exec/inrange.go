package exec

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// errFrameSize is PostgreSQL's error for a negative (or NaN) RANGE
// offset, raised when a frame is computed with it (in_range).
var errFrameSize = repr.Errorf("22013", "invalid preceding or following size in window function")

// inRange is PostgreSQL's in_range support function for an ORDER BY
// column of type t: whether val <= base ± off (less) or val >= base ± off
// (not less), sub choosing the minus. val and base are not NULL; bad
// reports an offset PostgreSQL rejects (negative, NaN), which fails
// every call. Sums that overflow compare as infinitely far, as the
// integer in_range functions do; floats and numerics order NaN after
// everything and treat infinities as PostgreSQL 15 does.
func inRange(c *expr.Ctx, t repr.T, val, base, off repr.Datum, sub, less, bad bool) (bool, error) {
	if bad {
		return false, errFrameSize
	}
	switch t.Family {
	case repr.FamInt:
		return inRangeInt(val.Int(), base.Int(), off.Int(), sub, less), nil
	case repr.FamFloat:
		return inRangeFloat(val.Float(), base.Float(), offFloat(off), sub, less), nil
	case repr.FamNumeric:
		return inRangeNumeric(val.Numeric(), base.Numeric(), off.Numeric(), sub, less)
	case repr.FamTime:
		d := off.Interval().Micros
		if sub {
			d = -d
		}
		return cmpLess(cmpInt(val.Micros(), base.Micros()+d), less), nil
	case repr.FamInterval:
		return inRangeInterval(val, base, off, sub, less)
	}
	return inRangeTimestamp(c, t, val, base, off.Interval(), sub, less)
}

// cmpLess turns a comparison of val with the bound into in_range's answer.
func cmpLess(c int, less bool) bool {
	if less {
		return c <= 0
	}
	return c >= 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func inRangeInt(val, base, off int64, sub, less bool) bool {
	if sub {
		off = -off
	}
	sum := base + off
	if (off > 0 && sum < base) || (off < 0 && sum > base) {
		// The true sum lies beyond every value.
		return sub != less
	}
	return cmpLess(cmpInt(val, sum), less)
}

func offFloat(off repr.Datum) float64 {
	if off.Family() == repr.FamInt {
		return float64(off.Int())
	}
	return off.Float()
}

// inRangeFloat is in_range_float8_float8.
func inRangeFloat(val, base, off float64, sub, less bool) bool {
	switch {
	case math.IsNaN(val):
		return math.IsNaN(base) || !less
	case math.IsNaN(base):
		return less
	case math.IsInf(off, 0) && math.IsInf(base, 0) && (sub == (base > 0)):
		// base -/+ inf would be NaN: every value is in the frame.
		return true
	}
	sum := base + off
	if sub {
		sum = base - off
	}
	if less {
		return val <= sum
	}
	return val >= sum
}

// numCtx adds numerics exactly.
var numCtx = apd.BaseContext.WithPrecision(4000)

// inRangeNumeric is in_range_numeric_numeric.
func inRangeNumeric(val, base, off *apd.Decimal, sub, less bool) (bool, error) {
	nan := func(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }
	inf := func(d *apd.Decimal, neg bool) bool { return d.Form == apd.Infinite && d.Negative == neg }
	switch {
	case nan(val):
		return nan(base) || !less, nil
	case nan(base):
		return less, nil
	case off.Form == apd.Infinite:
		switch {
		case sub && inf(base, false) || !sub && inf(base, true):
			return true, nil
		case sub:
			return !less || inf(val, true), nil
		}
		return less || inf(val, false), nil
	case val.Form == apd.Infinite:
		if inf(base, val.Negative) {
			return true, nil
		}
		return less == val.Negative, nil
	case base.Form == apd.Infinite:
		return less != base.Negative, nil
	}
	var sum apd.Decimal
	var err error
	if sub {
		_, err = numCtx.Sub(&sum, base, off)
	} else {
		_, err = numCtx.Add(&sum, base, off)
	}
	return cmpLess(val.Cmp(&sum), less), err
}

// inRangeTimestamp is in_range_timestamp(tz)_interval and, for dates
// (compared as timestamps at midnight), in_range_date_interval.
func inRangeTimestamp(c *expr.Ctx, t repr.T, val, base repr.Datum, off repr.Interval, sub, less bool) (bool, error) {
	tt := repr.Timestamp
	if t.Family == repr.FamTimestampTZ {
		tt = repr.TimestampTZ
	}
	if t.Family == repr.FamDate {
		val, base = dateStamp(val.Date()), dateStamp(base.Date())
	}
	sign := int32(1)
	if sub {
		sign = -1
	}
	sum, err := expr.AddIntervalTo(c, tt, base, off, sign)
	if err != nil {
		return false, err
	}
	return cmpLess(cmpInt(val.Micros(), sum.Micros()), less), nil
}

// dateStamp is the timestamp of a date's midnight (infinities kept).
func dateStamp(days int32) repr.Datum {
	switch days {
	case math.MaxInt32:
		return repr.NewTimestamp(math.MaxInt64)
	case math.MinInt32:
		return repr.NewTimestamp(math.MinInt64)
	}
	return repr.NewTimestamp(int64(days) * 86_400_000_000)
}

// inRangeInterval is in_range_interval_interval.
func inRangeInterval(val, base, off repr.Datum, sub, less bool) (bool, error) {
	b, o := base.Interval(), off.Interval()
	sign := int64(1)
	if sub {
		sign = -1
	}
	m := int64(b.Months) + sign*int64(o.Months)
	d := int64(b.Days) + sign*int64(o.Days)
	add := sign * o.Micros
	us := b.Micros + add
	if m != int64(int32(m)) || d != int64(int32(d)) || add > 0 && us < b.Micros || add < 0 && us > b.Micros {
		return false, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
	}
	sum := repr.NewInterval(repr.Interval{Months: int32(m), Days: int32(d), Micros: us})
	return cmpLess(repr.Compare(val, sum), less), nil
}

// badRangeOffset reports whether PostgreSQL's in_range rejects off for
// an ORDER BY column of type t: a negative or NaN number, a negative
// interval (by its 30-day-month length; only its time part for time).
func badRangeOffset(t repr.T, off repr.Datum) bool {
	switch off.Family() {
	case repr.FamInt:
		return off.Int() < 0
	case repr.FamFloat:
		return math.IsNaN(off.Float()) || off.Float() < 0
	case repr.FamNumeric:
		n := off.Numeric()
		return n.Form == apd.NaN || n.Form == apd.NaNSignaling || n.Negative && !n.IsZero()
	}
	iv := off.Interval()
	if t.Family == repr.FamTime {
		return iv.Micros < 0
	}
	span := big.NewInt(int64(iv.Months)*30 + int64(iv.Days))
	span.Mul(span, big.NewInt(86_400_000_000))
	span.Add(span, big.NewInt(iv.Micros))
	return span.Sign() < 0
}

// rangeOffsetType returns the family a RANGE offset must have for an
// ORDER BY column of type t (PostgreSQL's in_range support functions),
// false when t has none.
func rangeOffsetType(t repr.T) (repr.Family, bool) {
	switch t.Family {
	case repr.FamInt, repr.FamFloat, repr.FamNumeric:
		return t.Family, true
	case repr.FamDate, repr.FamTime, repr.FamTimestamp, repr.FamTimestampTZ, repr.FamInterval:
		return repr.FamInterval, true
	}
	return 0, false
}
