package repr

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonb values are stored as their canonical text, the form PostgreSQL
// prints: object keys sorted by length then bytes with the last duplicate
// winning, ", " and ": " separators, numbers as numeric prints them, and
// strings re-escaped (only ", \, and control characters).

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 10000

// jsonValue is a parsed JSON value. kind is one of the jsonb kinds that
// PostgreSQL names in errors: object, array, string, numeric, boolean, null.
type jsonValue struct {
	kind  string
	text  string // string contents, or canonical number/boolean text
	elems []jsonValue
	keys  []string // object keys, parallel to elems
}

// ParseJSONB validates JSON text and returns the jsonb datum holding its
// canonical form. Errors are 22P02 (22P05 for \u0000), as in PostgreSQL.
func ParseJSONB(s string) (Datum, error) {
	if !utf8.ValidString(s) {
		return Null, ErrInvalidUTF8(s)
	}
	p := &jsonParser{s: s}
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if p.i < len(p.s) {
			err = p.unexpected()
		}
	}
	if err != nil {
		return Null, err
	}
	return NewJSONB(string(appendJSON(nil, v))), nil
}

// jsonKind returns the kind of the canonical jsonb text s.
func jsonKind(s string) string {
	if s == "" {
		return "null"
	}
	switch s[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "numeric"
}

type jsonParser struct {
	s string
	i int
}

func errJSON(detail string, args ...any) error {
	return Errorf(CodeInvalidText, "invalid input syntax for type json").WithDetail(detail, args...)
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// token returns the bare token at the cursor, for error messages.
func (p *jsonParser) token() string {
	j := p.i
	for j < len(p.s) && (isAlpha(p.s[j]) || isDigit(p.s[j]) || p.s[j] == '.' || p.s[j] == '-' || p.s[j] == '+' || p.s[j] >= 0x80) {
		j++
	}
	if j == p.i {
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		j = p.i + n
	}
	return p.s[p.i:j]
}

// unexpected reports the token at the cursor, or the end of input.
func (p *jsonParser) unexpected() error {
	if p.i >= len(p.s) {
		return errJSON("The input string ended unexpectedly.")
	}
	return errJSON("Token %q is invalid.", p.token())
}

// value parses one JSON value at nesting depth d.
func (p *jsonParser) value(d int) (jsonValue, error) {
	if d > maxJSONDepth {
		return jsonValue{}, Errorf(CodeProgramLimitExceeded, "stack depth limit exceeded")
	}
	p.skipSpace()
	if p.i >= len(p.s) {
		return jsonValue{}, p.unexpected()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(d)
	case c == '[':
		return p.array(d)
	case c == '"':
		s, err := p.str()
		return jsonValue{kind: "string", text: s}, err
	case c == '-' || isDigit(c):
		return p.number()
	case c == ']' || c == '}' || c == ',' || c == ':':
		return jsonValue{}, errJSON("Expected JSON value, but found %q.", string(c))
	}
	tok := p.token()
	switch tok {
	case "true", "false":
		p.i += len(tok)
		return jsonValue{kind: "boolean", text: tok}, nil
	case "null":
		p.i += len(tok)
		return jsonValue{kind: "null", text: tok}, nil
	}
	return jsonValue{}, p.unexpected()
}

// number parses a JSON number and canonicalizes it as numeric text.
func (p *jsonParser) number() (jsonValue, error) {
	tok := p.token()
	if !validJSONNumber(tok) {
		return jsonValue{}, errJSON("Token %q is invalid.", tok)
	}
	d, ok := parseDecimal(tok)
	if !ok {
		return jsonValue{}, errJSON("Token %q is invalid.", tok)
	}
	p.i += len(tok)
	return jsonValue{kind: "numeric", text: string(appendNumericText(nil, d))}, nil
}

// validJSONNumber checks -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func validJSONNumber(t string) bool {
	t = strings.TrimPrefix(t, "-")
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i == 0 || i > 1 && t[0] == '0' {
		return false
	}
	if i < len(t) && t[i] == '.' {
		j := i + 1
		for i = j; i < len(t) && isDigit(t[i]); i++ {
		}
		if i == j {
			return false
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		j := i
		for ; i < len(t) && isDigit(t[i]); i++ {
		}
		if i == j {
			return false
		}
	}
	return i == len(t)
}

// str parses a string literal at the cursor, decoding escapes.
func (p *jsonParser) str() (string, error) {
	var b strings.Builder
	p.i++ // opening quote
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", errJSON("Character with value 0x%02x must be escaped.", c)
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", errJSON("The input string ended unexpectedly.")
}

// escape decodes one backslash escape, including surrogate pairs.
func (p *jsonParser) escape(b *strings.Builder) error {
	if p.i+1 >= len(p.s) {
		p.i = len(p.s)
		return errJSON("The input string ended unexpectedly.")
	}
	c := p.s[p.i+1]
	if r, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c]; ok {
		b.WriteByte(r)
		p.i += 2
		return nil
	}
	if c != 'u' {
		return errJSON("Escape sequence \"\\%s\" is invalid.", string(c))
	}
	r, err := p.hex4(p.i + 2)
	if err != nil {
		return err
	}
	p.i += 6
	if utf16.IsSurrogate(r) {
		if r >= 0xDC00 || !strings.HasPrefix(p.s[p.i:], `\u`) {
			return Errorf("22P05", "unsupported Unicode escape sequence").WithDetail("Unicode low surrogate must follow a high surrogate.")
		}
		lo, err := p.hex4(p.i + 2)
		if err != nil {
			return err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return Errorf("22P05", "unsupported Unicode escape sequence").WithDetail("Unicode low surrogate must follow a high surrogate.")
		}
		r = utf16.DecodeRune(r, lo)
		p.i += 6
	}
	if r == 0 {
		return Errorf("22P05", "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
	}
	b.WriteRune(r)
	return nil
}

// hex4 reads four hex digits at position i.
func (p *jsonParser) hex4(i int) (rune, error) {
	if i+4 > len(p.s) {
		return 0, errJSON("\"\\u\" must be followed by four hexadecimal digits.")
	}
	v, err := strconv.ParseUint(p.s[i:i+4], 16, 16)
	if err != nil {
		return 0, errJSON("\"\\u\" must be followed by four hexadecimal digits.")
	}
	return rune(v), nil
}

// expect consumes the byte c after optional whitespace.
func (p *jsonParser) expect(c byte) error {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return nil
	}
	if p.i >= len(p.s) {
		return p.unexpected()
	}
	return errJSON("Expected %q, but found %q.", string(c), p.token())
}

// array parses [v, ...].
func (p *jsonParser) array(d int) (jsonValue, error) {
	v := jsonValue{kind: "array"}
	p.i++
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		e, err := p.value(d + 1)
		if err != nil {
			return v, err
		}
		v.elems = append(v.elems, e)
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return v, nil
		}
		if err := p.expect(','); err != nil {
			return v, err
		}
	}
}

