package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

// numericPower is numeric_power (x ^ y): POSIX pow(3)'s rules for NaN and
// infinities, 2201F for 0 ^ negative and negative ^ non-integer, an
// integer exponent by repeated squaring (power_var_int's scale: 16 or the
// base's), any other through exp(y * ln(x)) (power_var's scale).
func numericPower(x, y *apd.Decimal) (*apd.Decimal, error) {
	if isNaN(x) {
		if y.Form == apd.Finite && y.IsZero() {
			return numOne, nil
		}
		return numNaN, nil
	}
	if isNaN(y) {
		if x.Form == apd.Finite && x.Cmp(numOne) == 0 {
			return numOne, nil
		}
		return numNaN, nil
	}
	if x.Sign() == 0 && y.Sign() < 0 {
		return nil, errZeroNegPow
	}
	if x.Form == apd.Infinite || y.Form == apd.Infinite {
		return powerSpecial(x, y)
	}
	if n, ok := int32Exponent(y); ok {
		rscale := clampScale(max(numMinSigDigits, int(scaleOf(x))))
		return powerInt(x, n, rscale)
	}
	return powerReal(x, y)
}

// isIntegral reports whether finite y has no fractional part.
func isIntegral(y *apd.Decimal) bool {
	if y.Exponent >= 0 || y.IsZero() {
		return true
	}
	var f apd.Decimal
	_, _ = exactCtx.Quantize(&f, y, 0)
	return f.Cmp(y) == 0
}

// isOdd reports whether integral finite y is odd.
func isOdd(y *apd.Decimal) bool {
	var q apd.Decimal
	_, _ = exactCtx.Quantize(&q, y, 0)
	return q.Coeff.Bit(0) == 1
}

// int32Exponent returns y as an int32 when it is integral and fits.
func int32Exponent(y *apd.Decimal) (int32, bool) {
	if !isIntegral(y) {
		return 0, false
	}
	i, err := y.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, false
	}
	return int32(i), true
}

// powerSpecial is numeric_power with an infinite input.
func powerSpecial(x, y *apd.Decimal) (*apd.Decimal, error) {
	if x.Sign() < 0 && y.Form == apd.Finite && !isIntegral(y) { // infinities count as integral
		return nil, errComplexPow
	}
	if x.Form == apd.Finite && x.Cmp(numOne) == 0 {
		return numOne, nil
	}
	if y.Sign() == 0 {
		return numOne, nil
	}
	if x.Sign() == 0 && y.Sign() > 0 {
		return numZero, nil
	}
	if y.Form == apd.Infinite {
		absGtOne := true
		if x.Form == apd.Finite {
			if x.Cmp(apd.New(-1, 0)) == 0 {
				return numOne, nil
			}
			var a apd.Decimal
			a.Abs(x)
			absGtOne = a.Cmp(numOne) > 0
		}
		if absGtOne == (y.Sign() > 0) {
			return numPInf, nil
		}
		return numZero, nil
	}
	if !x.Negative { // +Inf ^ finite
		if y.Sign() > 0 {
			return numPInf, nil
		}
		return numZero, nil
	}
	if y.Sign() < 0 { // -Inf ^ finite
		return numZero, nil
	}
	if isOdd(y) {
		return numNInf, nil
	}
	return numPInf, nil
}

// approxLog10 is log10(|x|) for finite non-zero x, from its leading digits.
func approxLog10(x *apd.Decimal) float64 {
	m := *x
	m.Negative = false
	m.Exponent = -int32(m.NumDigits()) + 1 // 1 <= m < 10
	return math.Log10(approxFloat(&m)) + float64(decWeight(x))
}

// powerInt is power_var_int: x ^ n rounded to rscale, 22003 when the
// result has too many digits before the point, 0 when it underflows.
func powerInt(x *apd.Decimal, n int32, rscale int32) (*apd.Decimal, error) {
	switch {
	case n == 0:
		return roundScale(numOne, rscale), nil
	case n == 1:
		return finish(x, rscale)
	case n == -1:
		return finish(divToScale(numOne, x, rscale), rscale)
	case x.IsZero():
		return roundScale(numZero, rscale), nil
	}
	f := float64(n) * approxLog10(x)
	if f > numMaxIntDigits+1 {
		return nil, errNumOverflow()
	}
	if f+1 < -float64(rscale) || f+1 < -numMaxDisplayScale {
		return roundScale(numZero, rscale), nil
	}
	sig := sigDigits(int(math.Floor(f))+1, rscale) + 12
	c := precCtx(sig)
	r, err := intPow(c, x, int64(math.Abs(float64(n))))
	if err != nil {
		return nil, err
	}
	if n < 0 {
		if _, err := c.Quo(r, numOne, r); err != nil {
			return nil, errNumOverflow()
		}
	}
	return finish(r, rscale)
}

// intPow is x^n (n >= 1) by repeated squaring at c's precision (each of
// the at most 62 products rounds once: the guard digits absorb it).
func intPow(c *apd.Context, x *apd.Decimal, n int64) (*apd.Decimal, error) {
	r := new(apd.Decimal)
	r.Set(numOne)
	var sq apd.Decimal
	sq.Set(x)
	for {
		if n&1 == 1 {
			if _, err := c.Mul(r, r, &sq); err != nil {
				return nil, errNumOverflow()
			}
		}
		if n >>= 1; n == 0 {
			return r, nil
		}
		if _, err := c.Mul(&sq, &sq, &sq); err != nil {
			return nil, errNumOverflow()
		}
	}
}

// powerReal is power_var for an exponent that is not an int32: e^(y ln x),
// the sign by y's parity when x < 0 (2201F unless y is integral).
func powerReal(x, y *apd.Decimal) (*apd.Decimal, error) {
	if x.IsZero() {
		return roundScale(numZero, numMinSigDigits), nil
	}
	neg := false
	if x.Negative {
		if !isIntegral(y) {
			return nil, errComplexPow
		}
		neg = isOdd(y)
		a := new(apd.Decimal)
		a.Abs(x)
		x = a
	}
	lnx, err := lnPrec(x, 20)
	if err != nil {
		return nil, err
	}
	val := approxFloat(lnx) * approxFloat(y)
	if math.Abs(val) > numMaxResultScale*3.01 {
		if val > 0 {
			return nil, errNumOverflow()
		}
		return roundScale(numZero, numMaxDisplayScale), nil
	}
	val *= log10e
	rscale := clampScale(max(numMinSigDigits-int(val), int(scaleOf(x)), int(scaleOf(y))))
	p := sigDigits(int(math.Floor(val))+1, rscale) + 6
	if lnx, err = lnPrec(x, p); err != nil {
		return nil, err
	}
	var prod apd.Decimal
	if _, err := precCtx(p).Mul(&prod, lnx, y); err != nil {
		return nil, errNumOverflow()
	}
	r, err := expScaled(&prod, rscale)
	if err != nil {
		return nil, err
	}
	if neg && !r.IsZero() {
		r.Negative = true
	}
	return r, nil
}
