package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// aggNumericDiv returns sum / cnt (an integer) rounded (half away from zero)
// to the scale PostgreSQL's numeric division chooses (select_div_scale in
// numeric.c): at least 16 significant digits, at least the operands'
// display scales (sumScale for sum, 0 for the count). So avg(1, 2) =
// 1.5000000000000000.
func aggNumericDiv(sum *apd.Decimal, sumScale int32, cnt *apd.Decimal) *apd.Decimal {
	q, _ := numericDivScale(sum, sumScale, cnt)
	return q
}

// numericDivScale is numericDiv, also returning the result's scale.
func numericDivScale(sum *apd.Decimal, sumScale int32, cnt *apd.Decimal) (*apd.Decimal, int32) {
	w1, d1 := baseWeight(sum)
	w2, d2 := baseWeight(cnt)
	qweight := w1 - w2
	if d1 <= d2 {
		qweight--
	}
	rscale := min(max(16-qweight*4, sumScale, 0), 1000)
	intDigits := max(adjExp(sum)-adjExp(cnt)+2, 1)
	ctx := apd.BaseContext.WithPrecision(uint32(intDigits + rscale + 3))
	ctx.Rounding = apd.RoundDown
	q := new(apd.Decimal)
	_, _ = ctx.Quo(q, sum, cnt)
	round := apd.BaseContext.WithPrecision(uint32(intDigits + rscale + 3))
	round.Rounding = apd.RoundHalfUp
	_, _ = round.Quantize(q, q, -rscale)
	if q.IsZero() {
		q.Negative = false
	}
	return q, rscale
}

// adjExp is the power of ten of d's leading digit (0 for zero).
func adjExp(d *apd.Decimal) int32 {
	if d.IsZero() {
		return 0
	}
	return int32(d.NumDigits()) - 1 + d.Exponent
}

// baseWeight returns the weight and value of the leading base-10000 digit
// of d, as PostgreSQL's numeric stores it: digit groups are aligned on the
// decimal point, so 12345 is 1|2345 (weight 1, digit 1) and 0.5 is .5000
// (weight -1, digit 5000).
func baseWeight(d *apd.Decimal) (weight, digit int32) {
	if d.IsZero() || d.Form != apd.Finite {
		return 0, 0
	}
	e := adjExp(d)
	weight = aggFloorDiv(e, 4)
	k := int(e - 4*weight + 1) // decimal digits in the leading group
	if d.Coeff.IsUint64() {
		return weight, leadingDigits(d.Coeff.Uint64(), d.NumDigits(), k)
	}
	digits := d.Coeff.String()
	for len(digits) < k {
		digits += "0"
	}
	for _, c := range digits[:k] {
		digit = digit*10 + int32(c-'0')
	}
	return weight, digit
}

// leadingDigits returns the number formed by the first k (1 to 4) decimal
// digits of c, which has n digits, padded with zeros if n < k: baseWeight
// without formatting the coefficient.
func leadingDigits(c uint64, n int64, k int) int32 {
	for ; n > int64(k); n-- {
		c /= 10
	}
	for ; n < int64(k); n++ {
		c *= 10
	}
	return int32(c)
}

func aggFloorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// intervalDiv divides an interval (as summed fields) by f the way
// PostgreSQL's interval_div does: each field is divided and the fractional
// months and days cascade down to days and microseconds (a month is 30
// days, a day 24 hours).
func intervalDiv(mon, day, us int64, f float64) (repr.Datum, error) {
	m := float64(mon) / f
	d := float64(day) / f
	rm := math.Trunc(m)
	rd := math.Trunc(d)
	monthRemDays := tsRound((m - rm) * 30)
	secRem := tsRound((d - rd + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		rd += math.Trunc(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	rd += math.Trunc(monthRemDays)
	micros := math.Trunc(float64(us)/f) + math.RoundToEven(secRem*1e6)
	return intervalDatum(int64(rm), int64(rd), int64(micros))
}

// tsRound rounds to microsecond precision, like PostgreSQL's TSROUND.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }
