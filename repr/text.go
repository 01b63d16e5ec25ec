package repr

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Text format: PostgreSQL's type output and input functions under the
// session settings Eddy fixes (DateStyle ISO, MDY; bytea_output hex) and,
// unless a TextStyle says otherwise, IntervalStyle postgres and
// extra_float_digits 1, i.e. shortest round-trip floats.
// Time zones come in as loc; nil means UTC.

// FormatText returns the text form of d as PostgreSQL's output function for
// t prints it. NULL formats as "" (callers check IsNull).
func FormatText(d Datum, t T, loc *time.Location) string {
	return string(AppendText(nil, d, t, loc))
}

// AppendText appends the text form of d (see FormatText) to buf.
func AppendText(buf []byte, d Datum, t T, loc *time.Location) []byte {
	return AppendTextStyle(buf, d, t, TextStyle{Loc: loc})
}

// TextStyle is what output functions read beyond the value: the session's
// time zone and output settings. The zero value is UTC and PostgreSQL's
// defaults.
type TextStyle struct {
	Loc *time.Location
	// FloatDigits is extra_float_digits minus 1 (so that 0 is the default,
	// 1): at 0 and above floats print in the fewest digits that round-trip;
	// below, as C's %.*g with 15 + extra_float_digits significant digits
	// (6 + extra_float_digits for real, at least 1), as float8out and
	// float4out do.
	FloatDigits int8
	// Interval is IntervalStyle: how intervals print.
	Interval IntervalStyle
}

// ExtraFloatDigits returns the style's extra_float_digits.
func (st TextStyle) ExtraFloatDigits() int { return int(st.FloatDigits) + 1 }

// FormatTextStyle is FormatText in style st.
func FormatTextStyle(d Datum, t T, st TextStyle) string {
	return string(AppendTextStyle(nil, d, t, st))
}

