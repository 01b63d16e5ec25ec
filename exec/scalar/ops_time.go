package scalar

import (
	"math"

	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

func init() {
	d, ts, tz, iv, tm := types.Date, types.Timestamp, types.TimestampTZ, types.IntervalT, types.Time
	binop("+", d, types.Int4, d, dateAddDays(1))
	binop("+", types.Int4, d, d, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		return dateAddDays(1)(c, []types.Datum{a[1], a[0]})
	})
	binop("-", d, types.Int4, d, dateAddDays(-1))
	binop("-", d, d, types.Int4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewInt(int64(a[0].Date()) - int64(a[1].Date())), nil
	})
	binop("+", d, tm, ts, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewTimestamp(int64(a[0].Date())*usPerDay + a[1].Micros()), nil
	})
	binop("+", d, iv, ts, dateAddInterval(1))
	binop("+", iv, d, ts, swap(dateAddInterval(1)))
	binop("-", d, iv, ts, dateAddInterval(-1))
	for _, t := range []types.T{ts, tz} {
		binop("+", t, iv, t, tsAddInterval(t, 1))
		binop("+", iv, t, t, swap(tsAddInterval(t, 1)))
		binop("-", t, iv, t, tsAddInterval(t, -1))
		binop("-", t, t, iv, tsDiff)
	}
	binop("+", tm, iv, tm, timeAddInterval(1))
	binop("-", tm, iv, tm, timeAddInterval(-1))
	binop("-", tm, tm, iv, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewInterval(types.Interval{Micros: a[0].Micros() - a[1].Micros()}), nil
	})
	binop("+", iv, iv, iv, intervalAdd(1))
	binop("-", iv, iv, iv, intervalAdd(-1))
	binop("*", iv, types.Float8, iv, intervalMul)
	binop("*", types.Float8, iv, iv, swap(intervalMul))
	binop("/", iv, types.Float8, iv, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		if a[1].Float() == 0 {
			return types.Null, pgerr.ErrDivisionByZero.New()
		}
		return intervalMul(c, []types.Datum{a[0], types.NewFloat(1 / a[1].Float())})
	})
	register(prefixOps, "-", iv, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		return intervalAdd(-1)(c, []types.Datum{types.NewInterval(types.Interval{}), a[0]})
	}, iv)
	register(prefixOps, "+", iv, identity, iv)
	for _, f := range binaryOps["+"] {
		if f.Args[0].Family == types.FamTimestampTZ || f.Args[1].Family == types.FamTimestampTZ {
			f.zoned = true
		}
	}
	for _, f := range binaryOps["-"] {
		if f.Args[0].Family == types.FamTimestampTZ && f.Args[1].Family == types.FamInterval {
			f.zoned = true
		}
	}
}

func swap(f implFn) implFn {
	return func(c *Ctx, a []types.Datum) (types.Datum, error) {
		return f(c, []types.Datum{a[1], a[0]})
	}
}

var errDateRange = pgerr.New(pgerr.CodeDatetimeOverflow, "date out of range")

// dateAddInterval is date ± interval, computed on the date's midnight as a timestamp.
func dateAddInterval(sign int32) implFn {
	return func(c *Ctx, a []types.Datum) (types.Datum, error) {
		ts := types.NewTimestamp(int64(a[0].Date()) * usPerDay)
		if a[0].Date() == math.MaxInt32 || a[0].Date() == math.MinInt32 {
			ts = types.NewTimestamp(map[bool]int64{true: math.MaxInt64, false: math.MinInt64}[a[0].Date() > 0])
		}
		return tsAddInterval(types.Timestamp, sign)(c, []types.Datum{ts, a[1]})
	}
}

func dateAddDays(sign int64) implFn {
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		d := int64(a[0].Date())
		if d == math.MaxInt32 || d == math.MinInt32 {
			return a[0], nil
		}
		r := d + sign*a[1].Int()
		if r >= math.MaxInt32 || r <= math.MinInt32 || r > 2147483494 || r < -2451545 {
			return types.Null, errDateRange
		}
		return types.NewDate(int32(r)), nil
	}
}

// tsAddInterval adds (sign 1) or subtracts an interval; timestamptz month
// and day steps happen in the session time zone (so a day across a DST
// change keeps the wall clock), as in PostgreSQL.
func tsAddInterval(t types.T, sign int32) implFn {
	return func(c *Ctx, a []types.Datum) (types.Datum, error) {
		iv := a[1].Interval()
		if sign < 0 {
			if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
				return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "interval out of range")
			}
			iv = types.Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
		}
		if t.Family == types.FamTimestamp {
			r, err := addInterval(a[0].Micros(), iv, nilLoc())
			return types.NewTimestamp(r), err
		}
		r, err := addInterval(a[0].Micros(), iv, c.Location())
		return types.NewTimestampTZ(r), err
	}
}

// tsDiff is timestamp - timestamp: whole 24-hour days and the remainder
// (PostgreSQL's timestamp_mi applies justify_hours).
func tsDiff(_ *Ctx, a []types.Datum) (types.Datum, error) {
	x, y := a[0].Micros(), a[1].Micros()
	if isInfTs(x) || isInfTs(y) {
		return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "cannot subtract infinite timestamps")
	}
	d := x - y
	if (x >= 0) != (y >= 0) && (d >= 0) != (x >= 0) {
		return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "interval out of range")
	}
	return types.NewInterval(types.Interval{Days: int32(d / usPerDay), Micros: d % usPerDay}), nil
}

func timeAddInterval(sign int64) implFn {
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewTime(floorMod(a[0].Micros()+sign*(a[1].Interval().Micros%usPerDay), usPerDay)), nil
	}
}

func intervalAdd(sign int64) implFn {
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		x, y := a[0].Interval(), a[1].Interval()
		m := int64(x.Months) + sign*int64(y.Months)
		d := int64(x.Days) + sign*int64(y.Days)
		us, err := addInt(x.Micros, sign*y.Micros, 64)
		if err != nil || m != int64(int32(m)) || d != int64(int32(d)) || (sign < 0 && y.Micros == math.MinInt64) {
			return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "interval out of range")
		}
		return types.NewInterval(types.Interval{Months: int32(m), Days: int32(d), Micros: us}), nil
	}
}

// intervalMul scales an interval, cascading fractional months into days
// (30 per month) and fractional days into microseconds, like interval_mul.
func intervalMul(_ *Ctx, a []types.Datum) (types.Datum, error) {
	iv, f := a[0].Interval(), a[1].Float()
	months := float64(iv.Months) * f
	days := float64(iv.Days) * f
	if math.IsNaN(f) || math.Abs(months) > math.MaxInt32 || math.Abs(days) > math.MaxInt32 {
		return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "interval out of range")
	}
	m := math.Trunc(months)
	days += (months - m) * 30
	d := math.Trunc(days)
	us := float64(iv.Micros)*f + (days-d)*usPerDay
	if math.Abs(d) > math.MaxInt32 || math.Abs(us) > 9.2e18 {
		return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "interval out of range")
	}
	return types.NewInterval(types.Interval{Months: int32(m), Days: int32(d), Micros: int64(math.RoundToEven(us))}), nil
}
