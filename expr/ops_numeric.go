package expr

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// exactCtx computes numeric +, -, *, % exactly for any realistic operand
// (PostgreSQL numerics carry up to 131072 digits before the point and 16383
// after; results here need at most the sum of the operands' digits).
var exactCtx = apd.BaseContext.WithPrecision(4000)

// roundCtx quantizes with PostgreSQL's rounding: half away from zero.
var roundCtx = func() *apd.Context {
	c := apd.BaseContext.WithPrecision(4000)
	c.Rounding = apd.RoundHalfUp
	return c
}()

func init() {
	registerComparisons()
	for _, w := range []int32{16, 32, 64} {
		registerIntArith(repr.T{Family: repr.FamInt, Width: w})
	}
	for _, t := range []repr.T{repr.Float4, repr.Float8} {
		registerFloatArith(t)
	}
	registerNumericArith()
	binop("^", repr.Float8, repr.Float8, repr.Float8, floatPow)
	registerMixedFloatArith()
}

// registerComparisons adds = <> < <= > >= for every type.
func registerComparisons() {
	preds := cmpPredicates()
	ts := append([]repr.T{repr.Bool}, numericTypes...)
	ts = append(ts, repr.Text, repr.Name, repr.QChar, repr.Char(0), repr.Bytea, repr.Date, repr.TimeT,
		repr.Timestamp, repr.TimestampTZ, repr.IntervalT, repr.JSONB, repr.UUID, repr.Bit)
	for op, pred := range preds {
		for _, t := range ts {
			compare := repr.Compare
			if t.Kind == repr.KindChar && t.Family == repr.FamText {
				compare = compareBpchar
			}
			if t.Kind == repr.KindQChar && t.Family == repr.FamText {
				compare = compareQChar
			}
			f := binop(op, t, t, repr.Bool, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
				return repr.NewBool(pred(compare(a[0], a[1]))), nil
			})
			if intLike(t) {
				f.fast, f.fastOp = fastCmp, cmpOps[op]
			}
		}
	}
}

// intLike reports whether repr.Compare orders two values of type t by
// their 64-bit value alone (Specialize's comparisons).
func intLike(t repr.T) bool {
	switch t.Family {
	case repr.FamInt, repr.FamDate, repr.FamTimestamp, repr.FamTimestampTZ:
		return true
	}
	return false
}

// compareBpchar compares char(n) values ignoring trailing spaces, as PG does.
func compareBpchar(a, b repr.Datum) int {
	return repr.Compare(repr.NewText(trimSpaces(a.Text())), repr.NewText(trimSpaces(b.Text())))
}

// compareQChar compares "char" values as PostgreSQL does, by their byte
// as an unsigned number (a high byte is kept as `\ooo`, repr.QChar).
func compareQChar(a, b repr.Datum) int {
	return cmp.Compare(repr.QCharByte(a.Text()), repr.QCharByte(b.Text()))
}

func trimSpaces(s string) string {
	i := len(s)
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	return s[:i]
}

// registerIntArith adds the arithmetic of one integer width; results have
// the same width and overflow with 22003 at that width.
func registerIntArith(t repr.T) {
	w := t.Width
	for op, f := range map[string]func(a, b int64, w int32) (int64, error){
		"+": addInt, "-": subInt, "*": mulInt, "/": divInt, "%": modInt,
	} {
		binop(op, t, t, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			r, err := f(a[0].Int(), a[1].Int(), w)
			return repr.NewInt(r), err
		})
	}
	register(prefixOps, "-", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, err := subInt(0, a[0].Int(), w)
		return repr.NewInt(r), err
	}, t)
	register(prefixOps, "+", t, identity, t)
}

func identity(_ *Ctx, a []repr.Datum) (repr.Datum, error) { return a[0], nil }

// registerFloatArith adds float4 or float8 arithmetic with PostgreSQL's
// overflow/underflow checks and 22012 on division by zero.
func registerFloatArith(t repr.T) {
	ops := map[string]func(a, b float64) float64{
		"+": func(a, b float64) float64 { return a + b },
		"-": func(a, b float64) float64 { return a - b },
		"*": func(a, b float64) float64 { return a * b },
		"/": func(a, b float64) float64 { return a / b },
	}
	for op, f := range ops {
		binop(op, t, t, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			x, y := a[0].Float(), a[1].Float()
			if op == "/" && y == 0 && !math.IsNaN(x) { // NaN / 0 is NaN, as in float8div
				return repr.Null, repr.ErrDivisionByZero.New()
			}
			// A product underflows when neither factor is 0 (float8_mul), a
			// quotient when the dividend is not 0 nor the divisor infinite.
			under := (op == "*" && x != 0 && y != 0) || (op == "/" && x != 0 && !math.IsInf(y, 0))
			return checkFloat(f(x, y), t.Width, math.IsInf(x, 0) || math.IsInf(y, 0), under)
		})
	}
	register(prefixOps, "-", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewFloat(-a[0].Float()), nil
	}, t)
	register(prefixOps, "+", t, identity, t)
}