// AppendTextStyle appends the text form of d in style st to buf.
func AppendTextStyle(buf []byte, d Datum, t T, st TextStyle) []byte {
	loc := st.Loc
	switch d.fam {
	case FamUnknown:
		return buf
	case FamBool:
		if d.i != 0 {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case FamInt:
		return strconv.AppendInt(buf, d.i, 10)
	case FamFloat:
		if st.FloatDigits < 0 {
			return appendFloatDigits(buf, d.Float(), floatWidth(t), st.ExtraFloatDigits())
		}
		return appendFloatText(buf, d.Float(), floatWidth(t))
	case FamNumeric:
		return appendNumericText(buf, d.dec)
	case FamText, FamJSONB, FamJSON, FamJSONPath:
		return append(buf, d.s...)
	case FamUUID:
		return appendUUID(buf, d.s)
	case FamEnum:
		return append(buf, d.EnumLabel().Label...)
	case FamBytea:
		buf = append(buf, '\\', 'x')
		return hex.AppendEncode(buf, []byte(d.s))
	case FamDate:
		return appendDate(buf, d.Date())
	case FamTime:
		return appendTimeOfDay(buf, d.i)
	case FamTimestamp:
		return appendTimestamp(buf, d.i)
	case FamTimestampTZ:
		return appendTimestampTZ(buf, d.i, loc)
	case FamInterval:
		return appendIntervalStyle(buf, d.Interval(), st.Interval)
	case FamArray:
		return appendArrayText(buf, d, t, st)
	case FamRecord:
		return appendRecordText(buf, d, st)
	case FamBit:
		return appendBitsText(buf, d)
	}
	return buf
}

// floatWidth is 32 for real and 64 otherwise (including an unknown t).
func floatWidth(t T) int {
	if t.Family == FamFloat && t.Width == 32 {
		return 32
	}
	return 64
}

// FloatSpecial is PostgreSQL's text of NaN and the infinities, "" for a
// finite f.
func FloatSpecial(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return ""
}

// appendFloatText prints f with the fewest digits that round-trip at the
// given width, in %g style as PostgreSQL 12+ does: exponent notation when
// the decimal exponent is below -4 or at least 15 (6 for real), with a
// signed, at least two-digit exponent.
func appendFloatText(buf []byte, f float64, bits int) []byte {
	if name := FloatSpecial(f); name != "" {
		return append(buf, name...)
	}
	limit := 15
	if bits == 32 {
		limit = 6
	}
	e := strconv.AppendFloat(nil, f, 'e', -1, bits)
	i := strings.LastIndexByte(string(e), 'e')
	exp, _ := strconv.Atoi(string(e[i+1:]))
	if exp < -4 || exp >= limit {
		return append(buf, e...)
	}
	return strconv.AppendFloat(buf, f, 'f', -1, bits)
}

// appendFloatDigits prints f as float8out (bits 64) or float4out (32) do
// with extra_float_digits extra <= 0: %.*g with 15 + extra (6 + extra)
// significant digits, at least 1. Go's 'g' format with a precision
// matches C's: exponent notation when the exponent is below -4 or at
// least the precision, trailing zeros removed.
func appendFloatDigits(buf []byte, f float64, bits, extra int) []byte {
	if name := FloatSpecial(f); name != "" {
		return append(buf, name...)
	}
	digits := 15 + extra
	if bits == 32 {
		digits = 6 + extra
	}
	return strconv.AppendFloat(buf, f, 'g', max(digits, 1), 64)
}

// ParseText parses s as PostgreSQL's input function for t does, including
// t's modifiers: numeric precision and scale, varchar/char length.
func ParseText(s string, t T, loc *time.Location) (Datum, error) {
	switch t.Family {
	case FamBool:
		return parseBool(s)
	case FamInt:
		i, err := parseInt(s, t)
		return NewInt(i), err
	case FamFloat:
		return parseFloat(s, t)
	case FamNumeric:
		return parseNumeric(s, t)
	case FamText, FamUnknown:
		return parseString(s, t)
	case FamBytea:
		return parseBytea(s)
	case FamDate:
		return parseDate(s, nil)
	case FamTime:
		return parseTimeOfDay(s, nil)
	case FamTimestamp:
		return parseTimestamp(s, false, loc, nil)
	case FamTimestampTZ:
		return parseTimestamp(s, true, loc, nil)
	case FamInterval:
		return parseInterval(s)
	case FamJSONB:
		return ParseJSONB(s)
	case FamUUID:
		return parseUUID(s)
	case FamJSON:
		return ParseJSON(s)
	case FamJSONPath:
		return ParseJSONPath(s)
	case FamArray:
		return parseArray(s, t, loc)
	case FamRecord:
		return Null, Unsupported("input of anonymous composite types")
	case FamBit:
		return parseBits(s, t)
	case FamEnum:
		return parseEnumInternal(s, t)
	}
	return Null, Unsupported("input of type %s", t.Name())
}

// isSpace is PostgreSQL's scanner_isspace / isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// trimSpace strips leading and trailing C-locale whitespace.
func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// parseBool accepts what boolin does: any unique prefix of true, false,
// yes, no; on, off (at least two letters); 1 and 0; case-insensitively,
// with surrounding whitespace.
func parseBool(s string) (Datum, error) {
	v := strings.ToLower(trimSpace(s))
	prefixOf := func(word string, min int) bool {
		return len(v) >= min && len(v) <= len(word) && word[:len(v)] == v
	}
	switch {
	case v == "1", prefixOf("true", 1), prefixOf("yes", 1), prefixOf("on", 2):
		return NewBool(true), nil
	case v == "0", prefixOf("false", 1), prefixOf("no", 1), prefixOf("off", 2):
		return NewBool(false), nil
	}
	return Null, errSyntax(Bool, s)
}

// parseInt accepts optional whitespace, a sign and decimal digits, and
// checks the range of t's width.
func parseInt(s string, t T) (int64, error) {
	v := trimSpace(s)
	digits := strings.TrimLeft(v, "+-")
	if len(v)-len(digits) > 1 || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, errSyntax(t, s)
	}
	if t.OIDKind != NotOID {
		return parseOID(v, t, s)
	}
	i, err := strconv.ParseInt(v, 10, int(intWidth(t)))
	if err != nil {
		return 0, errRange(t, s)
	}
	return i, nil
}

// parseOID reads oid (and reg*) digits as PostgreSQL's oidin does:
// -2147483648 to 4294967295, a negative value standing for itself plus
// 2^32 ('-1040' is 4294966256). An oid datum holds its unsigned value.
func parseOID(v string, t T, s string) (int64, error) {
	i, err := strconv.ParseInt(v, 10, 64)
	if err != nil || i < math.MinInt32 || i > math.MaxUint32 {
		return 0, errRange(t, s)
	}
	if i < 0 {
		i += 1 << 32
	}
	return i, nil
}

// intWidth is t's width, defaulting to 64.
func intWidth(t T) int32 {
	if t.Width == 16 || t.Width == 32 {
		return t.Width
	}
	return 64
}

// parseFloat accepts what float8in/float4in accept: decimal and exponent
// notation, NaN, [+-]Infinity and [+-]inf, with surrounding whitespace.
// Overflow and underflow to zero are 22003.
func parseFloat(s string, t T) (Datum, error) {
	v := trimSpace(s)
	bits := floatWidth(t)
	if v == "" || strings.ContainsRune(v, '_') {
		return Null, errSyntax(t, s)
	}
	if hex := strings.ToLower(strings.TrimLeft(v, "+-")); strings.HasPrefix(hex, "0x") && !strings.ContainsRune(hex, 'p') {
		v += "p0" // C's strtod accepts hex without an exponent; Go needs one
	}
	f, err := strconv.ParseFloat(v, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return Null, errRange(t, s)
		}
		return Null, errSyntax(t, s)
	}
	if f == 0 && hasNonzeroMantissa(v) {
		return Null, errRange(t, s)
	}
	return NewFloat(f), nil
}

