package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

func init() {
	f8, n, i4 := repr.Float8, repr.Numeric, repr.Int4
	for _, t := range []repr.T{repr.Int2, repr.Int4, repr.Int8} {
		w := t.Width
		fn("abs", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			v := a[0].Int()
			if v >= 0 {
				return a[0], nil
			}
			r, err := subInt(0, v, w)
			return repr.NewInt(r), err
		}, t)
		fn("mod", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			r, err := modInt(a[0].Int(), a[1].Int(), w)
			return repr.NewInt(r), err
		}, t, t)
	}
	for _, t := range []repr.T{repr.Float4, f8} {
		fn("abs", t, floatFn(math.Abs), t)
	}
	fn("abs", n, numFn(func(r, x *apd.Decimal) error { r.Abs(x); return nil }), n)
	fn("mod", n, withSpecial('%', numericMod), n, n)
	for name, f := range map[string]func(float64) float64{
		"ceil": math.Ceil, "ceiling": math.Ceil, "floor": math.Floor, "round": math.RoundToEven,
		"trunc": math.Trunc, "sign": sign,
	} {
		fn(name, f8, floatFn(f), f8)
	}
	for name, mode := range map[string]apd.Rounder{"round": apd.RoundHalfUp, "trunc": apd.RoundDown} {
		fn(name, n, numericRound(mode, false), n)
	}
	// ceil and floor use apd's Ceil and Floor: Quantize with a directed
	// rounding loses it when every digit is dropped (ceil(0.0000001) = 0).
	for name, f := range map[string]func(c *apd.Context, r, x *apd.Decimal) (apd.Condition, error){
		"ceil": (*apd.Context).Ceil, "ceiling": (*apd.Context).Ceil, "floor": (*apd.Context).Floor,
	} {
		fn(name, n, numericCeilFloor(f), n)
	}
	fn("round", n, numericRound(apd.RoundHalfUp, true), n, i4)
	fn("trunc", n, numericRound(apd.RoundDown, true), n, i4)
	fn("sign", n, numFn(func(r, x *apd.Decimal) error { r.SetInt64(int64(x.Sign())); return nil }), n)
	fn("sqrt", f8, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].Float() < 0 {
			return repr.Null, repr.Errorf("2201F", "cannot take square root of a negative number")
		}
		return repr.NewFloat(math.Sqrt(a[0].Float())), nil
	}, f8)
	fn("power", f8, floatPow, f8, f8)
	fn("pow", f8, floatPow, f8, f8)
	registerNumericMath()
	registerFloatMath()
}

func sign(f float64) float64 {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return f
}

func floatFn(f func(float64) float64) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) { return repr.NewFloat(f(a[0].Float())), nil }
}

func numFn(f func(r, x *apd.Decimal) error) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if isNaN(a[0].Numeric()) {
			return a[0], nil
		}
		var r apd.Decimal
		if err := f(&r, a[0].Numeric()); err != nil {
			return repr.Null, err
		}
		return repr.NewNumeric(&r), nil
	}
}

// numericCeilFloor is ceil or floor of a numeric (scale 0; -0 is 0).
func numericCeilFloor(f func(c *apd.Context, r, x *apd.Decimal) (apd.Condition, error)) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		x := a[0].Numeric()
		if x.Form != apd.Finite {
			return a[0], nil
		}
		var r apd.Decimal
		if _, err := f(roundCtx, &r, x); err != nil {
			return repr.Null, errNumOverflow()
		}
		if r.Exponent < 0 {
			_, _ = roundCtx.Quantize(&r, &r, 0)
		}
		if r.IsZero() {
			r.Negative = false
		}
		return repr.NewNumeric(&r), nil
	}
}

// numericRound rounds to scale digits (the second argument, or 0) with
// mode; a negative scale rounds left of the point (round(1234, -2) = 1200).
// The result keeps the requested non-negative scale, as PostgreSQL prints it.
func numericRound(mode apd.Rounder, withScale bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		x := a[0].Numeric()
		if x.Form != apd.Finite {
			return a[0], nil
		}
		scale := int64(0)
		if withScale {
			scale = max(min(a[1].Int(), 16383), -131072)
		}
		c := *roundCtx
		c.Rounding = mode
		var r apd.Decimal
		if _, err := c.Quantize(&r, x, int32(-scale)); err != nil {
			return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
		}
		if scale < 0 {
			if _, err := c.Quantize(&r, &r, 0); err != nil {
				return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
			}
		}
		if r.IsZero() {
			r.Negative = false
		}
		return repr.NewNumeric(&r), nil
	}
}
