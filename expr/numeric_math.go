package expr

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// Numeric sqrt, exp, ln, log and power, computed in decimal (never through
// float8) with PostgreSQL's result scales (numeric.c's numeric_sqrt,
// numeric_exp, numeric_ln, log_var, power_var, power_var_int): each result
// has at least numMinSigDigits significant digits and no less than the
// inputs' display scales, at most numMaxDisplayScale. The value is
// computed by apd with guard digits beyond that scale and then rounded half
// away from zero to it (roundScale), so it is the correctly rounded result
// (PostgreSQL's own algorithms aim at the same value).

const (
	numMinSigDigits    = 16   // NUMERIC_MIN_SIG_DIGITS
	numMaxDisplayScale = 1000 // NUMERIC_MAX_DISPLAY_SCALE
	numMaxResultScale  = 2000 // NUMERIC_MAX_RESULT_SCALE
	numMaxIntDigits    = 131072
	numGuardDigits     = 12 // beyond the result scale, before the final rounding
	log10e             = 0.434294481903252
)

var (
	errLogZero     = repr.Errorf("2201E", "cannot take logarithm of zero")
	errLogNegative = repr.Errorf("2201E", "cannot take logarithm of a negative number")
	errSqrtNeg     = repr.Errorf("2201F", "cannot take square root of a negative number")
	errZeroNegPow  = repr.Errorf("2201F", "zero raised to a negative power is undefined")
	errComplexPow  = repr.Errorf("2201F", "a negative number raised to a non-integer power yields a complex result")
)

func errNumOverflow() error {
	return repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
}

func registerNumericMath() {
	n := repr.Numeric
	fn("sqrt", n, numUnary(numericSqrtFn), n)
	fn("exp", n, numUnary(numericExp), n)
	fn("ln", n, numUnary(numericLn), n)
	fn("log", n, numUnary(numericLog10), n)
	fn("log10", n, numUnary(numericLog10), n)
	fn("log", n, numBinary(numericLog), n, n)
	fn("power", n, numBinary(numericPower), n, n)
	fn("pow", n, numBinary(numericPower), n, n)
	binop("^", n, n, n, numBinary(numericPower))
}

func numUnary(f func(x *apd.Decimal) (*apd.Decimal, error)) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := f(a[0].Numeric())
		if err != nil {
			return repr.Null, err
		}
		return repr.NewNumeric(r), nil
	}
}

func numBinary(f func(x, y *apd.Decimal) (*apd.Decimal, error)) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := f(a[0].Numeric(), a[1].Numeric())
		if err != nil {
			return repr.Null, err
		}
		return repr.NewNumeric(r), nil
	}
}

var (
	numNaN  = &apd.Decimal{Form: apd.NaN}
	numPInf = &apd.Decimal{Form: apd.Infinite}
	numNInf = &apd.Decimal{Form: apd.Infinite, Negative: true}
	numOne  = apd.New(1, 0)
	numZero = apd.New(0, 0)
)

// clampScale bounds a result scale to [0, numMaxDisplayScale].
func clampScale(s int) int32 { return int32(min(max(s, 0), numMaxDisplayScale)) }

// decWeight is the power of ten of x's leading digit (x finite, non-zero).
func decWeight(x *apd.Decimal) int { return int(x.Exponent) + int(x.NumDigits()) - 1 }

// approxFloat is x as a float64, ±Inf beyond its range (as PostgreSQL's
// numericvar_to_double_no_overflow).
func approxFloat(x *apd.Decimal) float64 {
	f, _ := strconv.ParseFloat(x.Text('e'), 64)
	return f
}

// roundScale returns finite x rounded half away from zero to scale >= 0
// fractional digits, with exactly that scale. (apd's Quantize is not used:
// it loses directed rounding when every digit is dropped.)
func roundScale(x *apd.Decimal, scale int32) *apd.Decimal {
	r := &apd.Decimal{Exponent: -scale, Negative: x.Negative}
	shift := int64(x.Exponent) + int64(scale)
	if shift >= 0 {
		r.Coeff.Mul(&x.Coeff, pow10Big(shift))
	} else {
		den := pow10Big(-shift)
		var rem apd.BigInt
		r.Coeff.QuoRem(&x.Coeff, den, &rem)
		if rem.Add(&rem, &rem).Cmp(den) >= 0 {
			r.Coeff.Add(&r.Coeff, apd.NewBigInt(1))
		}
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	}
	return r
}

