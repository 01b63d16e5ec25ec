package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// PostgreSQL's numeric utility functions: scale, min_scale, trim_scale,
// gcd, lcm, factorial and width_bucket (numeric.c).

func init() {
	n, i4, i8, f8 := repr.Numeric, repr.Int4, repr.Int8, repr.Float8
	fn("scale", i4, numScaleFn(func(x *apd.Decimal) int64 { return int64(scaleOf(x)) }), n)
	fn("min_scale", i4, numScaleFn(func(x *apd.Decimal) int64 { return int64(scaleOf(trimScale(x))) }), n)
	fn("trim_scale", n, numUnary(func(x *apd.Decimal) (*apd.Decimal, error) {
		if x.Form != apd.Finite {
			return x, nil
		}
		return trimScale(x), nil
	}), n)
	fn("gcd", n, numBinary(func(x, y *apd.Decimal) (*apd.Decimal, error) { return numericGcdLcm(x, y, false), nil }), n, n)
	fn("lcm", n, numBinary(func(x, y *apd.Decimal) (*apd.Decimal, error) { return numericGcdLcm(x, y, true), nil }), n, n)
	fn("factorial", n, factorial, i8)
	fn("width_bucket", i4, widthBucketNumeric, n, n, n, i4)
	fn("width_bucket", i4, widthBucketFloat, f8, f8, f8, i4)
}

// numScaleFn is a scale function: NULL for NaN and infinities.
func numScaleFn(f func(x *apd.Decimal) int64) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].Numeric().Form != apd.Finite {
			return repr.Null, nil
		}
		return repr.NewInt(f(a[0].Numeric())), nil
	}
}

// trimScale is finite x without trailing fractional zeros.
func trimScale(x *apd.Decimal) *apd.Decimal {
	if x.IsZero() {
		return apd.New(0, 0)
	}
	r := new(apd.Decimal).Set(x)
	var q, rem apd.BigInt
	ten := apd.NewBigInt(10)
	for r.Exponent < 0 {
		q.QuoRem(&r.Coeff, ten, &rem)
		if rem.Sign() != 0 {
			break
		}
		r.Coeff.Set(&q)
		r.Exponent++
	}
	return r
}

// numericGcdLcm is numeric_gcd or numeric_lcm: NaN for any NaN or
// infinite input; the result is non-negative with the larger input scale.
func numericGcdLcm(x, y *apd.Decimal, lcm bool) *apd.Decimal {
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return numNaN
	}
	s := max(scaleOf(x), scaleOf(y))
	a, b := scaledInt(x, s), scaledInt(y, s)
	var g apd.BigInt
	g.GCD(nil, nil, a, b)
	if !lcm {
		return apd.NewWithBigInt(&g, -s)
	}
	if a.Sign() == 0 || b.Sign() == 0 {
		return apd.NewWithBigInt(apd.NewBigInt(0), -s)
	}
	var l apd.BigInt
	l.Quo(a, &g)
	l.Mul(&l, b) // |y| * (|x|/g), at scale s
	return apd.NewWithBigInt(&l, -s)
}

// scaledInt is |x| * 10^s as an integer (s >= x's scale).
func scaledInt(x *apd.Decimal, s int32) *apd.BigInt {
	return new(apd.BigInt).Mul(&x.Coeff, pow10Big(int64(x.Exponent)+int64(s)))
}

// factorial is numeric_fac: 22003 for negative n or n > 32177.
func factorial(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	n := a[0].Int()
	switch {
	case n < 0:
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "factorial of a negative number is undefined")
	case n > 32177:
		return repr.Null, errNumOverflow()
	}
	r := apd.NewBigInt(1)
	var k apd.BigInt
	for i := int64(2); i <= n; i++ {
		r.Mul(r, k.SetInt64(i))
	}
	return repr.NewNumeric(apd.NewWithBigInt(r, 0)), nil
}

func errWidthBucket(msg string) error { return repr.Errorf("2201G", "%s", msg) }

// widthBucketNumeric is width_bucket_numeric: the 1-based bucket of
// operand among count equal buckets between the bounds (either order), 0
// below and count+1 at or above, computed exactly.
func widthBucketNumeric(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	op, b1, b2, count := a[0].Numeric(), a[1].Numeric(), a[2].Numeric(), a[3].Int()
	if count <= 0 {
		return repr.Null, errWidthBucket("count must be greater than zero")
	}
	if isNaN(op) || isNaN(b1) || isNaN(b2) {
		return repr.Null, errWidthBucket("operand, lower bound, and upper bound cannot be NaN")
	}
	if b1.Form != apd.Finite || b2.Form != apd.Finite {
		return repr.Null, errWidthBucket("lower and upper bounds must be finite")
	}
	c := b1.Cmp(b2)
	if c == 0 {
		return repr.Null, errWidthBucket("lower bound cannot equal upper bound")
	}
	if c > 0 { // reversed: mirror everything
		op, b1, b2 = negDec(op), negDec(b1), negDec(b2)
	}
	switch {
	case op.Cmp(b1) < 0:
		return repr.NewInt(0), nil
	case op.Cmp(b2) >= 0:
		return intResult(count + 1)
	}
	var num, den, q apd.Decimal
	_, _ = exactCtx.Sub(&num, op, b1)
	_, _ = exactCtx.Mul(&num, &num, apd.New(count, 0))
	_, _ = exactCtx.Sub(&den, b2, b1)
	_, _ = exactCtx.QuoInteger(&q, &num, &den)
	i, err := q.Int64()
	if err != nil {
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "integer out of range")
	}
	return intResult(i + 1)
}

func negDec(x *apd.Decimal) *apd.Decimal { return new(apd.Decimal).Neg(x) }

// intResult is i as an int4, 22003 beyond.
func intResult(i int64) (repr.Datum, error) {
	if i > math.MaxInt32 || i < math.MinInt32 {
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "integer out of range")
	}
	return repr.NewInt(i), nil
}

// widthBucketFloat is width_bucket_float8, in double precision as
// PostgreSQL computes it (halving the operands when the range overflows).
func widthBucketFloat(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	op, b1, b2, count := a[0].Float(), a[1].Float(), a[2].Float(), a[3].Int()
	switch {
	case count <= 0:
		return repr.Null, errWidthBucket("count must be greater than zero")
	case math.IsNaN(op) || math.IsNaN(b1) || math.IsNaN(b2):
		return repr.Null, errWidthBucket("operand, lower bound, and upper bound cannot be NaN")
	case math.IsInf(b1, 0) || math.IsInf(b2, 0):
		return repr.Null, errWidthBucket("lower and upper bounds must be finite")
	case b1 == b2:
		return repr.Null, errWidthBucket("lower bound cannot equal upper bound")
	}
	if b1 > b2 {
		op, b1, b2 = -op, -b1, -b2
	}
	switch {
	case op < b1:
		return repr.NewInt(0), nil
	case op >= b2:
		return intResult(count + 1)
	}
	var f float64
	if !math.IsInf(b2-b1, 0) {
		f = float64(count) * ((op - b1) / (b2 - b1))
	} else {
		f = float64(count) * ((op/2 - b1/2) / (b2/2 - b1/2))
	}
	r := int64(f)
	if r >= count {
		r = count - 1
	}
	return repr.NewInt(r + 1), nil
}
