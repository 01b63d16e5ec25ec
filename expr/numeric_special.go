package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// numericSpecial is PostgreSQL's arithmetic (+ - * / % and div) when an
// operand is NaN or ±Infinity: NaN in, NaN out; Inf - Inf, Inf * 0,
// Inf / Inf and Inf % y are NaN; x / Inf and div(x, Inf) are 0; x % Inf
// is x; an infinite or NaN-free division by zero is 22012. ok is false
// when both operands are finite (the caller computes).
func numericSpecial(op byte, x, y *apd.Decimal) (r *apd.Decimal, ok bool, err error) {
	if x.Form == apd.Finite && y.Form == apd.Finite {
		return nil, false, nil
	}
	if isNaN(x) || isNaN(y) {
		return numNaN, true, nil
	}
	sx, sy := signOf(x), signOf(y)
	xinf, yinf := x.Form == apd.Infinite, y.Form == apd.Infinite
	switch op {
	case '+', '-':
		if op == '-' {
			sy = -sy
		}
		switch {
		case xinf && yinf && sx != sy:
			return numNaN, true, nil
		case xinf:
			return infOfSign(sx), true, nil
		}
		return infOfSign(sy), true, nil
	case '*':
		if sx*sy == 0 {
			return numNaN, true, nil
		}
		return infOfSign(sx * sy), true, nil
	case '/', 'd':
		switch {
		case xinf && yinf:
			return numNaN, true, nil
		case xinf && sy == 0:
			return nil, true, repr.ErrDivisionByZero.New()
		case xinf:
			return infOfSign(sx * sy), true, nil
		}
		return numZero, true, nil
	case '%':
		switch {
		case xinf && sy == 0:
			return nil, true, repr.ErrDivisionByZero.New()
		case xinf:
			return numNaN, true, nil
		}
		return x, true, nil
	}
	return nil, false, nil
}

// signOf is -1, 0 or 1 for a non-NaN numeric.
func signOf(x *apd.Decimal) int {
	if x.Form == apd.Infinite {
		if x.Negative {
			return -1
		}
		return 1
	}
	return x.Sign()
}

func infOfSign(s int) *apd.Decimal {
	if s < 0 {
		return numNInf
	}
	return numPInf
}

// withSpecial wraps a finite numeric operator impl with numericSpecial.
func withSpecial(op byte, impl implFn) implFn {
	return func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, ok, err := numericSpecial(op, a[0].Numeric(), a[1].Numeric())
		switch {
		case err != nil:
			return repr.Null, err
		case ok:
			return repr.NewNumeric(r), nil
		}
		return impl(ctx, a)
	}
}