func pow10Big(n int64) *apd.BigInt {
	return new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(n), nil)
}

// precCtx is a context computing to p significant digits.
func precCtx(p int) *apd.Context {
	c := apd.BaseContext.WithPrecision(uint32(max(p, 1)))
	c.Rounding = apd.RoundHalfUp
	return c
}

// finish rounds v to scale and checks PostgreSQL's range (fewer than
// 131072 digits before the point).
func finish(v *apd.Decimal, scale int32) (*apd.Decimal, error) {
	r := roundScale(v, scale)
	if !r.IsZero() && decWeight(r) >= numMaxIntDigits {
		return nil, errNumOverflow()
	}
	return r, nil
}

// sigDigits is how many significant digits a result of decimal weight w
// needs at scale, plus the guard digits.
func sigDigits(w int, scale int32) int { return max(w+1+int(scale), 0) + numGuardDigits }

// numericSqrtFn is numeric_sqrt: scale 16 - (half the input's weight), no
// less than the input's scale.
func numericSqrtFn(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case isNaN(x):
		return numNaN, nil
	case x.Form == apd.Infinite && x.Negative, x.Sign() < 0:
		return nil, errSqrtNeg
	case x.Form == apd.Infinite:
		return numPInf, nil
	}
	w, _ := groupWeight(x)
	sweight := int((w+1)*4/2 - 1)
	rscale := clampScale(max(numMinSigDigits-sweight, int(scaleOf(x))))
	return finish(sqrtScaled(x, rscale), rscale)
}

// sqrtScaled is the square root of finite x >= 0, exactly rounded half
// away from zero to rscale digits: s = isqrt(floor(x * 10^(2 rscale + 2)))
// = floor(sqrt(x) * 10^(rscale+1)) holds one digit more, which decides.
func sqrtScaled(x *apd.Decimal, rscale int32) *apd.Decimal {
	n := new(apd.BigInt)
	if k := int64(x.Exponent) + 2*int64(rscale) + 2; k >= 0 {
		n.Mul(&x.Coeff, pow10Big(k))
	} else {
		n.Quo(&x.Coeff, pow10Big(-k))
	}
	s := new(apd.BigInt).Sqrt(n)
	var q, d apd.BigInt
	q.QuoRem(s, apd.NewBigInt(10), &d)
	if d.Int64() >= 5 {
		q.Add(&q, apd.NewBigInt(1))
	}
	return apd.NewWithBigInt(&q, -rscale)
}

// numericExp is numeric_exp: the scale follows the result's estimated
// decimal weight x*log10(e); |x| >= 6000 overflows (or is 0 when negative).
func numericExp(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case isNaN(x):
		return numNaN, nil
	case x.Form == apd.Infinite && x.Negative:
		return numZero, nil
	case x.Form == apd.Infinite:
		return numPInf, nil
	}
	val := min(max(approxFloat(x)*log10e, -numMaxResultScale), numMaxResultScale)
	rscale := clampScale(max(numMinSigDigits-int(val), int(scaleOf(x))))
	return expScaled(x, rscale)
}

// expScaled is exp_var: e^x rounded to rscale.
func expScaled(x *apd.Decimal, rscale int32) (*apd.Decimal, error) {
	val := approxFloat(x)
	if math.Abs(val) >= numMaxResultScale*3 {
		if val > 0 {
			return nil, errNumOverflow()
		}
		return roundScale(numZero, rscale), nil
	}
	w := int(math.Floor(val * log10e))
	if w+1 < -int(rscale)-1 {
		return roundScale(numZero, rscale), nil
	}
	var r apd.Decimal
	if _, err := precCtx(sigDigits(w+1, rscale)).Exp(&r, x); err != nil {
		return nil, errNumOverflow()
	}
	return finish(&r, rscale)
}

