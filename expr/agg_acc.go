package expr

import (
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// AccClass is the kind of scalar accumulator an aggregate keeps.
type AccClass uint8

// The accumulator classes. The comment lists the fields each one uses.
const (
	AccNone      AccClass = iota // nothing (min, max, string_agg, ordered-set: a multiset)
	AccCount                     // n
	AccInt                       // n, exact integer sum (int64, numeric after overflow)
	AccFloat                     // n, compensated float sum, special-value counts
	AccNumeric                   // n, numeric sum of finite values, special-value counts
	AccInterval                  // n, months, days, micros
	AccBool                      // n, number of true values
	AccMoments                   // n, exact sums of values and squares, special-value counts
	AccBits                      // n, per-bit counts of the values' set bits
	AccBitString                 // n, per-bit counts, ΣL, ΣL², long values (agg_bitstring.go)
)

// Acc is the scalar accumulator of one aggregate in one group. It is a
// plain value: a snapshot for rollback is a copy, which is sound because
// dec and sq are never mutated in place (every change allocates a new
// decimal) and bits is copied by Own before the first change of a Step.
type Acc struct {
	N   int64        // weighted number of non-NULL inputs (rows for count(*))
	i   int64        // integer sum, true count (bool), or months (interval)
	f   float64      // float sum
	c   float64      // Neumaier compensation of f
	dec *apd.Decimal // numeric sum, or the integer sum once it overflowed int64
	sq  *apd.Decimal // sum of squares (moments)
	// nan, pinf and ninf count NaN, +Infinity and -Infinity inputs, which
	// are kept out of f and dec so that retracting them is exact.
	nan, pinf, ninf int64
	day, us         int64 // interval days and microseconds
	bits            *[64]int64
	// exp is the exponent of a numeric sum kept small: while dec is nil,
	// the sum of an AccNumeric is i × 10^exp (see addSmallNumeric).
	exp int32
}

// decCtx does exact decimal additions and multiplications (sums never
// need rounding below two thousand significant digits).
var decCtx = apd.BaseContext.WithPrecision(2000)

// Own makes the accumulator's shared parts private, so that changes after
// it leave a snapshot taken before it intact.
func (a *Acc) Own() {
	if a.bits != nil {
		b := *a.bits
		a.bits = &b
	}
}

// Empty reports whether no input is live; Reset then forgets the sums so
// that float rounding left by retractions does not outlive the values.
func (a *Acc) Empty() bool { return a.N == 0 }

// Reset clears the accumulator.
func (a *Acc) Reset() { *a = Acc{} }

// Add adds diff copies of the non-NULL value v.
func (a *Acc) Add(c AccClass, v repr.Datum, diff int64) {
	a.N += diff
	switch c {
	case AccInt:
		a.addInt(v.Int(), diff)
	case AccFloat:
		a.addFloat(v.Float(), diff)
	case AccNumeric:
		a.addNumeric(v.Numeric(), diff)
	case AccInterval:
		iv := v.Interval()
		a.i += int64(iv.Months) * diff
		a.day += int64(iv.Days) * diff
		a.us += iv.Micros * diff
	case AccBool:
		if v.Bool() {
			a.i += diff
		}
	case AccMoments:
		a.addMoment(v, diff)
	case AccBits:
		a.addBits(v.Int(), diff)
	case AccBitString:
		a.addBitString(v, diff)
	}
}

// addInt adds v*diff to the integer sum, switching to a decimal on
// overflow and back once the sum fits again (normInt), so that how the
// sum is held depends on its value only, not on the order of the inputs.
func (a *Acc) addInt(v, diff int64) {
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
	a.normInt()
}

// normInt holds a decimal integer sum that fits in an int64 as an int64.
func (a *Acc) normInt() {
	if v, err := a.dec.Int64(); err == nil {
		a.i, a.dec = v, nil
	}
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
func (a *Acc) addFloat(v float64, diff int64) {
	if a.addSpecialFloat(v, diff) {
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

// addSpecialFloat counts v if it is NaN or infinite.
func (a *Acc) addSpecialFloat(v float64, diff int64) bool {
	switch {
	case math.IsNaN(v):
		a.nan += diff
	case math.IsInf(v, 1):
		a.pinf += diff
	case math.IsInf(v, -1):
		a.ninf += diff
	default:
		return false
	}
	return true
}

// addSpecialNumeric counts v if it is NaN or infinite.
func (a *Acc) addSpecialNumeric(v *apd.Decimal, diff int64) bool {
	switch {
	case v.Form == apd.NaN || v.Form == apd.NaNSignaling:
		a.nan += diff
	case v.Form == apd.Infinite && v.Negative:
		a.ninf += diff
	case v.Form == apd.Infinite:
		a.pinf += diff
	default:
		return false
	}
	return true
}

// addNumeric adds v*diff to the numeric sum, counting specials apart. The
// sum is kept as i × 10^exp while it and every product fit in 64 bits
// (no allocation per value; exp is the smallest exponent added, as an apd
// sum's would be), and as a decimal from the first overflow on.
func (a *Acc) addNumeric(v *apd.Decimal, diff int64) {
	switch {
	case a.addSpecialNumeric(v, diff):
	case a.dec == nil && a.addSmallNumeric(v, diff):
	default:
		if a.dec == nil {
			a.dec, a.i, a.exp = apd.New(a.i, a.exp), 0, 0
		}
		a.dec = addScaled(a.dec, v, diff)
	}
}

// addSmallNumeric adds v*diff to i × 10^exp and reports whether the
// result fits in 64 bits (if not, the sum is unchanged).
func (a *Acc) addSmallNumeric(v *apd.Decimal, diff int64) bool {
	if !v.Coeff.IsInt64() {
		return false
	}
	c := v.Coeff.Int64()
	if v.Negative {
		c = -c
	}
	p, ok := mulInt64(c, diff)
	sum, exp := a.i, a.exp
	switch {
	case !ok:
		return false
	case v.Exponent < exp:
		sum, ok = scaleInt64(sum, exp-v.Exponent)
		exp = v.Exponent
	case v.Exponent > exp:
		p, ok = scaleInt64(p, v.Exponent-exp)
	}
	if !ok {
		return false
	}
	s := sum + p
	if (p >= 0) != (s >= sum) {
		return false
	}
	a.i, a.exp = s, exp
	return true
}

// mulInt64 returns x*y and whether it fits in an int64.
func mulInt64(x, y int64) (int64, bool) {
	if x == math.MinInt64 || y == math.MinInt64 {
		return 0, x == 0 || y == 0
	}
	hi, lo := bits.Mul64(uint64(abs64(x)), uint64(abs64(y)))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if (x < 0) != (y < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

// scaleInt64 returns x × 10^k (k > 0) and whether it fits in an int64.
func scaleInt64(x int64, k int32) (int64, bool) {
	if x == 0 {
		return 0, true
	}
	if k > 18 {
		return 0, false
	}
	return mulInt64(x, int64Pow10[k])
}

// int64Pow10[k] is 10^k.
var int64Pow10 = func() (p [19]int64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 10
	}
	return p
}()

// numericDec returns a numeric sum as a decimal, nil if no finite value
// was ever added (or the sum is a zero that never had a scale).
func (a *Acc) numericDec() *apd.Decimal {
	if a.dec != nil || a.i == 0 && a.exp == 0 {
		return a.dec
	}
	return apd.New(a.i, a.exp)
}

// setNumericDec sets a numeric sum from its decimal form, kept small when
// it fits (the inverse of numericDec).
func (a *Acc) setNumericDec(d *apd.Decimal) {
	a.dec, a.i, a.exp = d, 0, 0
	if d != nil && d.Form == apd.Finite && d.Coeff.IsInt64() {
		a.dec, a.i, a.exp = nil, d.Coeff.Int64(), d.Exponent
		if d.Negative {
			a.i = -a.i
		}
	}
}

// addMoment adds v*diff to the sum and v²*diff to the sum of squares, both
// exact decimals (a float enters as its shortest decimal form), so that a
// retraction restores exactly the sums of the live values.
func (a *Acc) addMoment(v repr.Datum, diff int64) {
	var x *apd.Decimal
	switch v.Family() {
	case repr.FamInt:
		x = apd.New(v.Int(), 0)
	case repr.FamFloat:
		if a.addSpecialFloat(v.Float(), diff) {
			return
		}
		x = new(apd.Decimal)
		_, _ = x.SetFloat64(v.Float())
	default:
		if a.addSpecialNumeric(v.Numeric(), diff) {
			return
		}
		x = v.Numeric()
	}
	var x2 apd.Decimal
	_, _ = decCtx.Mul(&x2, x, x)
	a.dec = addScaled(a.dec, x, diff)
	a.sq = addScaled(a.sq, &x2, diff)
}

// addBits adds diff to the count of each bit set in v (two's complement,
// so a smallint's sign extension keeps AND and OR exact at every width).
func (a *Acc) addBits(v, diff int64) {
	if a.bits == nil {
		a.bits = new([64]int64)
	}
	for u := uint64(v); u != 0; u &= u - 1 {
		a.bits[bits.TrailingZeros64(u)] += diff
	}
}

// special returns the float result forced by special inputs, if any.
func (a *Acc) special() (float64, bool) {
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
func (a *Acc) specialDecimal() (*apd.Decimal, bool) {
	f, ok := a.special()
	switch {
	case !ok:
		return nil, false
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}, true
	}
	return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}, true
}

// NeedsScales reports whether the aggregate must know the largest display
// scale of its live numeric inputs (AggCall.Scale).
func NeedsScales(c AccClass, arg repr.T) bool {
	return arg.Family == repr.FamNumeric && (c == AccNumeric || c == AccMoments)
}

// Words is the number of int64 words of c's packed form (Pack), Decs the
// number of decimal pointers. A reduce keeps each group's accumulators
// packed, so that count(*) costs one word rather than a whole Acc: count
// and bool 1–2 words, an integer sum 2 and a decimal once it overflows,
// a numeric sum 6 and a decimal once it overflows.
func (c AccClass) Words() int {
	return [...]int{AccNone: 0, AccCount: 1, AccInt: 2, AccFloat: 6, AccNumeric: 6,
		AccInterval: 4, AccBool: 2, AccMoments: 4, AccBits: 65, AccBitString: 68}[c]
}

// Decs is the number of decimal pointers of c's packed form.
func (c AccClass) Decs() int {
	return [...]int{AccInt: 1, AccNumeric: 1, AccMoments: 2, AccBits: 0, AccBitString: 0}[c]
}

// Pack stores a into w (c.Words() words) and d (c.Decs() pointers). The
// decimals are shared, which is sound because they are never mutated in
// place.
func (c AccClass) Pack(a *Acc, w []int64, d []*apd.Decimal) {
	if c == AccNone {
		return
	}
	w[0] = a.N
	switch c {
	case AccInt:
		w[1], d[0] = a.i, a.dec
	case AccFloat:
		w[1], w[2] = int64(math.Float64bits(a.f)), int64(math.Float64bits(a.c))
		w[3], w[4], w[5] = a.nan, a.pinf, a.ninf
	case AccNumeric:
		w[1], w[2], w[3], w[4], w[5], d[0] = a.nan, a.pinf, a.ninf, a.i, int64(a.exp), a.dec
	case AccInterval:
		w[1], w[2], w[3] = a.i, a.day, a.us
	case AccBool:
		w[1] = a.i
	case AccMoments:
		w[1], w[2], w[3], d[0], d[1] = a.nan, a.pinf, a.ninf, a.dec, a.sq
	case AccBits, AccBitString:
		if a.bits == nil {
			clear(w[1:65])
		} else {
			copy(w[1:65], a.bits[:])
		}
		if c == AccBitString {
			w[65], w[66], w[67] = a.i, a.day, a.pinf
		}
	}
}

// Unpack is the inverse of Pack. The result owns its parts: changing it
// leaves w and d as they were.
func (c AccClass) Unpack(w []int64, d []*apd.Decimal) Acc {
	var a Acc
	if c == AccNone {
		return a
	}
	a.N = w[0]
	switch c {
	case AccInt:
		a.i, a.dec = w[1], d[0]
	case AccFloat:
		a.f, a.c = math.Float64frombits(uint64(w[1])), math.Float64frombits(uint64(w[2]))
		a.nan, a.pinf, a.ninf = w[3], w[4], w[5]
	case AccNumeric:
		a.nan, a.pinf, a.ninf, a.i, a.exp, a.dec = w[1], w[2], w[3], w[4], int32(w[5]), d[0]
	case AccInterval:
		a.i, a.day, a.us = w[1], w[2], w[3]
	case AccBool:
		a.i = w[1]
	case AccMoments:
		a.nan, a.pinf, a.ninf, a.dec, a.sq = w[1], w[2], w[3], d[0], d[1]
	case AccBits, AccBitString:
		a.bits = new([64]int64)
		copy(a.bits[:], w[1:65])
		if c == AccBitString {
			a.i, a.day, a.pinf = w[65], w[66], w[67]
		}
	}
	return a
}
