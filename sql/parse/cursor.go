package parse

import "strings"

// cursor walks the tokens of one statement, toks[i:hi].
type cursor struct {
	p     *front
	i, hi int
}

// cursor returns a cursor at the start of seg.
func (p *front) cursor(seg segment) *cursor { return &cursor{p: p, i: seg.lo, hi: seg.hi} }

// text is the source text of token i.
func (c *cursor) text(i int) string {
	t := c.p.toks[i]
	return c.p.src[t.start:t.end]
}

// word reports whether the current token is the keyword w.
func (c *cursor) word(w string) bool { return c.i < c.hi && isWord(c.p.src, c.p.toks[c.i], w) }

// accept consumes the keyword w if it is next.
func (c *cursor) accept(w string) bool {
	if c.word(w) {
		c.i++
		return true
	}
	return false
}

// acceptAll consumes the keywords ws if they are all next, else none.
func (c *cursor) acceptAll(ws ...string) bool {
	if c.i+len(ws) > c.hi || !c.p.isWords(c.i, ws...) {
		return false
	}
	c.i += len(ws)
	return true
}

// punct reports whether the current token is the punctuation s.
func (c *cursor) punct(s string) bool {
	return c.i < c.hi && c.p.toks[c.i].kind == tkPunct && c.text(c.i) == s
}

// acceptPunct consumes the punctuation s if it is next.
func (c *cursor) acceptPunct(s string) bool {
	if c.punct(s) {
		c.i++
		return true
	}
	return false
}

// kind is the kind of the current token, 0 at the end.
func (c *cursor) kind() tokKind {
	if c.i >= c.hi {
		return 0
	}
	return c.p.toks[c.i].kind
}

// fail is a syntax error at the current token.
func (c *cursor) fail() error { return c.p.syntaxErrAt(c.i) }

// expect consumes the keyword w or fails.
func (c *cursor) expect(w string) error {
	if !c.accept(w) {
		return c.fail()
	}
	return nil
}

// expectPunct consumes the punctuation s or fails.
func (c *cursor) expectPunct(s string) error {
	if !c.acceptPunct(s) {
		return c.fail()
	}
	return nil
}

// isName reports whether the current token can be (part of) a name.
func (c *cursor) isName() bool { k := c.kind(); return k == tkIdent || k == tkQIdent }

// skipName consumes a possibly qualified name: name ('.' name)*.
func (c *cursor) skipName() bool {
	if !c.isName() {
		return false
	}
	c.i++
	for c.punct(".") && c.i+1 < c.hi && (c.p.toks[c.i+1].kind == tkIdent || c.p.toks[c.i+1].kind == tkQIdent) {
		c.i += 2
	}
	return true
}

// span is a token range toks[lo:hi].
type span struct{ lo, hi int }

// matching returns the index of the token closing the bracket at i, or hi
// if it is unclosed within the statement.
func (c *cursor) matching(i int) int {
	depth := 0
	for j := i; j < c.hi; j++ {
		if c.p.toks[j].kind != tkPunct {
			continue
		}
		switch c.text(j) {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return c.hi
}

// elements returns the comma-separated elements of the parenthesized group
// at the cursor and moves past it (to the end if unclosed).
func (c *cursor) elements() []span {
	end := c.matching(c.i)
	var out []span
	lo := c.i + 1
	for j := lo; j < end; j++ {
		if c.p.toks[j].kind != tkPunct {
			continue
		}
		switch c.text(j) {
		case "(", "[":
			j = c.matching(j)
		case ",":
			out = append(out, span{lo, j})
			lo = j + 1
		}
	}
	if lo < end || len(out) > 0 {
		out = append(out, span{lo, min(end, c.hi)})
	}
	c.i = min(end+1, c.hi)
	return out
}

// asciiLower lowercases ASCII letters only, as PostgreSQL's
// downcase_identifier does for multi-byte encodings.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// unquote returns the body of a quoted token with doubled quotes undone.
func unquote(text string) string {
	q := text[:1]
	return strings.ReplaceAll(text[1:len(text)-1], q+q, q)
}
