package expr

import (
	"math"

	"github.com/eddydb/eddy/repr"
)

// Float8 mathematical functions as PostgreSQL's float.c: exp, ln, log,
// cbrt, trigonometry in radians and (exact at the usual angles) degrees,
// hyperbolic functions, and the prefix operators |/ (sqrt), ||/ (cbrt)
// and @ (abs). Out-of-domain inputs raise 22003 "input is out of range"
// or 2201E; finite inputs overflowing raise 22003.

// radiansPerDegree is a variable, not a constant: the degree functions'
// scale factors (sin30, ...) must round exactly as their runtime
// arguments do, or sind(30) misses 0.5 by an ulp.
var radiansPerDegree = 0.0174532925199432957692

func errInputRange() error { return repr.Errorf(repr.CodeNumericOutOfRange, "input is out of range") }

// registerFloatMath runs after sqrt and abs are registered (funcs_math.go).
func registerFloatMath() {
	f8 := repr.Float8
	f1 := func(name string, f func(x float64) (float64, error)) {
		fn(name, f8, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			r, err := f(a[0].Float())
			if err != nil {
				return repr.Null, err
			}
			return repr.NewFloat(r), nil
		}, f8)
	}
	f1("exp", floatExp)
	f1("ln", func(x float64) (float64, error) { return floatLog(x, math.Log) })
	f1("log", func(x float64) (float64, error) { return floatLog(x, math.Log10) })
	f1("log10", func(x float64) (float64, error) { return floatLog(x, math.Log10) })
	f1("cbrt", func(x float64) (float64, error) { return math.Cbrt(x), nil })
	for name, f := range map[string]func(float64) (float64, error){
		"sin": finiteIn(math.Sin), "cos": finiteIn(math.Cos), "tan": finiteIn(math.Tan),
		"cot":  finiteIn(func(x float64) float64 { return 1 / math.Tan(x) }),
		"asin": unitIn(math.Asin), "acos": unitIn(math.Acos), "atan": plain(math.Atan),
		"sinh": plain(math.Sinh), "cosh": plain(math.Cosh), "tanh": plain(math.Tanh),
		"asinh": plain(math.Asinh), "acosh": acosh, "atanh": atanh,
		"degrees": plain(func(x float64) float64 { return x / radiansPerDegree }),
		"radians": plain(func(x float64) float64 { return x * radiansPerDegree }),
		"sind":    sind, "cosd": cosd, "tand": tand, "cotd": cotd,
		"asind": asind, "acosd": acosd, "atand": plain(atand),
	} {
		f1(name, f)
	}
	fn("pi", f8, func(*Ctx, []repr.Datum) (repr.Datum, error) { return repr.NewFloat(math.Pi), nil })
	fn("atan2", f8, floatFn2(math.Atan2), f8, f8)
	fn("atan2d", f8, floatFn2(func(y, x float64) float64 { return math.Atan2(y, x) / atan1 * 45 }), f8, f8)
	register(prefixOps, "|/", f8, functions["sqrt"][0].Impl, f8)
	register(prefixOps, "||/", f8, functions["cbrt"][0].Impl, f8)
	for _, t := range numericTypes {
		register(prefixOps, "@", t, lookupAbs(t), t)
	}
}

// lookupAbs is the registered abs of type t.
func lookupAbs(t repr.T) implFn {
	for _, f := range functions["abs"] {
		if f.Args[0] == t {
			return f.Impl
		}
	}
	panic("expr: no abs for " + t.String())
}

func floatFn2(f func(x, y float64) float64) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewFloat(f(a[0].Float(), a[1].Float())), nil
	}
}

func plain(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) { return f(x), nil }
}

// finiteIn rejects infinite inputs (sin, cos, tan, cot).
func finiteIn(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if math.IsInf(x, 0) {
			return 0, errInputRange()
		}
		return f(x), nil
	}
}

// unitIn rejects inputs outside [-1, 1] (asin, acos).
func unitIn(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputRange()
		}
		return f(x), nil
	}
}

func acosh(x float64) (float64, error) {
	if x < 1 {
		return 0, errInputRange()
	}
	return math.Acosh(x), nil
}

func atanh(x float64) (float64, error) {
	if x < -1 || x > 1 {
		return 0, errInputRange()
	}
	return math.Atanh(x), nil // ±Inf at ±1
}

