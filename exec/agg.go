package exec

import (
	"math"
	"math/bits"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// accClass is the kind of scalar accumulator an aggregate keeps.
type accClass uint8

const (
	clsNone     accClass = iota // only a multiset (min, max, string_agg)
	clsCount                    // n
	clsInt                      // n, exact integer sum (int64, numeric after overflow)
	clsFloat                    // n, compensated float sum, special-value counts
	clsNumeric                  // n, numeric sum of finite values, special-value counts
	clsInterval                 // n, months, days, micros
	clsBool                     // n, number of true values
)

// aggSpec is one compiled aggregate of a Reduce.
type aggSpec struct {
	dataflow.Agg
	arg types.T
	cls accClass
	// valSlot is the group's multiset of the argument values (min, max,
	// string_agg, DISTINCT), scaleSlot that of the display scales of numeric
	// values (sum and avg report the largest live scale, as PostgreSQL's
	// from-scratch sum would); -1 when unused.
	valSlot, scaleSlot int
	ordered            bool
}

// acc is the scalar accumulator of one aggregate in one group. It is a
// plain value: snapshots for rollback are copies, which is sound because
// dec is never mutated in place (every change allocates a new decimal).
type acc struct {
	n   int64        // weighted number of non-NULL inputs (rows for count(*))
	i   int64        // integer sum, true count (bool), or months (interval)
	f   float64      // float sum
	c   float64      // Neumaier compensation of f
	dec *apd.Decimal // numeric sum, or the integer sum once it overflowed int64
	// nan, pinf and ninf count NaN, +Infinity and -Infinity inputs, which
	// are kept out of f and dec so that retracting them is exact.
	nan, pinf, ninf int64
	day, us         int64 // interval days and microseconds
}

// decCtx does exact decimal additions (sums never need rounding below a
// thousand significant digits, PostgreSQL's display limit).
var decCtx = apd.BaseContext.WithPrecision(2000)

// compileAgg classifies agg over an argument of type arg.
func compileAgg(agg dataflow.Agg, arg types.T, slots *int) aggSpec {
	a := aggSpec{Agg: agg, arg: arg, valSlot: -1, scaleSlot: -1}
	newSlot := func() int { *slots++; return *slots - 1 }
	switch agg.Kind {
	case dataflow.AggCountStar, dataflow.AggCount:
		a.cls = clsCount
	case dataflow.AggMin, dataflow.AggMax, dataflow.AggStringAgg:
		a.cls, a.ordered = clsNone, true
		a.valSlot = newSlot()
	case dataflow.AggBoolAnd, dataflow.AggBoolOr:
		a.cls = clsBool
	case dataflow.AggSum, dataflow.AggAvg:
		a.cls = map[types.Family]accClass{types.FamInt: clsInt, types.FamFloat: clsFloat,
			types.FamNumeric: clsNumeric, types.FamInterval: clsInterval}[arg.Family]
		if a.cls == clsNumeric {
			a.scaleSlot = newSlot()
		}
	}
	if agg.Distinct && a.valSlot < 0 && agg.Kind != dataflow.AggCountStar {
		a.valSlot = newSlot()
	}
	return a
}

// addInt adds v*diff to the integer sum, switching to a decimal on overflow.
func (a *acc) addInt(v, diff int64) {
	if a.dec == nil {
		hi, lo := bits.Mul64(uint64(abs64(v)), uint64(abs64(diff)))
		p := int64(lo)
		if (v < 0) != (diff < 0) {
			p = -p
		}
		if hi == 0 && lo <= math.MaxInt64 && v != math.MinInt64 && diff != math.MinInt64 {
			s := a.i + p
			if (p >= 0) == (s >= a.i) {
				a.i = s
				return
			}
		}
		a.dec = apd.New(a.i, 0)
	}
	a.dec = addScaled(a.dec, apd.New(v, 0), diff)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// addScaled returns sum + v*diff as a new decimal.
func addScaled(sum, v *apd.Decimal, diff int64) *apd.Decimal {
	var p apd.Decimal
	p.Set(v)
	if diff != 1 {
		_, _ = decCtx.Mul(&p, &p, apd.New(diff, 0))
	}
	r := new(apd.Decimal)
	if sum == nil {
		return r.Set(&p)
	}
	_, _ = decCtx.Add(r, sum, &p)
	return r
}

// addFloat adds v*diff with Neumaier's compensated summation. Retractions
// subtract, so the sum can drift from the exact sum of the live values by
// rounding (bounded by the compensation, not growing linearly); infinities
// and NaN are counted apart so retracting them is exact.
func (a *acc) addFloat(v float64, diff int64) {
	switch {
	case math.IsNaN(v):
		a.nan += diff
		return
	case math.IsInf(v, 1):
		a.pinf += diff
		return
	case math.IsInf(v, -1):
		a.ninf += diff
		return
	}
	x := v * float64(diff)
	t := a.f + x
	if math.Abs(a.f) >= math.Abs(x) {
		a.c += (a.f - t) + x
	} else {
		a.c += (x - t) + a.f
	}
	a.f = t
}

// addNumeric adds v*diff to the decimal sum, counting specials apart.
func (a *acc) addNumeric(v *apd.Decimal, diff int64) {
	switch {
	case v.Form == apd.NaN || v.Form == apd.NaNSignaling:
		a.nan += diff
	case v.Form == apd.Infinite && v.Negative:
		a.ninf += diff
	case v.Form == apd.Infinite:
		a.pinf += diff
	default:
		a.dec = addScaled(a.dec, v, diff)
	}
}

// addInterval adds iv*diff field by field.
func (a *acc) addInterval(iv types.Interval, diff int64) {
	a.i += int64(iv.Months) * diff
	a.day += int64(iv.Days) * diff
	a.us += iv.Micros * diff
}

// special returns the float result forced by special inputs, if any.
func (a *acc) special() (float64, bool) {
	switch {
	case a.nan > 0 || a.pinf > 0 && a.ninf > 0:
		return math.NaN(), true
	case a.pinf > 0:
		return math.Inf(1), true
	case a.ninf > 0:
		return math.Inf(-1), true
	}
	return 0, false
}

// specialDecimal is special() as a numeric.
func (a *acc) specialDecimal() (*apd.Decimal, bool) {
	f, ok := a.special()
	switch {
	case !ok:
		return nil, false
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}, true
	}
	return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}, true
}

