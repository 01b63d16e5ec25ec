package repr

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Numeric values follow PostgreSQL: a decimal with a display scale (the
// number of digits after the point, never negative: 1e3 is 1000), NaN and
// ±Infinity, and no negative zero. Invariant of every numeric datum this
// package produces: Exponent <= 0 for finite values, and zero is positive.

// numericCtx is the context for numeric arithmetic and rounding: precision
// large enough for PostgreSQL's 131072 digits before the point.
var numericCtx = apd.Context{
	Precision:   2000,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfUp,
	Traps:       apd.DefaultTraps &^ apd.Inexact &^ apd.Rounded,
}

// parseNumeric accepts [sign] digits [. digits] [e [sign] digits], NaN,
// [+-]Infinity and [+-]inf, with surrounding whitespace, then applies t's
// precision and scale.
func parseNumeric(s string, t T) (Datum, error) {
	v := trimSpace(s)
	d, ok := parseDecimal(v)
	if !ok {
		return Null, errSyntax(t, s)
	}
	return fitOwnedNumeric(d, t)
}

// parseDecimal parses PostgreSQL's numeric syntax into a normalized decimal.
func parseDecimal(v string) (*apd.Decimal, bool) {
	switch strings.ToLower(v) {
	case "nan":
		return &apd.Decimal{Form: apd.NaN}, true
	case "infinity", "+infinity", "inf", "+inf":
		return &apd.Decimal{Form: apd.Infinite}, true
	case "-infinity", "-inf":
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, true
	}
	if !validDecimalSyntax(v) {
		return nil, false
	}
	if d, ok := parseShortDecimal(v); ok {
		return d, true
	}
	d, _, err := apd.NewFromString(v)
	if err != nil {
		return nil, false
	}
	return normalizeNumeric(d), true
}

// parseShortDecimal parses v, valid decimal syntax, when it is
// [sign] digits [. digits] of at most 18 digits (the common case: table
// data, literals) into a normalized decimal with one allocation; apd's
// general parser costs three. ok is false for any other v.
func parseShortDecimal(v string) (*apd.Decimal, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	var coeff int64
	digits, frac := 0, -1
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			coeff = coeff*10 + int64(c-'0')
			digits++
		case c == '.' && frac < 0:
			frac = i
		default:
			return nil, false // an exponent
		}
	}
	if digits > 18 {
		return nil, false
	}
	exp := int32(0)
	if frac >= 0 {
		exp = -int32(len(v) - frac - 1)
	}
	if neg {
		coeff = -coeff
	}
	return new(apd.Decimal).SetFinite(coeff, exp), true
}

// validDecimalSyntax checks [sign] digits [. digits] [e [sign] digits] with
// at least one digit in the mantissa.
func validDecimalSyntax(v string) bool {
	i, n := 0, len(v)
	if i < n && (v[i] == '+' || v[i] == '-') {
		i++
	}
	digits := 0
	for ; i < n && isDigit(v[i]); i++ {
		digits++
	}
	if i < n && v[i] == '.' {
		for i++; i < n && isDigit(v[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < n && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < n && (v[i] == '+' || v[i] == '-') {
			i++
		}
		start := i
		for ; i < n && isDigit(v[i]); i++ {
		}
		if i == start || i-start > 9 {
			return false
		}
	}
	return i == n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// normalizeNumeric establishes the numeric invariant in place: a positive
// exponent is folded into the coefficient (scale 0) and -0 becomes 0.
func normalizeNumeric(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite {
		if d.Form == apd.NaNSignaling || d.Form == apd.NaN {
			d.Negative = false
			d.Form = apd.NaN
		}
		return d
	}
	if d.Exponent > 0 {
		var r apd.Decimal
		_, _ = numericCtx.Quantize(&r, d, 0)
		*d = r
	}
	if d.IsZero() {
		d.Negative = false
	}
	return d
}

// fitNumeric rounds d to t's scale (half away from zero) and checks that it
// fits t's precision: 22003 "numeric field overflow" otherwise. An
// unconstrained t returns d unchanged.
func fitNumeric(d *apd.Decimal, t T) (Datum, error) {
	if t.Family != FamNumeric || t.Precision <= 0 {
		return NewNumeric(d), nil
	}
	return quantizeNumeric(new(apd.Decimal), d, t)
}

// fitOwnedNumeric is fitNumeric of a decimal no one else holds (just
// parsed), rounded in place instead of into a new one.
func fitOwnedNumeric(d *apd.Decimal, t T) (Datum, error) {
	if t.Family != FamNumeric || t.Precision <= 0 {
		return NewNumeric(d), nil
	}
	return quantizeNumeric(d, d, t)
}

// quantizeNumeric is fitNumeric for a t with a precision, rounding d into
// r (which may be d).
func quantizeNumeric(r, d *apd.Decimal, t T) (Datum, error) {
	p, s := t.Precision, t.Scale
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return NewNumeric(d), nil
	case apd.Infinite:
		return Null, Errorf(CodeNumericOutOfRange, "numeric field overflow").WithDetail(
			"A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	if _, err := numericCtx.Quantize(r, d, -s); err != nil {
		return Null, numericOverflow(p, s)
	}
	normalizeNumeric(r)
	if !r.IsZero() && int64(r.NumDigits())+int64(r.Exponent) > int64(p-s) {
		return Null, numericOverflow(p, s)
	}
	return NewNumeric(r), nil
}

// numericOverflow is PostgreSQL's typmod overflow error.
func numericOverflow(p, s int32) error {
	return Errorf(CodeNumericOutOfRange, "numeric field overflow").WithDetail(
		"A field with precision %d, scale %d must round to an absolute value less than %s%d.", p, s, "10^", p-s)
}

// appendNumericText prints d in plain notation with its display scale.
func appendNumericText(buf []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(buf, "NaN"...)
	case apd.Infinite:
		if d.Negative {
			return append(buf, "-Infinity"...)
		}
		return append(buf, "Infinity"...)
	}
	if d.IsZero() && d.Negative {
		c := *d
		c.Negative = false
		d = &c
	}
	return append(buf, d.Text('f')...)
}

// NumericFromInt returns the numeric datum with integer value i.
func NumericFromInt(i int64) Datum { return NewNumeric(apd.New(i, 0)) }

// ParseNumeric parses numeric text (as numeric_in does, without typmod).
func ParseNumeric(s string) (*apd.Decimal, error) {
	d, err := parseNumeric(s, Numeric)
	if err != nil {
		return nil, err
	}
	return d.dec, nil
}
