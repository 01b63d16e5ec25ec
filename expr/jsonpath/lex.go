package jsonpath

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
)

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tPunct
	tString
	tIdent
	tVariable
	tInt
	tNumeric
)

// token is one token; val is the decoded text of strings, identifiers and
// variables, or the punctuation itself.
type token struct {
	kind tokKind
	val  string
	pos  int
}

// isSpecial reports whether c ends an identifier (PostgreSQL's
// jsonpath_scan.l "special" class plus blanks).
func isSpecial(c byte) bool {
	return strings.IndexByte("?%$.[]{}()|&!=<>@#,*:-+/\\\" \t\n\r\f", c) >= 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexer splits jsonpath text into tokens.
type lexer struct {
	s string
	i int
}

// errSyntax is PostgreSQL's "syntax error at or near" of jsonpath input.
func errSyntax(near string) error {
	if near == "" {
		return repr.Errorf(repr.CodeSyntax, "syntax error at end of jsonpath input")
	}
	return repr.Errorf(repr.CodeSyntax, "syntax error at or near %q of jsonpath input", near)
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	for l.i < len(l.s) && isBlank(l.s[l.i]) {
		l.i++
	}
	start := l.i
	if l.i >= len(l.s) {
		return token{kind: tEOF, pos: start}, nil
	}
	c := l.s[l.i]
	switch {
	case isDigit(c) || c == '.' && l.i+1 < len(l.s) && isDigit(l.s[l.i+1]):
		return l.number()
	case c == '"':
		l.i++
		s, err := l.quoted()
		return token{kind: tString, val: s, pos: start}, err
	case c == '$':
		l.i++
		if l.i < len(l.s) && l.s[l.i] == '"' {
			l.i++
			s, err := l.quoted()
			return token{kind: tVariable, val: s, pos: start}, err
		}
		if l.i < len(l.s) && !isSpecial(l.s[l.i]) {
			s, err := l.ident()
			return token{kind: tVariable, val: s, pos: start}, err
		}
		return token{kind: tPunct, val: "$", pos: start}, nil
	case c == '\\' || !isSpecial(c):
		s, err := l.ident()
		return token{kind: tIdent, val: s, pos: start}, err
	}
	for _, op := range []string{"**", "==", "!=", "<>", "<=", ">=", "&&", "||"} {
		if strings.HasPrefix(l.s[l.i:], op) {
			l.i += 2
			return token{kind: tPunct, val: op, pos: start}, nil
		}
	}
	l.i++
	return token{kind: tPunct, val: string(c), pos: start}, nil
}

// number lexes an integer or a decimal with an optional exponent; other
// characters right after it are "trailing junk", as in PostgreSQL 15.
func (l *lexer) number() (token, error) {
	start := l.i
	kind := tInt
	for l.i < len(l.s) && isDigit(l.s[l.i]) {
		l.i++
	}
	leadingZero := l.i-start > 1 && l.s[start] == '0'
	if l.i < len(l.s) && l.s[l.i] == '.' {
		kind = tNumeric
		l.i++
		for l.i < len(l.s) && isDigit(l.s[l.i]) {
			l.i++
		}
	}
	junk := leadingZero
	if l.i < len(l.s) && (l.s[l.i] == 'e' || l.s[l.i] == 'E') {
		j := l.i + 1
		if j < len(l.s) && (l.s[j] == '+' || l.s[j] == '-') {
			j++
		}
		if j < len(l.s) && isDigit(l.s[j]) {
			for j < len(l.s) && isDigit(l.s[j]) {
				j++
			}
			kind = tNumeric
			l.i = j
		} else {
			junk = true
			l.i = j
		}
	}
	if l.i < len(l.s) && !isSpecial(l.s[l.i]) {
		junk = true
		_, n := utf8.DecodeRuneInString(l.s[l.i:])
		l.i += n
	}
	if junk {
		if leadingZero {
			l.i = start + 2
		}
		return token{}, repr.Errorf(repr.CodeSyntax, "trailing junk after numeric literal at or near %q of jsonpath input", l.s[start:l.i])
	}
	return token{kind: kind, val: l.s[start:l.i], pos: start}, nil
}

// ident lexes an unquoted identifier: characters that are not special,
// and backslash escapes.
func (l *lexer) ident() (string, error) {
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c == '\\' {
			if err := l.escape(&b); err != nil {
				return "", err
			}
			continue
		}
		if isSpecial(c) {
			break
		}
		b.WriteByte(c)
		l.i++
	}
	return b.String(), nil
}

