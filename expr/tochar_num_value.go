package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// numText is a value rendered for the numeric template processor: number
// holds the digits (and decimal point) without sign, or the whole output
// for EEEE and RN; prePad is the count of digit positions before the
// number's first digit; sign is '+' or '-' (0 for EEEE and RN).
type numText struct {
	number string
	prePad int
	sign   byte
}

// numInput renders a to_char argument of type t as PostgreSQL's
// int4_to_char, int8_to_char, float4/8_to_char and numeric_to_char do,
// adjusting d (V widens pre, floats cap post at their digits).
func numInput(v repr.Datum, t repr.T, d *numDesc) (numText, error) {
	switch t.Family {
	case repr.FamInt:
		return intInput(v.Int(), t.Width == 64, d)
	case repr.FamFloat:
		return floatInput(v.Float(), t.Width == 32, d), nil
	}
	return numericInput(v.Numeric(), d)
}

// intInput renders an int4 or int8.
func intInput(v int64, wide bool, d *numDesc) (numText, error) {
	switch {
	case d.is(nfRoman):
		if wide && (v < math.MinInt32 || v > math.MaxInt32) {
			return numText{}, repr.Errorf(repr.CodeNumericOutOfRange, "integer out of range")
		}
		return numText{number: toRoman(v)}, nil
	case d.is(nfEEEE):
		if wide {
			return numText{number: spaceSign(sciDecimal(apd.New(v, 0), d.post))}, nil
		}
		return numText{number: spaceSign(strconv.FormatFloat(float64(v), 'e', d.post, 64))}, nil
	}
	if d.is(nfMulti) {
		m := int64(math.Pow(10, float64(d.multi)))
		if wide {
			p := v * m
			if m != 0 && (p/m != v || v == math.MinInt64 && m == -1) {
				return numText{}, repr.Errorf(repr.CodeNumericOutOfRange, "bigint out of range")
			}
			v = p
		} else {
			v = int64(int32(v) * int32(m)) // int4 multiplication wraps in PostgreSQL
		}
		d.pre += d.multi
	}
	s := strconv.FormatInt(v, 10)
	sign := byte('+')
	if v < 0 {
		sign, s = '-', s[1:]
	}
	preLen := len(s)
	if d.post > 0 {
		s += "." + strings.Repeat("0", d.post)
	}
	return padNumber(numText{number: s, sign: sign}, preLen, d), nil
}

// padNumber sets the padding before the digits, or replaces them with #s
// when they do not fit the template.
func padNumber(n numText, preLen int, d *numDesc) numText {
	if preLen < d.pre {
		n.prePad = d.pre - preLen
	} else if preLen > d.pre {
		n.number = strings.Repeat("#", d.pre) + "." + strings.Repeat("#", d.post)
	}
	return n
}

// spaceSign swaps a missing or leading + sign for a space.
func spaceSign(s string) string {
	if strings.HasPrefix(s, "+") {
		return " " + s[1:]
	}
	if !strings.HasPrefix(s, "-") {
		return " " + s
	}
	return s
}

// floatInput renders a float4 or float8 as C's printf does, with at most
// FLT_DIG (6) or DBL_DIG (15) significant digits before rounding.
func floatInput(v float64, narrow bool, d *numDesc) numText {
	switch {
	case d.is(nfRoman):
		r := math.RoundToEven(v)
		if math.IsNaN(r) || r < math.MinInt32 || r > math.MaxInt32 {
			return numText{number: strings.Repeat("#", 15)}
		}
		return numText{number: toRoman(int64(r))}
	case d.is(nfEEEE):
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b := []byte(strings.Repeat("#", d.pre+d.post+6))
			b[0], b[d.pre+1] = ' ', '.'
			return numText{number: string(b)}
		}
		return numText{number: spaceSign(strconv.FormatFloat(v, 'e', d.post, 64))}
	}
	if d.is(nfMulti) {
		m := math.Pow(10, float64(d.multi))
		v *= m
		if narrow {
			v = float64(float32(v))
		}
		d.pre += d.multi
	}
	digits := 15
	if narrow {
		digits = 6
	}
	preLen := len(cFloat(math.Abs(v), 0))
	if preLen >= digits {
		d.post = 0
	} else if preLen+d.post > digits {
		d.post = digits - preLen
	}
	s := cFloat(v, d.post)
	sign := byte('+')
	if strings.HasPrefix(s, "-") {
		sign, s = '-', s[1:]
	}
	return padNumber(numText{number: s, sign: sign}, intDigits(s), d)
}

