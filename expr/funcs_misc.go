package expr

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// More everyday functions: encode/decode of bytea (hex, base64, escape),
// the sha2 digests and md5 of bytea, num_nulls/num_nonnulls,
// justify_days/hours/interval, isfinite, gcd/lcm, div and the 3-argument
// date_trunc (in a named time zone).
func init() {
	t, b := repr.Text, repr.Bytea
	fn("encode", t, encodeBytea, b, t)
	fn("decode", b, decodeBytea, t, t)
	fn("md5", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		h := md5.Sum([]byte(a[0].Text()))
		return repr.NewText(hex.EncodeToString(h[:])), nil
	}, b)
	digests := map[string]func([]byte) []byte{
		"sha224": func(p []byte) []byte { h := sha256.Sum224(p); return h[:] },
		"sha256": func(p []byte) []byte { h := sha256.Sum256(p); return h[:] },
		"sha384": func(p []byte) []byte { h := sha512.Sum384(p); return h[:] },
		"sha512": func(p []byte) []byte { h := sha512.Sum512(p); return h[:] },
	}
	for name, h := range digests {
		fn(name, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewBytea(h([]byte(a[0].Text()))), nil
		}, b)
	}
	variadics["num_nulls"] = countNullsFunc("num_nulls", true)
	variadics["num_nonnulls"] = countNullsFunc("num_nonnulls", false)
	iv := repr.IntervalT
	fn("justify_days", iv, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return justify(a[0].Interval(), true, false)
	}, iv)
	fn("justify_hours", iv, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return justify(a[0].Interval(), false, true)
	}, iv)
	fn("justify_interval", iv, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return justify(a[0].Interval(), true, true)
	}, iv)
	for _, ty := range []repr.T{repr.Date, repr.Timestamp, repr.TimestampTZ, iv} {
		fn("isfinite", repr.Bool, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			switch a[0].Family() {
			case repr.FamDate:
				return repr.NewBool(a[0].Date() != repr.DateNegInf && a[0].Date() != repr.DatePosInf), nil
			case repr.FamInterval:
				return repr.NewBool(true), nil
			}
			return repr.NewBool(!isInfTs(a[0].Micros())), nil
		}, ty)
	}
	for _, it := range []repr.T{repr.Int4, repr.Int8} {
		w := it.Width
		fn("gcd", it, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return gcdLcm(a[0].Int(), a[1].Int(), w, false)
		}, it, it)
		fn("lcm", it, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return gcdLcm(a[0].Int(), a[1].Int(), w, true)
		}, it, it)
	}
	fn("div", repr.Numeric, withSpecial('d', numericIntDiv), repr.Numeric, repr.Numeric)
	fn("date_trunc", repr.TimestampTZ, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		loc, err := zoneByName(a[2].Text())
		if err != nil {
			return repr.Null, err
		}
		us, err := dateTrunc(strings.ToLower(a[0].Text()), a[1].Micros(), loc)
		return repr.NewTimestampTZ(us), err
	}, t, repr.TimestampTZ, t)
}

// encodeBytea is encode(bytes, format).
func encodeBytea(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	p := a[0].Text()
	switch strings.ToLower(a[1].Text()) {
	case "hex":
		return repr.NewText(hex.EncodeToString([]byte(p))), nil
	case "base64":
		s := base64.StdEncoding.EncodeToString([]byte(p))
		var out strings.Builder
		for len(s) > 76 {
			out.WriteString(s[:76])
			out.WriteByte('\n')
			s = s[76:]
		}
		out.WriteString(s)
		return checkLen(out.String())
	case "escape":
		var out strings.Builder
		for i := 0; i < len(p); i++ {
			switch c := p[i]; {
			case c == '\\':
				out.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				out.WriteByte('\\')
				out.WriteByte('0' + c>>6)
				out.WriteByte('0' + c>>3&7)
				out.WriteByte('0' + c&7)
			default:
				out.WriteByte(c)
			}
		}
		return checkLen(out.String())
	}
	return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "unrecognized encoding: \"%s\"", a[1].Text())
}

// decodeBytea is decode(text, format).
func decodeBytea(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	s := a[0].Text()
	switch strings.ToLower(a[1].Text()) {
	case "hex":
		return decodeHex(s)
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		for _, r := range clean {
			if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=') {
				return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "invalid symbol \"%c\" found while decoding base64 sequence", r)
			}
		}
		p, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "invalid base64 end sequence").
				WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
		}
		return repr.NewBytea(p), nil
	case "escape":
		return decodeEscape(s)
	}
	return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "unrecognized encoding: \"%s\"", a[1].Text())
}