// hasNonzeroMantissa reports whether a decimal number's mantissa (before
// any exponent) has a nonzero digit, to detect underflow to zero.
func hasNonzeroMantissa(v string) bool {
	if i := strings.IndexAny(v, "eE"); i >= 0 {
		v = v[:i]
	}
	return strings.ContainsAny(v, "123456789")
}

// parseString validates UTF-8 and applies varchar(n)/char(n): a value
// longer than n characters is 22001 unless the excess is all spaces, which
// is trimmed; char(n) is padded with spaces to n characters.
func parseString(s string, t T) (Datum, error) {
	if !utf8.ValidString(s) {
		return Null, ErrInvalidUTF8(s)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Null, Errorf(codeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x00")
	}
	return fitString(s, t, false)
}

// fitString applies t's length to s: truncation when explicit (an explicit
// cast), otherwise 22001 unless only spaces are cut; char(n) pads.
func fitString(s string, t T, explicit bool) (Datum, error) {
	n := int(t.Length)
	switch {
	case t.Family == FamText && t.Kind == KindQChar:
		return NewText(qcharText(s)), nil
	case t.Family == FamText && t.Kind == KindName && len(s) > 63:
		return NewText(s[:runePrefixBytes(s, 63)]), nil
	case t.Family != FamText || t.Kind == KindText || n <= 0:
		return NewText(s), nil
	}
	if cut := runePrefixLen(s, n); cut < len(s) {
		if !explicit && strings.TrimRight(s[cut:], " ") != "" {
			return Null, Errorf(CodeStringTooLong, "value too long for type %s", t.Name())
		}
		s = s[:cut]
	}
	if t.Kind == KindChar {
		if pad := n - utf8.RuneCountInString(s); pad > 0 {
			s += strings.Repeat(" ", pad)
		}
	}
	return NewText(s), nil
}

// qcharText converts text to a "char" value, kept in its output form, as
// PostgreSQL's charin and text_char read it: `\ooo` (a backslash and three
// octal digits) is that byte, anything else its first byte; the byte
// prints as itself, as `\ooo` when its high bit is set (a lone such byte
// is not UTF-8) and as the empty string when it is zero.
func qcharText(s string) string {
	var b byte
	switch {
	case len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]):
		b = (s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')
	case s != "":
		b = s[0]
	}
	switch {
	case b == 0:
		return ""
	case b >= 0x80:
		return string([]byte{'\\', '0' + b>>6, '0' + b>>3&7, '0' + b&7})
	}
	return string(rune(b))
}

// QCharByte returns the byte a "char" value (as qcharText keeps it)
// stands for.
func QCharByte(s string) byte {
	switch {
	case s == "":
		return 0
	case len(s) == 4 && s[0] == '\\':
		return (s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')
	}
	return s[0]
}

// runePrefixLen returns the byte length of the first n runes of s.
func runePrefixLen(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// parseBytea accepts the hex format (\x followed by hex digit pairs,
// whitespace allowed between pairs) and the escape format (\\ for a
// backslash, \ooo octal, other bytes literally).
func parseBytea(s string) (Datum, error) {
	if strings.HasPrefix(s, `\x`) {
		return parseByteaHex(s[2:])
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c != '\\':
			out = append(out, c)
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && isOctal(s[i+1]) && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return Null, Errorf(CodeInvalidText, "invalid input syntax for type bytea")
		}
	}
	return NewBytea(out), nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// parseByteaHex decodes hex digit pairs, skipping whitespace between pairs.
func parseByteaHex(s string) (Datum, error) {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			i++
			continue
		}
		hi, ok := HexDigit(s[i])
		if !ok {
			return Null, errHexDigit(s[i:])
		}
		if i+1 >= len(s) {
			return Null, Errorf(CodeInvalidParameter, "invalid hexadecimal data: odd number of digits")
		}
		lo, ok := HexDigit(s[i+1])
		if !ok {
			return Null, errHexDigit(s[i+1:])
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return NewBytea(out), nil
}

// errHexDigit reports the first (possibly multibyte) character of s.
func errHexDigit(s string) error {
	_, n := utf8.DecodeRuneInString(s)
	return Errorf(CodeInvalidParameter, "invalid hexadecimal digit: \"%s\"", s[:n])
}

// HexDigit returns the value of the hexadecimal digit c, either case,
// and whether c is one.
func HexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// asciiLower lowercases ASCII letters only, keeping byte offsets intact
// (strings.ToLower rewrites invalid UTF-8 and changes lengths).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