// checkFloat rounds r to the width and raises PG's range errors: overflow
// unless an input was infinite, underflow (to zero) when zeroOK is false.
func checkFloat(r float64, width int32, infIn, nonZeroIn bool) (repr.Datum, error) {
	if width == 32 {
		r = float64(float32(r))
	}
	if math.IsInf(r, 0) && !infIn {
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value out of range: overflow")
	}
	if r == 0 && nonZeroIn {
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value out of range: underflow")
	}
	return repr.NewFloat(r), nil
}

func floatPow(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	x, y := a[0].Float(), a[1].Float()
	switch {
	case math.IsNaN(x):
		if math.IsNaN(y) || y != 0 {
			return a[0], nil
		}
		return repr.NewFloat(1), nil
	case math.IsNaN(y):
		if x != 1 {
			return a[1], nil
		}
		return repr.NewFloat(1), nil
	case x == 0 && y < 0:
		return repr.Null, errZeroNegPow
	case x < 0 && math.Floor(y) != y:
		return repr.Null, errComplexPow
	case math.IsInf(x, 0) || math.IsInf(y, 0):
		return repr.NewFloat(math.Pow(x, y)), nil // POSIX's rules, no range errors
	}
	return checkFloat(math.Pow(x, y), 64, false, x != 0)
}

func registerNumericArith() {
	n := repr.Numeric
	binop("+", n, n, n, withSpecial('+', exactOp((*apd.Context).Add, addPrecision)))
	binop("-", n, n, n, withSpecial('-', exactOp((*apd.Context).Sub, addPrecision)))
	binop("*", n, n, n, withSpecial('*', numericMul)).fast = fastNumMul
	binop("/", n, n, n, withSpecial('/', numericDiv))
	binop("%", n, n, n, withSpecial('%', numericMod))
	register(prefixOps, "-", n, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		var r apd.Decimal
		r.Neg(a[0].Numeric())
		if r.IsZero() {
			r.Negative = false
		}
		return repr.NewNumeric(&r), nil
	}, n)
	register(prefixOps, "+", n, identity, n)
}

func numericOp(f func(d, x, y *apd.Decimal) (apd.Condition, error)) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		var r apd.Decimal
		if _, err := f(&r, a[0].Numeric(), a[1].Numeric()); err != nil {
			return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
		}
		if r.IsZero() {
			r.Negative = false
		}
		return repr.NewNumeric(&r), nil
	}
}

// numericMul multiplies exactly. Coefficients that fit in 64 bits, with a
// product that does too, are multiplied directly (the common case: q1's
// 0.908 * price); the result is the one exactCtx.Mul gives (the same
// coefficient and exponent: 4000 digits of precision never round such a
// product), without apd's general path.
func numericMul(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
	if r, ok := mulSmall(a[0].Numeric(), a[1].Numeric()); ok {
		return repr.NewNumeric(r), nil
	}
	r, err := exactOp((*apd.Context).Mul, mulPrecision)(ctx, a)
	if err != nil || r.Numeric().Exponent >= -numDscaleMax {
		return r, err
	}
	return repr.NewNumeric(roundScale(r.Numeric(), numDscaleMax)), nil
}

// numDscaleMax is NUMERIC_DSCALE_MAX: a product's scale is capped there,
// rounding half away from zero, as numeric_mul does.
const numDscaleMax = 16383

// exactOp is a numeric operator computed exactly: at exactCtx's precision,
// or at prec's when that needs more digits (4e-500 - 1e-16383 has 15884).
func exactOp(op func(c *apd.Context, d, x, y *apd.Decimal) (apd.Condition, error),
	prec func(x, y *apd.Decimal) int) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		x, y := a[0].Numeric(), a[1].Numeric()
		c := exactCtx
		if p := prec(x, y); p > int(c.Precision) {
			c = apd.BaseContext.WithPrecision(uint32(p))
		}
		var r apd.Decimal
		if _, err := op(c, &r, x, y); err != nil {
			return repr.Null, errNumOverflow()
		}
		if r.IsZero() {
			r.Negative = false
		}
		return repr.NewNumeric(&r), nil
	}
}

// addPrecision is the digits x+y needs exactly: from the higher leading
// digit (plus a carry) down to the lower last digit.
func addPrecision(x, y *apd.Decimal) int {
	hi := max(int(x.Exponent)+int(x.NumDigits()), int(y.Exponent)+int(y.NumDigits()))
	return hi - min(int(x.Exponent), int(y.Exponent)) + 1
}

// mulPrecision is the digits x*y needs exactly.
func mulPrecision(x, y *apd.Decimal) int { return int(x.NumDigits()) + int(y.NumDigits()) }

