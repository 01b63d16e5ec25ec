package are

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/eddydb/eddy/repr"
)

// CodeInvalidRegexp is SQLSTATE 2201B, invalid_regular_expression.
const CodeInvalidRegexp = "2201B"

// Translate returns the RE2 form of ARE pattern under flags f: a flag group
// (possibly empty) and the body, so that callers may wrap the body (expr's
// matcher searches with (?s:.)(body) from later positions). Embedded
// options and the ***= and ***: directors are applied, not copied.
func Translate(pattern string, f Flags) (prefix, body string, err error) {
	p, f, err := directors(pattern, f)
	if err != nil {
		return "", "", err
	}
	switch {
	case f&basic != 0:
		return "", "", unsupported("basic regular expressions (flag b) are not supported")
	case f&extended != 0:
		return "", "", unsupported("extended regular expressions (flag e) are not supported")
	case f&Quote != 0:
		return f.prefix(), regexp.QuoteMeta(p), nil
	}
	t := translator{p: []rune(p), f: f}
	if err := t.run(); err != nil {
		return "", "", err
	}
	return f.prefix(), t.out.String(), nil
}

// directors strips the ***= (literal) and ***: (ARE) prefixes and a
// leading embedded-options group (?letters), returning the rest of the
// pattern and the flags they leave in force.
func directors(p string, f Flags) (string, Flags, error) {
	if f&(Quote|basic|extended) != 0 {
		return p, f, nil
	}
	switch {
	case strings.HasPrefix(p, "***="):
		return p[4:], f | Quote, nil
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	if len(p) < 3 || p[0] != '(' || p[1] != '?' || !isAlpha(rune(p[2])) {
		return p, f, nil
	}
	for i := 2; i < len(p); i++ {
		if p[i] == ')' {
			return p[i+1:], f, nil
		}
		var ok bool
		if f, ok = f.apply(rune(p[i])); !ok {
			break
		}
	}
	return "", 0, invalid("invalid embedded option")
}

// translator rewrites one ARE body into RE2 syntax.
type translator struct {
	p   []rune
	i   int
	f   Flags
	out strings.Builder
	// groups counts the capturing groups opened so far, which decides
	// whether \12 is a back reference or an octal escape.
	groups int
	// quant reports that the last item was a quantifier; marks, that a
	// word constraint marker was written.
	quant, marks bool
}

func (t *translator) run() error {
	for t.i < len(t.p) {
		c := t.p[t.i]
		if t.f&Expanded != 0 && t.skipSpace(c) {
			continue
		}
		var err error
		switch c {
		case '\\':
			err = t.escape()
		case '[':
			err = t.bracket()
		case '(':
			err = t.group()
		case '*', '+', '?', '{':
			err = t.quantifier(c)
		case '|':
			t.i++
			t.out.WriteByte('|')
			t.atom()
		case ')':
			t.i++
			t.out.WriteByte(')')
			t.atom()
		default:
			t.i++
			t.out.WriteRune(c)
			t.atom()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// atom records that an atom was written.
func (t *translator) atom() {
	t.quant = false
}

// skipSpace skips white space and a #-comment in expanded syntax.
func (t *translator) skipSpace(c rune) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		t.i++
		return true
	case '#':
		for t.i < len(t.p) && t.p[t.i] != '\n' {
			t.i++
		}
		return true
	}
	return false
}

// quantifier writes *, +, ? or a bound {m}, {m,}, {m,n} (a { that starts
// no bound is a literal, as in an ARE). A ? right after a quantifier makes
// it non-greedy, which is refused: an ARE decides greediness for the whole
// expression from its first quantifier, which RE2 cannot follow.
func (t *translator) quantifier(c rune) error {
	if c == '{' {
		end, _ := t.bound()
		if end < 0 {
			t.i++
			t.out.WriteString(`\{`)
			t.atom()
			return nil
		}
		t.out.WriteString(string(t.p[t.i:end]))
		t.i = end
	} else {
		if c == '?' && t.quant {
			return unsupported("non-greedy quantifiers (*? +? ?? {m,n}?) in regular expressions are not supported")
		}
		t.i++
		t.out.WriteRune(c)
	}
	if t.i < len(t.p) && t.p[t.i] == '?' {
		return unsupported("non-greedy quantifiers (*? +? ?? {m,n}?) in regular expressions are not supported")
	}
	t.quant = true
	return nil
}

// bound parses {m}, {m,} or {m,n} at t.i, returning the index after it
// and m, or -1 when the text is not a bound.
func (t *translator) bound() (int, int) {
	j := t.i + 1
	digits := func() string {
		k := j
		for j < len(t.p) && t.p[j] >= '0' && t.p[j] <= '9' {
			j++
		}
		return string(t.p[k:j])
	}
	m := digits()
	if m == "" {
		return -1, 0
	}
	if j < len(t.p) && t.p[j] == ',' {
		j++
		digits()
	}
	if j >= len(t.p) || t.p[j] != '}' {
		return -1, 0
	}
	min, _ := strconv.Atoi(m)
	return j + 1, min
}

// group writes a ( or (?: group, skips a (?#comment), and refuses
// lookahead and lookbehind constraints.
func (t *translator) group() error {
	rest := string(t.p[t.i:min(len(t.p), t.i+4)])
	switch {
	case strings.HasPrefix(rest, "(?:"):
		t.out.WriteString("(?:")
		t.i += 3
	case strings.HasPrefix(rest, "(?="), strings.HasPrefix(rest, "(?!"):
		return unsupported("lookahead constraints (?= and (?! in regular expressions are not supported")
	case strings.HasPrefix(rest, "(?<="), strings.HasPrefix(rest, "(?<!"):
		return unsupported("lookbehind constraints (?<= and (?<! in regular expressions are not supported")
	case strings.HasPrefix(rest, "(?#"):
		for t.i < len(t.p) && t.p[t.i] != ')' {
			t.i++
		}
		if t.i == len(t.p) {
			return invalid("parentheses () not balanced")
		}
		t.i++
		return nil
	case strings.HasPrefix(rest, "(?"):
		return invalid("quantifier operand invalid")
	default:
		t.groups++
		t.out.WriteByte('(')
		t.i++
	}
	t.atom()
	return nil
}

// escape translates the escape at t.i (outside brackets).
func (t *translator) escape() error {
	t.i++
	if t.i == len(t.p) {
		return invalid("invalid escape \\ sequence")
	}
	c := t.p[t.i]
	t.i++
	switch c {
	case 'd':
		t.out.WriteString(`\d`)
		t.atom()
	case 'D':
		t.out.WriteString(`\D`)
		t.atom()
	case 'w', 'W', 's', 'S':
		// RE2's \w and \s are ASCII (and \s lacks the vertical tab)
		items, _ := classRanges(shorthandClass(c), false)
		if c == 'W' || c == 'S' {
			t.out.WriteString(`[^` + items + `]`)
		} else {
			t.out.WriteString(`[` + items + `]`)
		}
		t.atom()
	case 'A':
		t.out.WriteString(`\A`)
	case 'Z':
		t.out.WriteString(`\z`)
	case 'y':
		t.out.WriteString(`\b`)
	case 'Y':
		t.out.WriteString(`\B`)
	case 'm':
		return t.wordStart(`\m`)
	case 'M':
		return t.wordEnd2(`\M`)
	default:
		if c >= '1' && c <= '9' {
			if ref, ok := t.backref(c); ok {
				return unsupported(fmt.Sprintf("back references (\\%d) in regular expressions are not supported", ref))
			}
		}
		r, err := t.charEntry(c)
		if err != nil {
			return err
		}
		t.out.WriteString(quoteRune(r))
		t.atom()
	}
	return nil
}

// wordStart translates \m (or [[:<:]]), the start of a word, and
// wordEnd2 \M (or [[:>:]]), its end. RE2 has neither assertion: they are
// written as the markers startMark and endMark, which Compile turns into
// assertions its own matcher decides (vm.go). A quantifier may not follow
// them, as in an ARE.
func (t *translator) wordStart(string) error { return t.mark(startMark) }

func (t *translator) wordEnd2(string) error { return t.mark(endMark) }

func (t *translator) mark(m string) error {
	t.out.WriteString(m)
	t.marks = true
	t.atom()
	if t.i < len(t.p) && strings.ContainsRune("*+?", t.p[t.i]) {
		return invalid("quantifier operand invalid")
	}
	if t.i < len(t.p) && t.p[t.i] == '{' {
		if end, _ := t.bound(); end >= 0 {
			return invalid("quantifier operand invalid")
		}
	}
	return nil
}

// backref reads the digits of \N after first (t.i is past first) and
// reports a back reference as PostgreSQL's lexer decides it: one digit
// always is; several digits are when they number a group already opened,
// and otherwise are an octal escape (t.i is then left after first).
func (t *translator) backref(first rune) (int, bool) {
	j := t.i
	for j < len(t.p) && t.p[j] >= '0' && t.p[j] <= '9' && j-t.i < 254 {
		j++
	}
	n, _ := strconv.Atoi(string(first) + string(t.p[t.i:j]))
	if j == t.i || n <= t.groups {
		t.i = j
		return n, true
	}
	return 0, false
}

// charEntry reads a character-entry escape whose letter c is at t.i-1,
// or a non-alphanumeric character escaped to stand for itself.
func (t *translator) charEntry(c rune) (rune, error) {
	switch c {
	case 'a':
		return 7, nil
	case 'b':
		return '\b', nil // backspace, not RE2's word boundary
	case 'B':
		return '\\', nil
	case 'e':
		return 0x1b, nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'c':
		if t.i == len(t.p) {
			return 0, invalid("invalid escape \\ sequence")
		}
		t.i++
		return t.p[t.i-1] & 0x1f, nil
	case 'u':
		return t.digits(16, 4, 4)
	case 'U':
		return t.digits(16, 8, 8)
	case 'x':
		return t.digits(16, 1, 255)
	}
	if c >= '0' && c <= '7' {
		t.i--
		return t.digits(8, 1, 3)
	}
	if isAlnum(c) || unicode.IsLetter(c) || unicode.IsDigit(c) {
		return 0, invalid("invalid escape \\ sequence")
	}
	return c, nil
}

// digits reads between min and max digits of base at t.i as a character.
func (t *translator) digits(base, min, max int) (rune, error) {
	j := t.i
	for j < len(t.p) && j-t.i < max && digitVal(t.p[j]) < base {
		j++
	}
	if j-t.i < min {
		return 0, invalid("invalid escape \\ sequence")
	}
	v, err := strconv.ParseUint(string(t.p[t.i:j]), base, 32)
	t.i = j
	if err != nil || v > 0x10ffff {
		return 0, invalid("invalid escape \\ sequence")
	}
	return rune(v), nil
}

func digitVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// quoteRune writes r for RE2, inside or outside brackets.
func quoteRune(r rune) string {
	if isAlnum(r) || r == '_' || r == ' ' {
		return string(r)
	}
	return fmt.Sprintf(`\x{%x}`, r)
}

// shorthandClass names the class of \w, \W (word) or \s, \S (space).
func shorthandClass(c rune) string {
	if c == 'w' || c == 'W' {
		return "word"
	}
	return "space"
}

func isAlpha(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c rune) bool { return isAlpha(c) || c >= '0' && c <= '9' }

func invalid(msg string) error {
	return repr.Errorf(CodeInvalidRegexp, "invalid regular expression: %s", msg)
}

// unsupported is the 0A000 refusal of an ARE construct RE2 cannot run.
func unsupported(msg string) error {
	return repr.Errorf(repr.CodeFeatureNotSupported, "%s", msg)
}