// floatExp is dexp: exp(-Inf) = 0; overflow and underflow of finite
// inputs are 22003.
func floatExp(x float64) (float64, error) {
	switch {
	case math.IsNaN(x):
		return x, nil
	case math.IsInf(x, 1):
		return x, nil
	case math.IsInf(x, -1):
		return 0, nil
	}
	r := math.Exp(x)
	if math.IsInf(r, 0) {
		return 0, repr.Errorf(repr.CodeNumericOutOfRange, "value out of range: overflow")
	}
	if r == 0 {
		return 0, repr.Errorf(repr.CodeNumericOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

// floatLog is dlog1/dlog10: 2201E for zero and negative inputs.
func floatLog(x float64, f func(float64) float64) (float64, error) {
	switch {
	case x == 0:
		return 0, errLogZero
	case x < 0:
		return 0, errLogNegative
	}
	return f(x), nil
}

// The degree functions follow PostgreSQL: reduce to the first quadrant
// and scale so that 30, 45, 60 and 90 degrees give exact results.
var (
	sin30         = math.Sin(float64(30) * radiansPerDegree)
	oneMinusCos60 = 1 - math.Cos(float64(60)*radiansPerDegree)
	asin05        = math.Asin(0.5)
	acos05        = math.Acos(0.5)
	atan1         = math.Atan(1)
	tan45         = sindQ1(45) / cosdQ1(45)
	cot45         = cosdQ1(45) / sindQ1(45)
)

func sind0to30(x float64) float64 { return math.Sin(x*radiansPerDegree) / sin30 / 2 }
func cosd0to60(x float64) float64 {
	return 1 - ((1-math.Cos(x*radiansPerDegree))/oneMinusCos60)/2
}

func sindQ1(x float64) float64 {
	if x <= 30 {
		return sind0to30(x)
	}
	return cosd0to60(90 - x)
}

func cosdQ1(x float64) float64 {
	if x <= 60 {
		return cosd0to60(x)
	}
	return sind0to30(90 - x)
}

// degQ1 reduces x (degrees, finite) to [0, 90] and the sign of the
// function there; odd says whether the function is odd (sin, tan) or
// even (cos) about 0, and flip90 whether x > 90 flips the sign (all but sin).
func degQ1(x float64, odd, flip90 bool) (float64, float64) {
	x = math.Mod(x, 360)
	sign := 1.0
	if x < 0 {
		x = -x
		if odd {
			sign = -sign
		}
	}
	if x > 180 {
		x = 360 - x
		if odd {
			sign = -sign
		}
	}
	if x > 90 {
		x = 180 - x
		if flip90 {
			sign = -sign
		}
	}
	return x, sign
}

func degIn(x float64) (float64, bool, error) {
	if math.IsNaN(x) {
		return x, true, nil
	}
	if math.IsInf(x, 0) {
		return 0, true, errInputRange()
	}
	return x, false, nil
}

func sind(x float64) (float64, error) {
	if r, done, err := degIn(x); done {
		return r, err
	}
	q, s := degQ1(x, true, false)
	return s * sindQ1(q), nil
}

func cosd(x float64) (float64, error) {
	if r, done, err := degIn(x); done {
		return r, err
	}
	q, s := degQ1(x, false, true)
	return s * cosdQ1(q), nil
}

func tand(x float64) (float64, error) {
	if r, done, err := degIn(x); done {
		return r, err
	}
	q, s := degQ1(x, true, true)
	return noNegZero(s * (sindQ1(q) / cosdQ1(q) / tan45)), nil
}

func cotd(x float64) (float64, error) {
	if r, done, err := degIn(x); done {
		return r, err
	}
	q, s := degQ1(x, true, true)
	return noNegZero(s * (cosdQ1(q) / sindQ1(q) / cot45)), nil
}

func noNegZero(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

func asindQ1(x float64) float64 {
	if x <= 0.5 {
		return math.Asin(x) / asin05 * 30
	}
	return 90 - math.Acos(x)/acos05*60
}

func acosdQ1(x float64) float64 {
	if x <= 0.5 {
		return 90 - math.Asin(x)/asin05*30
	}
	return math.Acos(x) / acos05 * 60
}

func asind(x float64) (float64, error) {
	switch {
	case math.IsNaN(x):
		return x, nil
	case x < -1 || x > 1:
		return 0, errInputRange()
	case x >= 0:
		return asindQ1(x), nil
	}
	return -asindQ1(-x), nil
}

func acosd(x float64) (float64, error) {
	switch {
	case math.IsNaN(x):
		return x, nil
	case x < -1 || x > 1:
		return 0, errInputRange()
	case x >= 0:
		return acosdQ1(x), nil
	}
	return 90 + asindQ1(-x), nil
}

func atand(x float64) float64 { return math.Atan(x) / atan1 * 45 }