// mulSmall is x*y when both are finite with 64-bit coefficients, their
// product fits in 64 bits and the exponent stays far from apd's limits.
func mulSmall(x, y *apd.Decimal) (*apd.Decimal, bool) {
	if x.Form != apd.Finite || y.Form != apd.Finite || !x.Coeff.IsUint64() || !y.Coeff.IsUint64() {
		return nil, false
	}
	hi, lo := bits.Mul64(x.Coeff.Uint64(), y.Coeff.Uint64())
	exp := int64(x.Exponent) + int64(y.Exponent)
	if hi != 0 || exp < -10000 || exp > 10000 {
		return nil, false
	}
	r := &apd.Decimal{Exponent: int32(exp), Negative: x.Negative != y.Negative && lo != 0}
	r.Coeff.SetUint64(lo)
	return r, true
}

func isNaN(x *apd.Decimal) bool { return x.Form == apd.NaN || x.Form == apd.NaNSignaling }

// numericDiv divides with PostgreSQL's result scale (select_div_scale): at
// least 16 significant digits and no less than either input's scale,
// rounding half away from zero.
func numericDiv(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	x, y := a[0].Numeric(), a[1].Numeric()
	if isNaN(x) || isNaN(y) {
		return repr.NewNumeric(&apd.Decimal{Form: apd.NaN}), nil
	}
	if y.IsZero() {
		return repr.Null, repr.ErrDivisionByZero.New()
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		var r apd.Decimal
		if _, err := exactCtx.Quo(&r, x, y); err != nil {
			return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
		}
		return repr.NewNumeric(&r), nil
	}
	return repr.NewNumeric(divToScale(x, y, divScale(x, y))), nil
}

// divScale is PostgreSQL's select_div_scale over base-10000 digit groups.
func divScale(x, y *apd.Decimal) int32 {
	w1, f1 := groupWeight(x)
	w2, f2 := groupWeight(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := 16 - qweight*4
	rscale = max(rscale, scaleOf(x), scaleOf(y), 0)
	return min(rscale, 1000)
}

func scaleOf(x *apd.Decimal) int32 { return max(-x.Exponent, 0) }

// groupWeight returns the weight (position of the first non-zero base-10000
// digit group relative to the decimal point) and that group's value.
func groupWeight(x *apd.Decimal) (int32, int64) {
	if x.IsZero() {
		return 0, 0
	}
	digits := x.Coeff.String()
	if digits[0] == '-' {
		digits = digits[1:]
	}
	e := x.Exponent + int32(len(digits)) - 1 // exponent of the leading digit
	w := int32(floorDiv(int64(e), 4))
	lead := int(e - w*4 + 1) // digits of the value in the leading group
	var first int64
	for i := 0; i < lead; i++ {
		first *= 10
		if i < len(digits) {
			first += int64(digits[i] - '0')
		}
	}
	return w, first
}

// divToScale returns x/y rounded half away from zero to scale digits.
func divToScale(x, y *apd.Decimal, scale int32) *apd.Decimal {
	num := new(apd.BigInt).Abs(&x.Coeff)
	den := new(apd.BigInt).Abs(&y.Coeff)
	ten := apd.NewBigInt(10)
	if k := x.Exponent + scale - y.Exponent; k >= 0 {
		num.Mul(num, new(apd.BigInt).Exp(ten, apd.NewBigInt(int64(k)), nil))
	} else {
		den.Mul(den, new(apd.BigInt).Exp(ten, apd.NewBigInt(int64(-k)), nil))
	}
	var q, r apd.BigInt
	q.QuoRem(num, den, &r)
	if r.Add(&r, &r).Cmp(den) >= 0 {
		q.Add(&q, apd.NewBigInt(1))
	}
	res := apd.NewWithBigInt(&q, -scale)
	res.Negative = x.Negative != y.Negative && !q.IsInt64() || x.Negative != y.Negative && q.Int64() != 0
	return res
}

// numericMod is the remainder of truncating division, with the larger scale.
func numericMod(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[1].Numeric().IsZero() {
		return repr.Null, repr.ErrDivisionByZero.New()
	}
	return numericOp(exactCtx.Rem)(nil, a)
}

// registerMixedFloatArith adds PostgreSQL's float4-with-float8 operators
// (float48pl etc.), whose result is float8; they make float4 * int4 a
// float8, as in PostgreSQL, because float8 is the preferred type.
func registerMixedFloatArith() {
	f4, f8 := repr.Float4, repr.Float8
	for _, op := range []string{"+", "-", "*", "/"} {
		var same *Func
		for _, f := range binaryOps[op] {
			if f.Args[0] == f8 && f.Args[1] == f8 {
				same = f
			}
		}
		binop(op, f4, f8, f8, same.Impl)
		binop(op, f8, f4, f8, same.Impl)
	}
}
