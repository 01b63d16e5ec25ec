package expr

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// to_char(number, template) with PostgreSQL's numeric template patterns
// 9 (digit, blank when a leading zero), 0 (digit), . and D (decimal point),
// , and G (group separator), S (sign, leading or trailing), MI (trailing
// minus), PR (angle brackets for negatives) and the FM prefix (no padding,
// no trailing zeros in 9 positions). The value is rounded half away from
// zero to the template's fraction digits; a value too wide prints # in
// every digit position. Without S, MI or PR, a column before the first
// digit holds the sign (a space when positive). Other patterns (PL, SG, L,
// EEEE, RN, V, TH, literal text) are 0A000.
func init() {
	for _, ty := range []repr.T{repr.Int4, repr.Int8, repr.Numeric, repr.Float4, repr.Float8} {
		fn("to_char", repr.Text, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			d, ok := numericOf(a[0], ty)
			if !ok {
				return repr.Null, repr.Unsupported("to_char of NaN or infinity")
			}
			tp, err := parseNumTemplate(a[1].Text())
			if err != nil {
				return repr.Null, err
			}
			// Floats round half to even, as C's printf does for PostgreSQL.
			tp.halfEven = ty.Family == repr.FamFloat
			return repr.NewText(tp.format(d)), nil
		}, ty, repr.Text)
	}
}

// numericOf converts an int, float or numeric datum to a finite decimal.
func numericOf(d repr.Datum, t repr.T) (*apd.Decimal, bool) {
	switch t.Family {
	case repr.FamInt:
		return apd.New(d.Int(), 0), true
	case repr.FamFloat:
		bits := 64
		if t.Width == 32 {
			bits = 32
		}
		dec, _, err := apd.NewFromString(strconv.FormatFloat(d.Float(), 'f', -1, bits))
		return dec, err == nil
	}
	n := d.Numeric()
	return n, n.Form == apd.Finite
}

// numTemplate is a parsed numeric template.
type numTemplate struct {
	intPart   []byte // '9', '0' or ',' per integer position
	frac      []byte // '9' or '0' per fraction digit
	point, fm bool
	sign      string // "", "S<", "S>", "MI", "PR"
	halfEven  bool   // round half to even (floats) instead of away from zero
}

func parseNumTemplate(s string) (*numTemplate, error) {
	tp := &numTemplate{}
	up := strings.ToUpper(s)
	for i := 0; i < len(up); i++ {
		c := up[i]
		switch {
		case strings.HasPrefix(up[i:], "FM"):
			tp.fm = true
			i++
		case c == '9' || c == '0':
			if tp.point {
				tp.frac = append(tp.frac, c)
			} else {
				tp.intPart = append(tp.intPart, c)
			}
		case (c == '.' || c == 'D') && !tp.point:
			tp.point = true
		case (c == ',' || c == 'G') && !tp.point:
			tp.intPart = append(tp.intPart, ',')
		case c == 'S' && tp.sign == "":
			tp.sign = "S<"
			if len(tp.intPart) > 0 || tp.point {
				tp.sign = "S>"
			}
		case strings.HasPrefix(up[i:], "MI") && tp.sign == "":
			tp.sign = "MI"
			i++
		case strings.HasPrefix(up[i:], "PR") && tp.sign == "" && i+2 == len(up):
			tp.sign = "PR"
			i++
		default:
			return nil, repr.Unsupported("to_char numeric template %q (Eddy supports 9 0 . D , G S MI PR FM)", s)
		}
	}
	return tp, nil
}

