package expr

import (
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// AggValues is a group's multiset of one aggregate's values in key order (the
// ORDER BY columns, then the value), as exec keeps it. Only live entries
// (positive counts) are visited.
type AggValues interface {
	// Min and Max return the first and the last live value, false if none.
	Min() (repr.Datum, bool)
	Max() (repr.Datum, bool)
	// Ascend calls fn with each live entry in key order (its value,
	// separator and count) until fn returns false.
	Ascend(fn func(v, sep repr.Datum, n int64) bool)
}

func finalCount(_ *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) { return repr.NewInt(ac.N), nil }

func finalMin(_ *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) { return orNull(vs.Min()) }
func finalMax(_ *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) { return orNull(vs.Max()) }

func orNull(v repr.Datum, ok bool) (repr.Datum, error) {
	if !ok {
		return repr.Null, nil
	}
	return v, nil
}

func finalBoolAnd(_ *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if ac.N <= 0 {
		return repr.Null, nil
	}
	return repr.NewBool(ac.i == ac.N), nil
}

func finalBoolOr(_ *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if ac.N <= 0 {
		return repr.Null, nil
	}
	return repr.NewBool(ac.i > 0), nil
}

// errBigintRange is PostgreSQL's error for an int8 result out of range.
func errBigintRange() error { return repr.Errorf(repr.CodeNumericOutOfRange, "bigint out of range") }

// finalSum returns sum(arg).
func finalSum(c *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if ac.N <= 0 {
		return repr.Null, nil
	}
	switch c.Class {
	case AccInt:
		return intSumDatum(c, ac)
	case AccFloat:
		return floatDatum(ac.floatSum(), c.T), nil
	case AccNumeric:
		if ac.dec == nil && -ac.exp == c.Scale && !ac.isSpecial() {
			return repr.NewNumeric(c.decimal(ac.i, ac.exp)), nil
		}
		return repr.NewNumeric(ac.numericSum(c.Scale)), nil
	case AccInterval:
		return intervalDatum(ac.i, ac.day, ac.us)
	}
	return repr.Null, nil
}

// intSumDatum returns the integer sum as c's result type (bigint or
// numeric).
func intSumDatum(c *AggCall, ac *Acc) (repr.Datum, error) {
	if c.T.Family == repr.FamNumeric {
		if ac.dec == nil {
			return repr.NewNumeric(c.decimal(ac.i, 0)), nil
		}
		return repr.NewNumeric(ac.dec), nil
	}
	if ac.dec == nil {
		return repr.NewInt(ac.i), nil
	}
	i, err := ac.dec.Int64()
	if err != nil {
		return repr.Null, errBigintRange()
	}
	return repr.NewInt(i), nil
}

// decimal returns x×10^exp, from c.Decs when set.
func (c *AggCall) decimal(x int64, exp int32) *apd.Decimal {
	if c.Decs == nil {
		return apd.New(x, exp)
	}
	return c.Decs.New().SetFinite(x, exp)
}

// isSpecial reports whether a numeric sum holds a NaN or an infinity.
func (ac *Acc) isSpecial() bool {
	_, ok := ac.special()
	return ok
}

// intSum is the integer sum as a decimal.
func (ac *Acc) intSum() *apd.Decimal {
	if ac.dec != nil {
		return ac.dec
	}
	return apd.New(ac.i, 0)
}

func (ac *Acc) floatSum() float64 {
	if f, ok := ac.special(); ok {
		return f
	}
	return ac.f + ac.c
}

// numericSum returns the sum of finite values at the given display scale.
func (ac *Acc) numericSum(scale int32) *apd.Decimal {
	if d, ok := ac.specialDecimal(); ok {
		return d
	}
	if ac.dec == nil && -ac.exp == scale {
		return apd.New(ac.i, ac.exp)
	}
	r := new(apd.Decimal)
	if d := ac.numericDec(); d != nil {
		r.Set(d)
	}
	_, _ = decCtx.Quantize(r, r, -scale)
	return r
}

// floatDatum rounds f to real when t is real.
func floatDatum(f float64, t repr.T) repr.Datum {
	if t.Width == 32 {
		f = float64(float32(f))
	}
	return repr.NewFloat(f)
}

// intervalDatum builds an interval, failing if a field overflows.
func intervalDatum(mon, day, us int64) (repr.Datum, error) {
	if mon != int64(int32(mon)) || day != int64(int32(day)) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
	}
	return repr.NewInterval(repr.Interval{Months: int32(mon), Days: int32(day), Micros: us}), nil
}

