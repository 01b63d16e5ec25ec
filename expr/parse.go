package expr

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/eddydb/eddy/repr"
)

// ParseExpr parses the String() form of an expression over input columns
// of types cols: `#0`, literals (`1`, `-2`, `1.5`, `'abc'`, `NULL`, `true`,
// `'2024-01-01'::date`), infix operators with PostgreSQL's precedence,
// LIKE/ILIKE/NOT LIKE, function calls, `CAST(x AS t)`, `x::t`, AND/OR/NOT,
// IS [NOT] NULL, searched CASE and coalesce. Operators and functions are
// resolved with ResolveOp/ResolveFunc and coercions inserted with NewCast,
// so a bare string literal takes its type from context (text if none).
func ParseExpr(s string, cols []repr.T) (Expr, error) {
	p := &parser{cols: cols}
	if err := p.lex(s); err != nil {
		return nil, err
	}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, p.errorf("unexpected %q", p.peek().text)
	}
	return finishUnknown(e), nil
}

// finishUnknown gives a top-level unknown literal the type text.
func finishUnknown(e Expr) Expr {
	if e.Type().Family == repr.FamUnknown {
		return NewCast(e, repr.Text)
	}
	return e
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNum
	tStr
	tCol
	tOp
	tPunct
)

type token struct {
	kind tokKind
	text string
}

type parser struct {
	cols []repr.T
	toks []token
	pos  int
	// conn is the AND or OR the last connective built, which the next
	// connective of the same kind extends (a OR b OR c is one Or); an
	// operand parsed since (a parenthesized (a OR b)) clears it, so a
	// printed nested connective reads back nested.
	conn Expr
}

func (p *parser) errorf(format string, args ...any) error {
	return repr.Errorf(repr.CodeSyntax, "ParseExpr: "+format, args...)
}

const opChars = "+-*/%^=<>!~|&@#?"

// lex splits s into tokens. A '-' directly followed by a digit in operand
// position is part of the number, so `-2147483648` is one int4 literal.
func (p *parser) lex(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '\'':
			j, str, err := lexString(s, i)
			if err != nil {
				return p.errorf("%v", err)
			}
			p.toks, i = append(p.toks, token{tStr, str}), j
		case c == '"':
			// A quoted identifier, kept with its quotes: TypeName
			// prints the "char" type so.
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return p.errorf("unterminated quoted identifier")
			}
			p.toks, i = append(p.toks, token{tIdent, s[i : i+j+2]}), i+j+2
		case c == '#' && i+1 < len(s) && isDigit(s[i+1]):
			j := scanWhile(s, i+1, isDigit)
			p.toks, i = append(p.toks, token{tCol, s[i+1 : j]}), j
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]) || c == '-' && i+1 < len(s) && isDigit(s[i+1]) && p.operandPos():
			j := scanNumber(s, i+1)
			p.toks, i = append(p.toks, token{tNum, s[i:j]}), j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := scanWhile(s, i, func(b byte) bool { return b == '_' || isDigit(b) || unicode.IsLetter(rune(b)) })
			p.toks, i = append(p.toks, token{tIdent, s[i:j]}), j
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			p.toks, i = append(p.toks, token{tOp, "::"}), i+2
		case strings.IndexByte(opChars, c) >= 0:
			j := scanWhile(s, i, func(b byte) bool { return strings.IndexByte(opChars, b) >= 0 })
			p.toks, i = append(p.toks, token{tOp, s[i:j]}), j
		case strings.IndexByte("(),[]", c) >= 0:
			p.toks, i = append(p.toks, token{tPunct, s[i : i+1]}), i+1
		default:
			return p.errorf("unexpected character %q", c)
		}
	}
	return nil
}

// operandPos reports whether the next token starts an operand.
func (p *parser) operandPos() bool {
	if len(p.toks) == 0 {
		return true
	}
	last := p.toks[len(p.toks)-1]
	return last.kind == tOp || last.kind == tPunct && last.text != ")" ||
		last.kind == tIdent && keywordBeforeOperand[strings.ToUpper(last.text)]
}

var keywordBeforeOperand = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "WHEN": true, "THEN": true, "ELSE": true,
	"CASE": true, "LIKE": true, "ILIKE": true,
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func scanWhile(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func scanNumber(s string, i int) int {
	i = scanWhile(s, i, func(b byte) bool { return isDigit(b) || b == '.' })
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = scanWhile(s, j, isDigit)
		}
	}
	return i
}

// lexString reads a '...' literal with ” escapes starting at s[i].
func lexString(s string, i int) (int, string, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != '\'' {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return j + 1, b.String(), nil
	}
	return 0, "", fmt.Errorf("unterminated string literal")
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{kind: tEOF}
}

func (p *parser) next() token { t := p.peek(); p.pos++; return t }

// isKw reports whether the next token is the keyword kw (case-insensitive).
func (p *parser) isKw(kw string) bool {
	t := p.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) isKwAt(off int, kw string) bool {
	if p.pos+off >= len(p.toks) {
		return false
	}
	t := p.toks[p.pos+off]
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) expect(text string) error {
	t := p.next()
	if t.text != text && !(t.kind == tIdent && strings.EqualFold(t.text, text)) {
		return p.errorf("expected %q, found %q", text, t.text)
	}
	return nil
}

// Binding powers, loosest first, following PostgreSQL's precedence table.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precLike
	precOther
	precAdd
	precMul
	precPow
	precUnary
	precCast
)

func binaryPrec(op string) int {
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		return precCmp
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	case "^":
		return precPow
	}
	return precOther
}
