package expr

import (
	"math"

	"github.com/eddydb/eddy/repr"
)

func init() {
	d, ts, tz, iv, tm := repr.Date, repr.Timestamp, repr.TimestampTZ, repr.IntervalT, repr.TimeT
	binop("+", d, repr.Int4, d, dateAddDays(1))
	binop("+", repr.Int4, d, d, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		return dateAddDays(1)(c, []repr.Datum{a[1], a[0]})
	})
	binop("-", d, repr.Int4, d, dateAddDays(-1))
	binop("-", d, d, repr.Int4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(int64(a[0].Date()) - int64(a[1].Date())), nil
	})
	binop("+", d, tm, ts, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewTimestamp(int64(a[0].Date())*usPerDay + a[1].Micros()), nil
	})
	binop("+", d, iv, ts, dateAddInterval(1))
	binop("+", iv, d, ts, swap(dateAddInterval(1)))
	binop("-", d, iv, ts, dateAddInterval(-1))
	for _, t := range []repr.T{ts, tz} {
		add := binop("+", t, iv, t, tsAddInterval(t, 1))
		add.fast, add.fastSign = fastShift, 1
		binop("+", iv, t, t, swap(tsAddInterval(t, 1)))
		sub := binop("-", t, iv, t, tsAddInterval(t, -1))
		sub.fast, sub.fastSign = fastShift, -1
		binop("-", t, t, iv, tsDiff)
	}
	binop("+", tm, iv, tm, timeAddInterval(1))
	binop("-", tm, iv, tm, timeAddInterval(-1))
	binop("-", tm, tm, iv, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInterval(repr.Interval{Micros: a[0].Micros() - a[1].Micros()}), nil
	})
	binop("+", iv, iv, iv, intervalAdd(1))
	binop("-", iv, iv, iv, intervalAdd(-1))
	binop("*", iv, repr.Float8, iv, intervalMul)
	binop("*", repr.Float8, iv, iv, swap(intervalMul))
	binop("/", iv, repr.Float8, iv, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[1].Float() == 0 {
			return repr.Null, repr.ErrDivisionByZero.New()
		}
		return intervalScale(a[0].Interval(), a[1].Float(), func(x, f float64) float64 { return x / f })
	})
	register(prefixOps, "-", iv, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		return intervalAdd(-1)(c, []repr.Datum{repr.NewInterval(repr.Interval{}), a[0]})
	}, iv)
	register(prefixOps, "+", iv, identity, iv)
	for _, f := range binaryOps["+"] {
		if f.Args[0].Family == repr.FamTimestampTZ || f.Args[1].Family == repr.FamTimestampTZ {
			f.zoned = true
		}
	}
	for _, f := range binaryOps["-"] {
		if f.Args[0].Family == repr.FamTimestampTZ && f.Args[1].Family == repr.FamInterval {
			f.zoned = true
		}
	}
}

func swap(f implFn) implFn {
	return func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		return f(c, []repr.Datum{a[1], a[0]})
	}
}

var errDateRange = repr.Errorf(repr.CodeDatetimeOverflow, "date out of range")

// dateAddInterval is date ± interval, computed on the date's midnight as a timestamp.
func dateAddInterval(sign int32) implFn {
	return func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		ts := repr.NewTimestamp(int64(a[0].Date()) * usPerDay)
		if a[0].Date() == math.MaxInt32 || a[0].Date() == math.MinInt32 {
			ts = repr.NewTimestamp(map[bool]int64{true: math.MaxInt64, false: math.MinInt64}[a[0].Date() > 0])
		}
		return tsAddInterval(repr.Timestamp, sign)(c, []repr.Datum{ts, a[1]})
	}
}

func dateAddDays(sign int64) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		d := int64(a[0].Date())
		if d == math.MaxInt32 || d == math.MinInt32 {
			return a[0], nil
		}
		r := d + sign*a[1].Int()
		if r >= math.MaxInt32 || r <= math.MinInt32 || r > 2147483494 || r < -2451545 {
			return repr.Null, errDateRange
		}
		return repr.NewDate(int32(r)), nil
	}
}