// finalAvg returns avg(arg).
func finalAvg(c *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if ac.N <= 0 {
		return repr.Null, nil
	}
	switch c.Class {
	case AccInt:
		return repr.NewNumeric(aggNumericDiv(ac.intSum(), 0, apd.New(ac.N, 0))), nil
	case AccNumeric:
		if d, ok := ac.specialDecimal(); ok {
			return repr.NewNumeric(d), nil
		}
		return repr.NewNumeric(aggNumericDiv(ac.numericSum(c.Scale), c.Scale, apd.New(ac.N, 0))), nil
	case AccFloat:
		return floatDatum(ac.floatSum()/float64(ac.N), c.T), nil
	case AccInterval:
		return intervalDiv(ac.i, ac.day, ac.us, float64(ac.N))
	}
	return repr.Null, nil
}

// finalStringAgg concatenates the live values in key order, each preceded
// (except the first) by its separator; NULL if there are none. Over
// bytea values (string_agg(bytea, bytea)) it concatenates their bytes.
func finalStringAgg(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	var b strings.Builder
	first := true
	vs.Ascend(func(v, sep repr.Datum, n int64) bool {
		if c.Distinct {
			n = 1
		}
		for ; n > 0; n-- {
			if !first && !sep.IsNull() {
				b.WriteString(sep.Text())
			}
			b.WriteString(v.Text())
			first = false
		}
		return true
	})
	switch {
	case first:
		return repr.Null, nil
	case c.T.Family == repr.FamBytea:
		return repr.NewBytea([]byte(b.String())), nil
	}
	return repr.NewText(b.String()), nil
}

// finalArrayAgg concatenates the live boxed values (one-element arrays)
// in key order: the ORDER BY columns, then the value. NULL if none. Boxed
// arrays (array_agg_box: shape 1 x dims) stack into an array of one more
// dimension; their dimensions must agree (2202E), as PostgreSQL 14's
// array_agg(anyarray) requires.
func finalArrayAgg(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	var elems []repr.Datum
	var sub, subLbs []int
	rows, same := 0, true
	vs.Ascend(func(v, _ repr.Datum, n int64) bool {
		if c.Distinct {
			n = 1
		}
		dims, lbs := v.ArrayDims(), v.ArrayLBounds()
		if rows > 0 && (!slices.Equal(dims[1:], sub) || !slices.Equal(lbs[1:], subLbs)) {
			same = false
			return false
		}
		sub, subLbs = dims[1:], lbs[1:]
		for ; n > 0; n-- {
			elems, rows = append(elems, v.Array()...), rows+1
		}
		return true
	})
	switch {
	case !same:
		return repr.Null, repr.Errorf("2202E", "cannot accumulate arrays of different dimensionality")
	case elems == nil:
		return repr.Null, nil
	case len(sub) > 0:
		return repr.NewArrayBounds(elems, append([]int{rows}, sub...), append([]int{1}, subLbs...)), nil
	}
	return repr.NewArray(elems), nil
}

// finalBitAnd is the AND of the live values: the bits every value sets.
func finalBitAnd(c *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if c.Class == AccBitString {
		return bitStringResult(ac, "AND", func(k int64) bool { return k == ac.N })
	}
	return bitsResult(ac, func(k int64) bool { return k == ac.N })
}

// finalBitOr is the OR of the live values: the bits some value sets.
func finalBitOr(c *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if c.Class == AccBitString {
		return bitStringResult(ac, "OR", func(k int64) bool { return k > 0 })
	}
	return bitsResult(ac, func(k int64) bool { return k > 0 })
}

// finalBitXor is the XOR of the live values: the bits an odd number of
// them set (so it holds under retractions, unlike a running XOR of
// values whose multiplicities are unknown).
func finalBitXor(c *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	if c.Class == AccBitString {
		return bitStringResult(ac, "XOR", func(k int64) bool { return k%2 != 0 })
	}
	return bitsResult(ac, func(k int64) bool { return k%2 != 0 })
}

func bitsResult(ac *Acc, set func(k int64) bool) (repr.Datum, error) {
	if ac.N <= 0 {
		return repr.Null, nil
	}
	var u uint64
	for i := range 64 {
		var k int64
		if ac.bits != nil {
			k = ac.bits[i]
		}
		if set(k) {
			u |= 1 << i
		}
	}
	return repr.NewInt(int64(u)), nil
}