// cFloat formats v as PostgreSQL's snprintf does "%.*f" (NaN, Infinity
// and -Infinity for the special values).
func cFloat(v float64, prec int) string {
	if name := repr.FloatSpecial(v); name != "" {
		return name
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// intDigits is the length of s before its decimal point.
func intDigits(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return i
	}
	return len(s)
}

// numericInput renders a numeric, rounded half away from zero to the
// template's fraction digits.
func numericInput(v *apd.Decimal, d *numDesc) (numText, error) {
	switch {
	case d.is(nfRoman):
		return numericRoman(v)
	case d.is(nfEEEE):
		if v.Form != apd.Finite {
			b := []byte(strings.Repeat("#", d.pre+d.post+6))
			b[0], b[d.pre+1] = ' ', '.'
			return numText{number: string(b)}, nil
		}
		return numText{number: spaceSign(sciDecimal(v, d.post))}, nil
	}
	var x apd.Decimal
	x.Set(v)
	if d.is(nfMulti) {
		if x.Form == apd.Finite {
			x.Exponent += int32(d.multi)
		}
		d.pre += d.multi
	}
	s := numericPlain(&x, d.post)
	sign := byte('+')
	if strings.HasPrefix(s, "-") {
		sign, s = '-', s[1:]
	}
	return padNumber(numText{number: s, sign: sign}, intDigits(s), d), nil
}

// numericPlain rounds x half away from zero to scale digits and prints it
// as numeric_out does (NaN, Infinity, -Infinity for the special values).
func numericPlain(x *apd.Decimal, scale int) string {
	switch {
	case x.Form == apd.NaN || x.Form == apd.NaNSignaling:
		return "NaN"
	case x.Form == apd.Infinite && x.Negative:
		return "-Infinity"
	case x.Form == apd.Infinite:
		return "Infinity"
	}
	var r apd.Decimal
	ctx := apd.BaseContext.WithPrecision(uint32(x.NumDigits()) + uint32(max(scale, 0)) + uint32(max(x.Exponent, 0)) + 2)
	ctx.Rounding = apd.RoundHalfUp
	_, _ = ctx.Quantize(&r, x, -int32(scale))
	if r.IsZero() {
		r.Negative = false
	}
	return r.Text('f')
}

// sciDecimal prints x as numeric_out_sci: one digit before the point,
// scale digits after it rounded half away from zero, and e±NN.
func sciDecimal(x *apd.Decimal, scale int) string {
	exp := int64(0)
	if !x.IsZero() {
		exp = int64(x.Exponent) + x.NumDigits() - 1
	}
	var sig apd.Decimal
	sig.Set(x)
	sig.Exponent -= int32(exp)
	s := numericPlain(&sig, scale)
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	e := strconv.FormatInt(exp, 10)
	if len(e) < 2 {
		e = "0" + e
	}
	return s + "e" + sign + e
}

// numericRoman rounds a numeric to an int4 for RN.
func numericRoman(v *apd.Decimal) (numText, error) {
	switch v.Form {
	case apd.NaN, apd.NaNSignaling:
		return numText{}, repr.Errorf(repr.CodeFeatureNotSupported, "cannot convert NaN to integer")
	case apd.Infinite:
		return numText{}, repr.Errorf(repr.CodeFeatureNotSupported, "cannot convert infinity to integer")
	}
	s := numericPlain(v, 0)
	i, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return numText{}, repr.Errorf(repr.CodeNumericOutOfRange, "integer out of range")
	}
	return numText{number: toRoman(i)}, nil
}

// toRoman prints 1..3999 in roman numerals, else 15 #s.
func toRoman(v int64) string {
	if v < 1 || v > 3999 {
		return strings.Repeat("#", 15)
	}
	ones := []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	tens := []string{"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	huns := []string{"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	return strings.Repeat("M", int(v/1000)) + huns[v/100%10] + tens[v/10%10] + ones[v%10]
}