// numericLn is numeric_ln.
func numericLn(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case isNaN(x):
		return numNaN, nil
	case x.Form == apd.Infinite && x.Negative:
		return nil, errLogNegative
	case x.Form == apd.Infinite:
		return numPInf, nil
	}
	dw := estimateLnDweight(x)
	rscale := clampScale(max(numMinSigDigits-dw, int(scaleOf(x))))
	r, err := lnPrec(x, sigDigits(dw+1, rscale))
	if err != nil {
		return nil, err
	}
	return finish(r, rscale)
}

// lnPrec is ln(x) to p significant digits; 2201E for x <= 0.
func lnPrec(x *apd.Decimal, p int) (*apd.Decimal, error) {
	switch x.Sign() {
	case 0:
		return nil, errLogZero
	case -1:
		return nil, errLogNegative
	}
	var r apd.Decimal
	if _, err := precCtx(p).Ln(&r, x); err != nil {
		return nil, errNumOverflow()
	}
	return &r, nil
}

// estimateLnDweight is PostgreSQL's estimate of the decimal weight of
// ln(x): from x-1 near 1 (0.9 <= x <= 1.1), else from x's leading base-10000
// digit groups; 0 for x <= 0.
func estimateLnDweight(x *apd.Decimal) int {
	if x.Sign() <= 0 {
		return 0
	}
	lo, hi := apd.New(9, -1), apd.New(11, -1)
	if x.Cmp(lo) >= 0 && x.Cmp(hi) <= 0 {
		var d apd.Decimal
		_, _ = exactCtx.Sub(&d, x, numOne)
		if d.IsZero() {
			return 0
		}
		return decWeight(&d)
	}
	w, lead := leadingGroups(x)
	ln := math.Log(lead) + float64(w)*2.302585092994046
	return int(math.Log10(math.Abs(ln)))
}

// leadingGroups returns x's first two base-10000 digit groups as one
// number and the decimal weight of that number's unit digit.
func leadingGroups(x *apd.Decimal) (int, float64) {
	w, _ := groupWeight(x)
	unit := int(w)*4 - 4 // the decimal weight of the second group's unit
	var q apd.Decimal
	_, _ = exactCtx.Quantize(&q, x, int32(unit))
	// Truncation matters not: only 8 digits are kept anyway.
	q.Exponent = 0
	f := approxFloat(&q)
	return unit, f
}

// numericLog10 is log(x) = log(10, x), as PostgreSQL's SQL function.
func numericLog10(x *apd.Decimal) (*apd.Decimal, error) {
	return numericLog(apd.New(10, 0), x)
}

// numericLog is numeric_log(base, x) and log_var's scale.
func numericLog(b, x *apd.Decimal) (*apd.Decimal, error) {
	if isNaN(b) || isNaN(x) {
		return numNaN, nil
	}
	if b.Form == apd.Infinite || x.Form == apd.Infinite {
		return logSpecial(b, x)
	}
	dwb, dwx := estimateLnDweight(b), estimateLnDweight(x)
	dw := dwx - dwb
	rscale := clampScale(max(numMinSigDigits-dw, int(scaleOf(b)), int(scaleOf(x))))
	p := sigDigits(dw+1, rscale)
	lb, err := lnPrec(b, p+max(dwb, 0)+4)
	if err != nil {
		return nil, err
	}
	lx, err := lnPrec(x, p+max(dwx, 0)+4)
	if err != nil {
		return nil, err
	}
	if lb.IsZero() {
		return nil, repr.ErrDivisionByZero.New()
	}
	var r apd.Decimal
	if _, err := precCtx(p).Quo(&r, lx, lb); err != nil {
		return nil, errNumOverflow()
	}
	return finish(&r, rscale)
}

// logSpecial is log(b, x) when one of them is infinite (neither NaN).
func logSpecial(b, x *apd.Decimal) (*apd.Decimal, error) {
	if b.Sign() < 0 || x.Sign() < 0 {
		return nil, errLogNegative
	}
	if b.Sign() == 0 || x.Sign() == 0 {
		return nil, errLogZero
	}
	switch {
	case b.Form == apd.Infinite && x.Form == apd.Infinite:
		return numNaN, nil
	case b.Form == apd.Infinite:
		return numZero, nil
	}
	return numPInf, nil
}