// format renders d with the template.
func (tp *numTemplate) format(d *apd.Decimal) string {
	neg := d.Negative && !d.IsZero()
	var r apd.Decimal
	ctx := apd.BaseContext.WithPrecision(1000)
	ctx.Rounding = apd.RoundHalfUp
	if tp.halfEven {
		ctx.Rounding = apd.RoundHalfEven
	}
	_, _ = ctx.Quantize(&r, d, -int32(len(tp.frac)))
	r.Negative = false
	digits := r.Coeff.String()
	for len(digits) < len(tp.frac)+1 {
		digits = "0" + digits
	}
	intStr := strings.TrimLeft(digits[:len(digits)-len(tp.frac)], "0")
	fracStr := digits[len(digits)-len(tp.frac):]
	neg = neg && !(r.IsZero())
	nDigits := strings.Count(string(tp.intPart), "9") + strings.Count(string(tp.intPart), "0")
	if len(intStr) > nDigits {
		return tp.overflow(neg)
	}
	frac := []byte(fracStr)
	if tp.fm {
		n := len(frac)
		for n > 0 && tp.frac[n-1] == '9' && frac[n-1] == '0' {
			n--
		}
		frac = frac[:n]
	}
	ints := tp.renderInt(intStr, len(frac) == 0)
	var b strings.Builder
	body := ints
	if tp.point {
		body += "." + string(frac)
	}
	lead := len(body) - len(strings.TrimLeft(body, " "))
	if tp.fm {
		lead = 0
		body = strings.TrimLeft(body, " ")
	}
	b.WriteString(body[:lead])
	rest := body[lead:]
	switch tp.sign {
	case "":
		b.WriteString(map[bool]string{true: "-", false: map[bool]string{true: "", false: " "}[tp.fm]}[neg])
		b.WriteString(rest)
	case "S<":
		b.WriteString(map[bool]string{true: "-", false: "+"}[neg])
		b.WriteString(rest)
	case "S>":
		b.WriteString(rest)
		b.WriteString(map[bool]string{true: "-", false: "+"}[neg])
	case "MI":
		b.WriteString(rest)
		if neg {
			b.WriteString("-")
		} else if !tp.fm {
			b.WriteString(" ")
		}
	case "PR":
		if neg {
			b.WriteString("<" + rest + ">")
		} else if tp.fm {
			b.WriteString(rest)
		} else {
			b.WriteString(" " + rest + " ")
		}
	}
	return b.String()
}

// renderInt renders the integer positions right to left: digits, zeros
// from the first 0 of the template on, blanks before; a group separator
// shows only with a digit to its left. With no digit printed at all, the
// last position shows 0.
func (tp *numTemplate) renderInt(intStr string, noFrac bool) string {
	zeroFrom := strings.IndexByte(string(tp.intPart), '0')
	if zeroFrom < 0 {
		zeroFrom = len(tp.intPart)
	}
	out := make([]byte, len(tp.intPart))
	k := len(intStr)
	printed := func(i int) bool { return k > 0 || i > zeroFrom } // a digit prints left of i
	for i := len(tp.intPart) - 1; i >= 0; i-- {
		switch c := tp.intPart[i]; {
		case c == ',':
			if printed(i) {
				out[i] = ','
			} else {
				out[i] = ' '
			}
		case k > 0:
			k--
			out[i] = intStr[k]
		case i >= zeroFrom:
			out[i] = '0'
		default:
			out[i] = ' '
		}
	}
	if intStr == "" && zeroFrom == len(tp.intPart) && (noFrac || !tp.point) {
		for i := len(out) - 1; i >= 0; i-- {
			if tp.intPart[i] != ',' {
				out[i] = '0'
				break
			}
		}
	}
	return string(out)
}

// overflow prints # in every digit position.
func (tp *numTemplate) overflow(neg bool) string {
	hashes := func(p []byte) string {
		s := []byte(strings.ReplaceAll(strings.ReplaceAll(string(p), "9", "#"), "0", "#"))
		return string(s)
	}
	body := hashes(tp.intPart)
	if tp.point {
		body += "." + hashes(tp.frac)
	}
	switch tp.sign {
	case "S<":
		return map[bool]string{true: "-", false: "+"}[neg] + body
	case "S>":
		return body + map[bool]string{true: "-", false: "+"}[neg]
	case "MI":
		if tp.fm && !neg {
			return body
		}
		return body + map[bool]string{true: "-", false: " "}[neg]
	case "PR":
		if neg {
			return "<" + body + ">"
		}
		return " " + body + " "
	}
	if tp.fm && !neg {
		return body
	}
	return map[bool]string{true: "-", false: " "}[neg] + body
}
