package parse

import "strings"

// tokKind classifies a token. The lexer follows PostgreSQL's scan.l closely
// enough never to misread where a string, identifier or comment ends; it does
// not decode literals (pg_query does that for the parts it parses).
type tokKind uint8

const (
	tkIdent  tokKind = iota + 1 // unquoted identifier or keyword
	tkQIdent                    // "quoted" or U&"quoted" identifier
	tkString                    // '..', E'..', B'..', X'..', N'..', U&'..', $tag$..$tag$
	tkNumber                    // integer or decimal literal (incl. 0x.., 1_000, 1e5)
	tkParam                     // $1
	tkOp                        // operator: a maximal run of operator characters
	tkPunct                     // one of ( ) [ ] , ; : :: . and any other single byte
)

// token is a lexeme of the input: its kind and byte range.
type token struct {
	kind       tokKind
	start, end int
}

// lexError is a lexical error at a byte offset.
type lexError struct {
	msg string
	pos int
}

// lexer splits SQL text into tokens, skipping whitespace and comments.
type lexer struct {
	src string
	pos int
	run opRun // the current run of operator characters
}

// lex returns the tokens of src and the first lexical error (an
// unterminated string, quoted identifier or comment), if any, with the
// tokens before it.
func lex(src string) ([]token, *lexError) {
	l := lexer{src: src}
	toks := make([]token, 0, len(src)/4)
	for {
		if err := l.skipSpace(); err != nil {
			return toks, err
		}
		if l.pos >= len(src) {
			return toks, nil
		}
		t, err := l.next()
		if err != nil {
			return toks, err
		}
		toks = append(toks, t)
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isOpChar(c byte) bool { return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0 }

// skipSpace advances past whitespace, -- comments and nested /* */ comments.
func (l *lexer) skipSpace() *lexError {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case isSpace(c):
			l.pos++
		case strings.HasPrefix(l.src[l.pos:], "--"):
			for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
				l.pos++
			}
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			if err := l.skipBlockComment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// skipBlockComment skips a /* comment */, which nests in PostgreSQL.
func (l *lexer) skipBlockComment() *lexError {
	start, depth := l.pos, 0
	for l.pos < len(l.src) {
		switch {
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			depth++
			l.pos += 2
		case strings.HasPrefix(l.src[l.pos:], "*/"):
			depth--
			l.pos += 2
			if depth == 0 {
				return nil
			}
		default:
			l.pos++
		}
	}
	return &lexError{"unterminated /* comment", start}
}

// next lexes the token at l.pos (not whitespace, not a comment).
func (l *lexer) next() (token, *lexError) {
	start := l.pos
	c := l.src[start]
	switch {
	case c == '\'':
		return l.quoted(start, start, '\'', false)
	case c == '"':
		return l.quoted(start, start, '"', false)
	case c == '$':
		return l.dollar(start)
	case isDigit(c) || c == '.' && start+1 < len(l.src) && isDigit(l.src[start+1]):
		return l.number(start), nil
	case isIdentStart(c):
		return l.identOrPrefixed(start)
	case isOpChar(c):
		return l.operator(start), nil
	case c == ':' && strings.HasPrefix(l.src[start:], "::"):
		l.pos += 2
	default:
		l.pos++
	}
	return token{tkPunct, start, l.pos}, nil
}

// identOrPrefixed lexes an identifier, or a string with a one-letter prefix
// (E'..', B'..', X'..', N'..') or U&'..' / U&"..".
func (l *lexer) identOrPrefixed(start int) (token, *lexError) {
	s := l.src
	if start+1 < len(s) && s[start+1] == '\'' {
		switch s[start] {
		case 'e', 'E':
			return l.quoted(start, start+1, '\'', true)
		case 'b', 'B', 'x', 'X', 'n', 'N':
			return l.quoted(start, start+1, '\'', false)
		}
	}
	if (s[start] == 'u' || s[start] == 'U') && start+2 < len(s) && s[start+1] == '&' && (s[start+2] == '\'' || s[start+2] == '"') {
		return l.quoted(start, start+2, s[start+2], false)
	}
	l.pos = start + 1
	for l.pos < len(s) && isIdentCont(s[l.pos]) {
		l.pos++
	}
	return token{tkIdent, start, l.pos}, nil
}

// quoted lexes a literal opened by quote q at open (the token starts at
// start, before any prefix): a doubled quote is an escaped quote and, in an
// E'...' string, a backslash escapes the next byte.
func (l *lexer) quoted(start, open int, q byte, backslash bool) (token, *lexError) {
	s := l.src
	for i := open + 1; i < len(s); i++ {
		switch {
		case backslash && s[i] == '\\':
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
		case s[i] == q:
			l.pos = i + 1
			if q == '"' {
				return token{tkQIdent, start, l.pos}, nil
			}
			return token{tkString, start, l.pos}, nil
		}
	}
	if q == '"' {
		return token{}, &lexError{"unterminated quoted identifier", start}
	}
	return token{}, &lexError{"unterminated quoted string", start}
}

// dollar lexes a parameter ($1), a dollar-quoted string ($tag$...$tag$), or
// a lone '$'.
func (l *lexer) dollar(start int) (token, *lexError) {
	s := l.src
	i := start + 1
	if i < len(s) && isDigit(s[i]) {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		l.pos = i
		return token{tkParam, start, i}, nil
	}
	if i < len(s) && isIdentStart(s[i]) {
		for i < len(s) && isIdentCont(s[i]) && s[i] != '$' {
			i++
		}
	}
	if i >= len(s) || s[i] != '$' {
		l.pos = start + 1
		return token{tkPunct, start, l.pos}, nil
	}
	tag := s[start : i+1]
	end := strings.Index(s[i+1:], tag)
	if end < 0 {
		return token{}, &lexError{"unterminated dollar-quoted string", start}
	}
	l.pos = i + 1 + end + len(tag)
	return token{tkString, start, l.pos}, nil
}

// number lexes a numeric literal. It is generous about what follows the
// digits (letters, underscores): pg_query rejects malformed numbers.
func (l *lexer) number(start int) token {
	s := l.src
	i := start
	for i < len(s) {
		c := s[i]
		switch {
		case isDigit(c) || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if (c == 'e' || c == 'E') && i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-') && !isHexNumber(s[start:i]) {
				i++
			}
			i++
		case c == '.' && !(i+1 < len(s) && s[i+1] == '.'):
			i++
		default:
			l.pos = i
			return token{tkNumber, start, i}
		}
	}
	l.pos = i
	return token{tkNumber, start, i}
}

func isHexNumber(s string) bool { return len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') }

// operator lexes an operator: a run of operator characters, stopping
// before a comment start, with a trailing + or - dropped as PostgreSQL does
// unless the operator contains one of ~ ! @ # % ^ & | ` ? (so "=-1" is "=",
// "-", "1"). The run's extent is cached so that a long run split into many
// operators is scanned once, not once per operator.
func (l *lexer) operator(start int) token {
	if start >= l.run.end {
		l.run = l.scanRun(start)
	}
	end := l.run.end
	if l.run.lastSpecial < start && end-start > 1 {
		// No special character: trim trailing + and - (keep one character).
		end = max(l.run.lastNotPlusMinus+1, start+1)
	}
	l.pos = end
	return token{tkOp, start, end}
}

// opRun describes a run of operator characters: where it ends, and the
// last positions of a special character and of a character other than + or
// - in it (-1 if none).
type opRun struct {
	end, lastSpecial, lastNotPlusMinus int
}

// scanRun scans the run of operator characters starting at start.
func (l *lexer) scanRun(start int) opRun {
	s := l.src
	r := opRun{lastSpecial: -1, lastNotPlusMinus: -1}
	i := start
	for i < len(s) && isOpChar(s[i]) {
		if i > start && (strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*")) {
			break
		}
		if strings.IndexByte("~!@#%^&|`?", s[i]) >= 0 {
			r.lastSpecial = i
		}
		if s[i] != '+' && s[i] != '-' {
			r.lastNotPlusMinus = i
		}
		i++
	}
	r.end = i
	return r
}
