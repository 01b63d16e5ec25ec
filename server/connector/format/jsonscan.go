package format

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
)

// maxDepth bounds the nesting of JSON values, as repr.ParseJSONB does, so
// hostile input cannot exhaust the stack.
const maxDepth = 10000

// valueKind is the kind of a scanned JSON value.
type valueKind uint8

// The JSON value kinds; their names are jsonb's (PostgreSQL's error
// messages name them).
const (
	vNull valueKind = iota
	vFalse
	vTrue
	vNumber
	vString
	vObject
	vArray
)

var kindNames = [...]string{"null", "boolean", "boolean", "numeric", "string", "object", "array"}

// scanner is a single-pass JSON scanner over one record. It validates as
// it goes (RFC 8259 grammar, as encoding/json.Valid) and never builds a
// tree: callers walk objects key by key and convert each value in place.
//
// Invariant: i is the offset of the next unread byte of b.
type scanner struct {
	b      []byte
	i      int
	buf    []byte // unescaped string values
	keyBuf []byte // unescaped object keys (a key stays valid while its value is read)
	intOK  bool   // the last number scanned was a plain integer (no fraction, no exponent)
}

// reset starts scanning b.
func (s *scanner) reset(b []byte) { s.b, s.i = b, 0 }

// errSyntax is the 22P02 error for malformed JSON at the current offset.
func (s *scanner) errSyntax() error {
	e := repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type json")
	if s.i >= len(s.b) {
		return e.WithDetail("The input string ended unexpectedly.")
	}
	return e.WithDetail("Unexpected character %q at byte %d.", s.b[s.i], s.i)
}

// ws skips whitespace.
func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// expect consumes the byte c after optional whitespace.
func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return s.errSyntax()
	}
	s.i++
	return nil
}

// end checks that only whitespace remains.
func (s *scanner) end() error {
	if s.peek() != 0 || s.i < len(s.b) {
		return s.errSyntax()
	}
	return nil
}

// nextKey advances to the next key of the object whose '{' was consumed;
// first is true for the first call. It returns ok=false after consuming
// the closing '}'. The key is valid until the next nextKey call.
func (s *scanner) nextKey(first bool) (key []byte, ok bool, err error) {
	c := s.peek()
	switch {
	case c == '}' && first:
		s.i++
		return nil, false, nil
	case !first && c == '}':
		s.i++
		return nil, false, nil
	case !first && c == ',':
		s.i++
		c = s.peek()
	case !first:
		return nil, false, s.errSyntax()
	}
	if c != '"' {
		return nil, false, s.errSyntax()
	}
	s.i++
	if key, s.keyBuf, err = s.str(s.keyBuf); err != nil {
		return nil, false, err
	}
	return key, true, s.expect(':')
}

// value scans one value. For a string it returns the unescaped contents
// (valid until the next value call); for a number its text; for an object
// or array its raw text. start is the offset where the value's raw text
// begins (b[start:i] is the raw text of every kind).
func (s *scanner) value(depth int) (k valueKind, v []byte, start int, err error) {
	c := s.peek()
	start = s.i
	switch {
	case c == '"':
		s.i++
		v, s.buf, err = s.str(s.buf)
		return vString, v, start, err
	case c == '-' || c >= '0' && c <= '9':
		v, err = s.number()
		return vNumber, v, start, err
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return 0, nil, start, repr.Errorf(repr.CodeProgramLimitExceeded, "JSON nesting depth exceeds the maximum of %d", maxDepth)
		}
		k, err = s.composite(depth)
		return k, s.b[start:s.i], start, err
	}
	k, err = s.literal()
	return k, s.b[start:s.i], start, err
}

// literal scans true, false or null.
func (s *scanner) literal() (valueKind, error) {
	for _, l := range [...]struct {
		text string
		k    valueKind
	}{{"true", vTrue}, {"false", vFalse}, {"null", vNull}} {
		if len(s.b)-s.i >= len(l.text) && string(s.b[s.i:s.i+len(l.text)]) == l.text {
			s.i += len(l.text)
			return l.k, nil
		}
	}
	return 0, s.errSyntax()
}

// composite scans (validates and skips) an object or array.
func (s *scanner) composite(depth int) (valueKind, error) {
	if s.b[s.i] == '[' {
		s.i++
		return vArray, s.skipArray(depth + 1)
	}
	s.i++
	for first := true; ; first = false {
		_, ok, err := s.nextKey(first)
		if err != nil || !ok {
			return vObject, err
		}
		if _, _, _, err := s.value(depth + 1); err != nil {
			return vObject, err
		}
	}
}

// skipArray scans the elements of an array whose '[' was consumed.
func (s *scanner) skipArray(depth int) error {
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if _, _, _, err := s.value(depth); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.errSyntax()
		}
	}
}

// number scans a JSON number and records in intOK whether it is a plain
// integer.
func (s *scanner) number() ([]byte, error) {
	start := s.i
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return nil, s.errSyntax()
	}
	s.intOK = true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		s.intOK = false
		if s.digits() == 0 {
			return nil, s.errSyntax()
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		s.intOK = false
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, s.errSyntax()
		}
	}
	return s.b[start:s.i], nil
}

// digits consumes decimal digits and returns how many.
func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// str scans the rest of a string whose opening quote was consumed. Without
// escapes it returns a slice of the input; otherwise it unescapes into buf
// (returned for reuse).
func (s *scanner) str(buf []byte) ([]byte, []byte, error) {
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], buf, nil
		case c == '\\':
			return s.strEscaped(start, buf[:0])
		case c < 0x20:
			return nil, buf, s.errSyntax()
		}
		s.i++
	}
	return nil, buf, s.errSyntax()
}

// strEscaped continues a string at its first backslash, copying the part
// from start into buf and unescaping the rest.
func (s *scanner) strEscaped(start int, buf []byte) ([]byte, []byte, error) {
	buf = append(buf, s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return buf, buf, nil
		case c < 0x20:
			return nil, buf, s.errSyntax()
		case c != '\\':
			buf = append(buf, c)
			s.i++
			continue
		}
		var err error
		if buf, err = s.escape(buf); err != nil {
			return nil, buf, err
		}
	}
	return nil, buf, s.errSyntax()
}

// escape decodes the escape sequence at i (a backslash) onto buf.
func (s *scanner) escape(buf []byte) ([]byte, error) {
	s.i++
	if s.i >= len(s.b) {
		return buf, s.errSyntax()
	}
	c := s.b[s.i]
	s.i++
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
		r, err := s.unicode()
		return utf8.AppendRune(buf, r), err
	}
	s.i--
	return buf, s.errSyntax()
}

// unicode decodes the hex digits of a \u escape (the "\u" consumed),
// combining a surrogate pair; a lone surrogate becomes U+FFFD, as
// encoding/json does.
func (s *scanner) unicode() (rune, error) {
	r, ok := s.hex4()
	if !ok {
		return 0, s.errSyntax()
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if len(s.b)-s.i >= 6 && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
		save := s.i
		s.i += 2
		if r2, ok := s.hex4(); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, nil
			}
		}
		s.i = save
	}
	return utf8.RuneError, nil
}

// hex4 reads four hex digits.
func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}