// quoted lexes the rest of a double-quoted string (the quote is consumed).
func (l *lexer) quoted() (string, error) {
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch c {
		case '"':
			l.i++
			return b.String(), nil
		case '\\':
			if err := l.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	return "", repr.Errorf(repr.CodeSyntax, "unexpected end of quoted string at end of jsonpath input")
}

// escape decodes the backslash escape at the cursor into b.
func (l *lexer) escape(b *strings.Builder) error {
	l.i++
	if l.i >= len(l.s) {
		return repr.Errorf(repr.CodeSyntax, "unexpected end after backslash at end of jsonpath input")
	}
	c := l.s[l.i]
	l.i++
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case 'x':
		return l.hexEscape(b)
	case 'u':
		return l.unicodeEscape(b)
	default:
		_, n := utf8.DecodeRuneInString(l.s[l.i-1:])
		b.WriteString(l.s[l.i-1 : l.i-1+n])
		l.i += n - 1
	}
	return nil
}

func (l *lexer) hexEscape(b *strings.Builder) error {
	if l.i+2 > len(l.s) {
		return repr.Errorf(repr.CodeSyntax, "invalid hexadecimal character sequence at or near %q of jsonpath input", l.s[l.i-2:])
	}
	v, err := strconv.ParseUint(l.s[l.i:l.i+2], 16, 8)
	if err != nil {
		return repr.Errorf(repr.CodeSyntax, "invalid hexadecimal character sequence at or near %q of jsonpath input", l.s[l.i-2:l.i+2])
	}
	l.i += 2
	return writeCode(b, rune(v))
}

// unicodeEscape reads \uXXXX (with a following low surrogate when it is
// a high one) or \u{X...} of one to six hex digits.
func (l *lexer) unicodeEscape(b *strings.Builder) error {
	start := l.i - 2
	bad := func() error {
		end := min(l.i+1, len(l.s))
		return repr.Errorf(repr.CodeSyntax, "invalid Unicode escape sequence at or near %q of jsonpath input", l.s[start:end])
	}
	var code uint64
	var err error
	if l.i < len(l.s) && l.s[l.i] == '{' {
		end := strings.IndexByte(l.s[l.i:], '}')
		if end < 2 || end > 7 {
			return bad()
		}
		if code, err = strconv.ParseUint(l.s[l.i+1:l.i+end], 16, 32); err != nil {
			return bad()
		}
		l.i += end + 1
	} else {
		if l.i+4 > len(l.s) {
			return bad()
		}
		if code, err = strconv.ParseUint(l.s[l.i:l.i+4], 16, 32); err != nil {
			return bad()
		}
		l.i += 4
		if code >= 0xD800 && code <= 0xDBFF {
			if !strings.HasPrefix(l.s[l.i:], "\\u") || l.i+6 > len(l.s) {
				return repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type jsonpath").WithDetail("Unicode low surrogate must follow a high surrogate.")
			}
			lo, err := strconv.ParseUint(l.s[l.i+2:l.i+6], 16, 32)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type jsonpath").WithDetail("Unicode low surrogate must follow a high surrogate.")
			}
			code = 0x10000 + (code-0xD800)<<10 + (lo - 0xDC00)
			l.i += 6
		} else if code >= 0xDC00 && code <= 0xDFFF {
			return repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type jsonpath").WithDetail("Unicode low surrogate must follow a high surrogate.")
		}
	}
	return writeCode(b, rune(code))
}

// writeCode appends code point r; \u0000 cannot be held in text (22P05).
func writeCode(b *strings.Builder, r rune) error {
	if r == 0 {
		return repr.Errorf("22P05", "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
	}
	if r > utf8.MaxRune {
		return repr.Errorf(repr.CodeSyntax, "invalid Unicode escape value")
	}
	b.WriteRune(r)
	return nil
}