// decodeHex reads pairs of hex digits, skipping whitespace between pairs.
func decodeHex(s string) (repr.Datum, error) {
	var out []byte
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		hi, ok := repr.HexDigit(c)
		if !ok {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "invalid hexadecimal digit: \"%c\"", c)
		}
		if i+1 >= len(s) {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "invalid hexadecimal data: odd number of digits")
		}
		lo, ok := repr.HexDigit(s[i+1])
		if !ok {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "invalid hexadecimal digit: \"%c\"", s[i+1])
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return repr.NewBytea(out), nil
}

// decodeEscape reads the escape format: \\ is a backslash, \nnn an octal
// byte, other characters themselves.
func decodeEscape(s string) (repr.Datum, error) {
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctalDigit(s[i+2]) && isOctalDigit(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return repr.Null, repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type bytea")
		}
	}
	return repr.NewBytea(out), nil
}

func isOctalDigit(c byte) bool { return c >= '0' && c <= '7' }

// countNullsFunc instantiates num_nulls / num_nonnulls(VARIADIC "any").
func countNullsFunc(name string, nulls bool) func([]repr.T) (*Func, error) {
	return func(args []repr.T) (*Func, error) {
		if len(args) == 0 {
			return nil, funcError(name, args, false)
		}
		sig, _ := textArgs(args)
		return &Func{Name: name, Args: sig, Ret: repr.Int4, Impl: func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			n := 0
			for _, d := range a {
				if d.IsNull() == nulls {
					n++
				}
			}
			return repr.NewInt(int64(n)), nil
		}}, nil
	}
}

// justify moves whole 24-hour periods of the time part into days (hours)
// and whole 30-day periods into months (days), making the signs of the
// parts agree as PostgreSQL's interval_justify_* do.
func justify(iv repr.Interval, days, hours bool) (repr.Datum, error) {
	m, d, us := int64(iv.Months), int64(iv.Days), iv.Micros
	if hours {
		d += us / usPerDay
		us %= usPerDay
	}
	if days {
		m += d / 30
		d %= 30
	}
	if days && hours {
		if m > 0 && (d < 0 || d == 0 && us < 0) {
			d += 30
			m--
		} else if m < 0 && (d > 0 || d == 0 && us > 0) {
			d -= 30
			m++
		}
	}
	if hours {
		if d > 0 && us < 0 {
			us += usPerDay
			d--
		} else if d < 0 && us > 0 {
			us -= usPerDay
			d++
		}
	}
	if m != int64(int32(m)) || d != int64(int32(d)) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
	}
	return repr.NewInterval(repr.Interval{Months: int32(m), Days: int32(d), Micros: us}), nil
}

// gcdLcm is gcd or lcm of two integers of width w (22003 on overflow).
func gcdLcm(a, b int64, w int32, lcm bool) (repr.Datum, error) {
	name := map[int32]string{32: "integer", 64: "bigint"}[w]
	abs := func(x int64) (int64, error) {
		if x < 0 {
			if r, err := subInt(0, x, w); err == nil {
				return r, nil
			}
			return 0, repr.Errorf(repr.CodeNumericOutOfRange, "%s out of range", name)
		}
		return x, nil
	}
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	g, err := abs(x)
	if err != nil {
		return repr.Null, err
	}
	if !lcm {
		return repr.NewInt(g), nil
	}
	if a == 0 || b == 0 {
		return repr.NewInt(0), nil
	}
	r, err := mulInt(a/g, b, w)
	if err != nil {
		return repr.Null, err
	}
	if r, err = abs(r); err != nil {
		return repr.Null, err
	}
	return repr.NewInt(r), nil
}

// numericIntDiv is div(a, b): the quotient truncated toward zero.
func numericIntDiv(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	x, y := a[0].Numeric(), a[1].Numeric()
	if y.IsZero() {
		return repr.Null, repr.Errorf(repr.CodeDivisionByZero, "division by zero")
	}
	var q apd.Decimal
	ctx := apd.BaseContext.WithPrecision(1000)
	if _, err := ctx.QuoInteger(&q, x, y); err != nil {
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
	}
	return repr.NewNumeric(&q), nil
}