// tsAddInterval adds (sign 1) or subtracts an interval; timestamptz month
// and day steps happen in the session time zone (so a day across a DST
// change keeps the wall clock), as in PostgreSQL.
func tsAddInterval(t repr.T, sign int32) implFn {
	return func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		iv := a[1].Interval()
		if sign < 0 {
			if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
				return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
			}
			iv = repr.Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
		}
		if t.Family == repr.FamTimestamp {
			r, err := addInterval(a[0].Micros(), iv, nilLoc())
			return repr.NewTimestamp(r), err
		}
		r, err := addInterval(a[0].Micros(), iv, c.Location())
		return repr.NewTimestampTZ(r), err
	}
}

// tsDiff is timestamp - timestamp: whole 24-hour days and the remainder
// (PostgreSQL's timestamp_mi applies justify_hours).
func tsDiff(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	x, y := a[0].Micros(), a[1].Micros()
	if isInfTs(x) || isInfTs(y) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "cannot subtract infinite timestamps")
	}
	d := x - y
	if (x >= 0) != (y >= 0) && (d >= 0) != (x >= 0) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
	}
	return repr.NewInterval(repr.Interval{Days: int32(d / usPerDay), Micros: d % usPerDay}), nil
}

func timeAddInterval(sign int64) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewTime(floorMod(a[0].Micros()+sign*(a[1].Interval().Micros%usPerDay), usPerDay)), nil
	}
}

func intervalAdd(sign int64) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		x, y := a[0].Interval(), a[1].Interval()
		m := int64(x.Months) + sign*int64(y.Months)
		d := int64(x.Days) + sign*int64(y.Days)
		us, err := addInt(x.Micros, sign*y.Micros, 64)
		if err != nil || m != int64(int32(m)) || d != int64(int32(d)) || (sign < 0 && y.Micros == math.MinInt64) {
			return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
		}
		return repr.NewInterval(repr.Interval{Months: int32(m), Days: int32(d), Micros: us}), nil
	}
}

// intervalMul scales an interval as interval_mul does.
func intervalMul(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	return intervalScale(a[0].Interval(), a[1].Float(), func(x, f float64) float64 { return x * f })
}

// intervalScale is PostgreSQL's interval_mul and interval_div (op is the
// float8 * or /): months and days scale and truncate; their fractions
// cascade down (a month is 30 days, a day 86400 s), rounded to the
// microsecond (TSROUND), a whole day of seconds carried into days; the
// time scales and rounds half to even. 22008 when a field overflows.
func intervalScale(iv repr.Interval, f float64, op func(x, f float64) float64) (repr.Datum, error) {
	months, days := op(float64(iv.Months), f), op(float64(iv.Days), f)
	if !fitsInt32(months) || !fitsInt32(days) {
		return repr.Null, errIntervalRange()
	}
	m, d := math.Trunc(months), math.Trunc(days)
	monthRemDays := tsRound((months - m) * 30)
	secRem := tsRound((days - d + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		d += math.Trunc(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	d += math.Trunc(monthRemDays)
	us := math.RoundToEven(op(float64(iv.Micros), f) + secRem*1e6)
	if !fitsInt32(d) || math.IsNaN(us) || us >= 9223372036854775807 || us < -9223372036854775808 {
		return repr.Null, errIntervalRange()
	}
	return repr.NewInterval(repr.Interval{Months: int32(m), Days: int32(d), Micros: int64(us)}), nil
}

func fitsInt32(f float64) bool { return !math.IsNaN(f) && f >= math.MinInt32 && f < math.MaxInt32+1 }

func errIntervalRange() error { return repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range") }

// AddIntervalTo returns ts + iv (sign 1) or ts - iv (sign -1) for ts of
// type t (timestamp, or timestamptz with month and day steps in c's time
// zone), as the + and - operators compute it; window frames with RANGE
// offsets use it for PostgreSQL's in_range.
func AddIntervalTo(c *Ctx, t repr.T, ts repr.Datum, iv repr.Interval, sign int32) (repr.Datum, error) {
	return tsAddInterval(t, sign)(c, []repr.Datum{ts, repr.NewInterval(iv)})
}