// errBigintRange is PostgreSQL's error for an int8 result out of range.
func errBigintRange() error { return pgerr.New(pgerr.CodeNumericOutOfRange, "bigint out of range") }

// sumResult returns sum(arg) for the accumulator.
func (a *aggSpec) sumResult(ac *acc, scale int32) (types.Datum, error) {
	if ac.n <= 0 {
		return types.Null, nil
	}
	switch a.cls {
	case clsInt:
		return intSumDatum(ac, a.T)
	case clsFloat:
		return floatDatum(ac.floatSum(), a.T), nil
	case clsNumeric:
		return types.NewNumeric(ac.numericSum(scale)), nil
	case clsInterval:
		return intervalDatum(ac.i, ac.day, ac.us)
	}
	return types.Null, nil
}

// intSumDatum returns the integer sum as type t (bigint or numeric).
func intSumDatum(ac *acc, t types.T) (types.Datum, error) {
	if t.Family == types.FamNumeric {
		if ac.dec != nil {
			return types.NewNumeric(ac.dec), nil
		}
		return types.NewNumeric(apd.New(ac.i, 0)), nil
	}
	if ac.dec == nil {
		return types.NewInt(ac.i), nil
	}
	i, err := ac.dec.Int64()
	if err != nil {
		return types.Null, errBigintRange()
	}
	return types.NewInt(i), nil
}

func (ac *acc) floatSum() float64 {
	if f, ok := ac.special(); ok {
		return f
	}
	return ac.f + ac.c
}

// numericSum returns the sum of finite values at the given display scale.
func (ac *acc) numericSum(scale int32) *apd.Decimal {
	if d, ok := ac.specialDecimal(); ok {
		return d
	}
	r := new(apd.Decimal)
	if ac.dec != nil {
		r.Set(ac.dec)
	}
	_, _ = decCtx.Quantize(r, r, -scale)
	return r
}

// floatDatum rounds f to real when t is real.
func floatDatum(f float64, t types.T) types.Datum {
	if t.Width == 32 {
		f = float64(float32(f))
	}
	return types.NewFloat(f)
}

// intervalDatum builds an interval, failing if a field overflows.
func intervalDatum(mon, day, us int64) (types.Datum, error) {
	if mon != int64(int32(mon)) || day != int64(int32(day)) {
		return types.Null, pgerr.New(pgerr.CodeDatetimeOverflow, "interval out of range")
	}
	return types.NewInterval(types.Interval{Months: int32(mon), Days: int32(day), Micros: us}), nil
}

// avgResult returns avg(arg) for the accumulator.
func (a *aggSpec) avgResult(ac *acc, scale int32) (types.Datum, error) {
	if ac.n <= 0 {
		return types.Null, nil
	}
	switch a.cls {
	case clsInt:
		sum := ac.dec
		if sum == nil {
			sum = apd.New(ac.i, 0)
		}
		return types.NewNumeric(numericDiv(sum, 0, ac.n)), nil
	case clsNumeric:
		if d, ok := ac.specialDecimal(); ok {
			return types.NewNumeric(d), nil
		}
		return types.NewNumeric(numericDiv(ac.numericSum(scale), scale, ac.n)), nil
	case clsFloat:
		return floatDatum(ac.floatSum()/float64(ac.n), a.T), nil
	case clsInterval:
		return intervalDiv(ac.i, ac.day, ac.us, float64(ac.n))
	}
	return types.Null, nil
}

// boolResult returns bool_and or bool_or.
func (a *aggSpec) boolResult(ac *acc) types.Datum {
	switch {
	case ac.n <= 0:
		return types.Null
	case a.Kind == dataflow.AggBoolAnd:
		return types.NewBool(ac.i == ac.n)
	}
	return types.NewBool(ac.i > 0)
}

// stringAgg concatenates the live values in value order, each preceded
// (except the first) by its separator; NULL if there are none.
func stringAgg(ms *multiset, distinct bool) types.Datum {
	if ms == nil {
		return types.Null
	}
	var b strings.Builder
	first := true
	ms.ascend(func(e *mentry) {
		n := e.n
		if distinct {
			n = 1
		}
		for ; n > 0; n-- {
			if sep := e.separator(); !first && !sep.IsNull() {
				b.WriteString(sep.Text())
			}
			b.WriteString(e.val.Text())
			first = false
		}
	})
	if first {
		return types.Null
	}
	return types.NewText(b.String())
}
