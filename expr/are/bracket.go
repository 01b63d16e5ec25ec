package are

import (
	"strings"
)

// classNames are the character classes [:name:] both an ARE and RE2 know.
var classNames = map[string]bool{
	"alnum": true, "alpha": true, "ascii": true, "blank": true, "cntrl": true,
	"digit": true, "graph": true, "lower": true, "print": true, "punct": true,
	"space": true, "upper": true, "word": true, "xdigit": true,
}

// bracket translates the bracket expression at t.i. [[:<:]] and [[:>:]]
// are the word constraints \m and \M. Inside, escapes are read as an ARE
// reads them (\b is a backspace, \B a backslash, \s includes the vertical
// tab), collating elements and equivalence classes of one character are
// that character, and in a newline-sensitive mode a negated bracket never
// matches a newline.
func (t *translator) bracket() error {
	rest := string(t.p[t.i:min(len(t.p), t.i+7)])
	switch rest {
	case "[[:<:]]":
		t.i += 7
		return t.wordStart("[[:<:]]")
	case "[[:>:]]":
		t.i += 7
		return t.wordEnd2("[[:>:]]")
	}
	t.i++
	var b strings.Builder
	b.WriteByte('[')
	neg := t.i < len(t.p) && t.p[t.i] == '^'
	if neg {
		b.WriteByte('^')
		t.i++
	}
	for first := true; ; first = false {
		if t.i == len(t.p) {
			return invalid("brackets [] not balanced")
		}
		c := t.p[t.i]
		if c == ']' && !first {
			t.i++
			break
		}
		if err := t.bracketItem(&b, c); err != nil {
			return err
		}
	}
	if neg && t.f&NLStop != 0 {
		b.WriteString(`\n`)
	}
	b.WriteByte(']')
	t.out.WriteString(b.String())
	t.atom()
	return nil
}

// bracketItem translates one element of a bracket expression starting
// with c at t.i.
func (t *translator) bracketItem(b *strings.Builder, c rune) error {
	if c == '[' && t.i+1 < len(t.p) && strings.ContainsRune(":.=", t.p[t.i+1]) {
		return t.bracketName(b, t.p[t.i+1])
	}
	t.i++
	switch c {
	case '\\':
		return t.bracketEscape(b)
	case '-':
		b.WriteByte('-')
	default:
		b.WriteString(quoteRune(c))
	}
	return nil
}

// bracketName translates [:class:], [.element.] or [=class=] at t.i.
func (t *translator) bracketName(b *strings.Builder, kind rune) error {
	start := t.i + 2
	end := strings.Index(string(t.p[start:]), string(kind)+"]")
	if end < 0 {
		return invalid("brackets [] not balanced")
	}
	name := []rune(string(t.p[start:])[:end])
	t.i = start + len(name) + 2
	if kind == ':' {
		if !classNames[string(name)] {
			return invalid("invalid character class")
		}
		if items, ok := classRanges(string(name), false); ok {
			b.WriteString(items)
			return nil
		}
		b.WriteString("[:" + string(name) + ":]")
		return nil
	}
	if len(name) != 1 {
		return unsupported("collating element names ([[." + string(name) + ".]]) in regular expressions are not supported")
	}
	b.WriteString(quoteRune(name[0]))
	return nil
}

// bracketEscape translates the escape after a backslash in a bracket.
func (t *translator) bracketEscape(b *strings.Builder) error {
	if t.i == len(t.p) {
		return invalid("invalid escape \\ sequence")
	}
	c := t.p[t.i]
	t.i++
	switch c {
	case 'd', 'D':
		b.WriteString(`\` + string(c))
		return nil
	case 'w', 'W', 's', 'S':
		items, _ := classRanges(shorthandClass(c), c == 'W' || c == 'S')
		b.WriteString(items)
		return nil
	}
	if c >= '1' && c <= '9' {
		return invalid("invalid escape \\ sequence")
	}
	r, err := t.charEntry(c)
	if err != nil {
		return err
	}
	b.WriteString(quoteRune(r))
	return nil
}