// object parses {"k": v, ...}, keeping the last value of duplicate keys
// and sorting keys by length then bytes.
func (p *jsonParser) object(d int) (jsonValue, error) {
	p.i++
	p.skipSpace()
	m := map[string]jsonValue{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return jsonValue{kind: "object"}, nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			if p.i >= len(p.s) {
				return jsonValue{}, p.unexpected()
			}
			return jsonValue{}, errJSON("Expected string, but found %q.", p.token())
		}
		k, err := p.str()
		if err != nil {
			return jsonValue{}, err
		}
		if err := p.expect(':'); err != nil {
			return jsonValue{}, err
		}
		if m[k], err = p.value(d + 1); err != nil {
			return jsonValue{}, err
		}
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return sortedObject(m), nil
		}
		if err := p.expect(','); err != nil {
			return jsonValue{}, err
		}
	}
}

// sortedObject orders an object's keys as jsonb does.
func sortedObject(m map[string]jsonValue) jsonValue {
	v := jsonValue{kind: "object"}
	for k := range m {
		v.keys = append(v.keys, k)
	}
	sort.Slice(v.keys, func(i, j int) bool {
		a, b := v.keys[i], v.keys[j]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	for _, k := range v.keys {
		v.elems = append(v.elems, m[k])
	}
	return v
}

// appendJSON prints v canonically.
func appendJSON(buf []byte, v jsonValue) []byte {
	switch v.kind {
	case "string":
		return AppendJSONString(buf, v.text)
	case "array":
		buf = append(buf, '[')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJSON(buf, e)
		}
		return append(buf, ']')
	case "object":
		buf = append(buf, '{')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = AppendJSONString(buf, v.keys[i])
			buf = append(buf, ": "...)
			buf = appendJSON(buf, e)
		}
		return append(buf, '}')
	}
	return append(buf, v.text...)
}

// AppendJSONString appends s quoted as PostgreSQL's escape_json does
// (jsonb text, jsonpath printing).
func AppendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			if c < 0x20 {
				buf = append(buf, `\u00`...)
				buf = append(buf, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			} else {
				buf = append(buf, c)
			}
		}
	}
	return append(buf, '"')
}

// ParseJSON validates JSON text and returns the json datum holding the
// text as given (PostgreSQL's json keeps its input verbatim: spacing, key
// order and duplicate keys).
func ParseJSON(s string) (Datum, error) {
	if _, err := ParseJSONB(s); err != nil {
		return Null, err
	}
	return NewJSON(s), nil
}

// NewJSON returns the json datum of already valid JSON text.
func NewJSON(text string) Datum { return Datum{fam: FamJSON, s: text} }
