package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/eddydb/eddy/expr/are"
	"github.com/eddydb/eddy/repr"
)

// PostgreSQL 15's regexp_count, regexp_instr, regexp_like, regexp_substr
// and regexp_replace with start position and occurrence. Matches are found
// as PostgreSQL's setup_regexp_matches finds them: from a start position,
// each search begins where the previous match ended (one character later
// after an empty match), so an empty match right after a non-empty one
// counts, unlike in Go's FindAll.
func init() {
	t, i4 := repr.Text, repr.Int4
	fn("regexp_count", i4, regexpCount, t, t)
	fn("regexp_count", i4, regexpCount, t, t, i4)
	fn("regexp_count", i4, regexpCount, t, t, i4, t)
	instrArgs := []repr.T{t, t, i4, i4, i4, t, i4}
	for n := 2; n <= len(instrArgs); n++ {
		fn("regexp_instr", i4, regexpInstr, instrArgs[:n]...)
	}
	fn("regexp_like", repr.Bool, regexpLike, t, t)
	fn("regexp_like", repr.Bool, regexpLike, t, t, t)
	substrArgs := []repr.T{t, t, i4, i4, t, i4}
	for n := 2; n <= len(substrArgs); n++ {
		fn("regexp_substr", t, regexpSubstr, substrArgs[:n]...)
	}
	fn("regexp_replace", t, regexpReplaceAt, t, t, t, i4)
	fn("regexp_replace", t, regexpReplaceAt, t, t, t, i4, i4)
	fn("regexp_replace", t, regexpReplaceAt, t, t, t, i4, i4, t)
	fn("similar_to_escape", t, similarToEscape, t)
	fn("similar_to_escape", t, similarToEscape, t, t)
}

// matcher finds successive matches of one pattern in one string.
type matcher struct {
	re *are.Regexp
	s  string
}

// newMatcher compiles pattern under flags for function name (which does
// not take the g flag unless global is allowed).
func newMatcher(name, s, pattern, flags string, allowGlobal bool) (*matcher, bool, error) {
	re, global, err := compileRegexp(pattern, flags, true)
	if err != nil {
		return nil, false, err
	}
	if global && !allowGlobal {
		return nil, false, repr.Errorf(repr.CodeInvalidParameter, "%s() does not support the \"global\" option", name)
	}
	return &matcher{re: re, s: s}, global, nil
}

// findAt returns the first match at or after byte offset p as submatch
// indexes into s (nil if none); anchors see the text before p.
func (m *matcher) findAt(p int) []int { return m.re.FindAt(m.s, p) }

// each calls f with every match from byte offset p, in order, until f
// returns false.
func (m *matcher) each(p int, f func(loc []int) bool) {
	for p <= len(m.s) {
		loc := m.findAt(p)
		if loc == nil || !f(loc) {
			return
		}
		p = loc[1]
		if loc[0] == loc[1] {
			if p == len(m.s) {
				return
			}
			_, size := utf8.DecodeRuneInString(m.s[p:])
			p += size
		}
	}
}

// nth returns the n-th match (1-based) from p, or nil.
func (m *matcher) nth(p int, n int64) []int {
	var found []int
	m.each(p, func(loc []int) bool {
		if n--; n == 0 {
			found = loc
			return false
		}
		return true
	})
	return found
}

// byteOffset converts a 1-based character position to a byte offset
// (len(s) when past the end).
func byteOffset(s string, pos int64) int {
	for i := range s {
		if pos--; pos == 0 {
			return i
		}
	}
	return len(s)
}

func errParam(name string, v int64) error {
	return repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": %d", name, v)
}

// optInt returns a[i] as an integer, or def when the call has no a[i].
func optInt(a []repr.Datum, i int, def int64) int64 {
	if i < len(a) {
		return a[i].Int()
	}
	return def
}

func optText(a []repr.Datum, i int) string {
	if i < len(a) {
		return a[i].Text()
	}
	return ""
}

// startParam reads and checks the start argument (position 2).
func startParam(a []repr.Datum) (int64, error) {
	start := optInt(a, 2, 1)
	if start <= 0 {
		return 0, errParam("start", start)
	}
	return start, nil
}

// regexpCount is regexp_count(s, p [, start [, flags]]).
func regexpCount(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	start, err := startParam(a)
	if err != nil {
		return repr.Null, err
	}
	m, _, err := newMatcher("regexp_count", a[0].Text(), a[1].Text(), optText(a, 3), false)
	if err != nil {
		return repr.Null, err
	}
	n := 0
	m.each(byteOffset(m.s, start), func([]int) bool { n++; return true })
	return repr.NewInt(int64(n)), nil
}

// regexpInstr is regexp_instr(s, p [, start [, n [, endoption [, flags [,
// subexpr]]]]]): the character position where the n-th match (or its
// subexpr-th group) starts, or ends + 1 with endoption 1; 0 if none.
func regexpInstr(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	start, err := startParam(a)
	if err != nil {
		return repr.Null, err
	}
	n, end, sub := optInt(a, 3, 1), optInt(a, 4, 0), optInt(a, 6, 0)
	switch {
	case n <= 0:
		return repr.Null, errParam("n", n)
	case end != 0 && end != 1:
		return repr.Null, errParam("endoption", end)
	case sub < 0:
		return repr.Null, errParam("subexpr", sub)
	}
	m, _, err := newMatcher("regexp_instr", a[0].Text(), a[1].Text(), optText(a, 5), false)
	if err != nil {
		return repr.Null, err
	}
	loc := m.nth(byteOffset(m.s, start), n)
	if loc == nil || 2*int(sub) >= len(loc) || loc[2*sub] < 0 {
		return repr.NewInt(0), nil
	}
	at := loc[2*sub+end]
	return repr.NewInt(int64(utf8.RuneCountInString(m.s[:at]) + 1)), nil
}

// regexpLike is regexp_like(s, p [, flags]).
func regexpLike(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	m, _, err := newMatcher("regexp_like", a[0].Text(), a[1].Text(), optText(a, 2), false)
	if err != nil {
		return repr.Null, err
	}
	return repr.NewBool(m.re.MatchString(m.s)), nil
}

// regexpSubstr is regexp_substr(s, p [, start [, n [, flags [, subexpr]]]]):
// the n-th match (or its subexpr-th group), NULL if none.
func regexpSubstr(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	start, err := startParam(a)
	if err != nil {
		return repr.Null, err
	}
	n, sub := optInt(a, 3, 1), optInt(a, 5, 0)
	switch {
	case n <= 0:
		return repr.Null, errParam("n", n)
	case sub < 0:
		return repr.Null, errParam("subexpr", sub)
	}
	m, _, err := newMatcher("regexp_substr", a[0].Text(), a[1].Text(), optText(a, 4), false)
	if err != nil {
		return repr.Null, err
	}
	loc := m.nth(byteOffset(m.s, start), n)
	if loc == nil || 2*int(sub) >= len(loc) || loc[2*sub] < 0 {
		return repr.Null, nil
	}
	return repr.NewText(m.s[loc[2*sub]:loc[2*sub+1]]), nil
}

// regexpReplaceAt is regexp_replace(s, p, r, start [, n [, flags]]): from
// character start, replace the n-th match (every match for n = 0; without
// n, the first, or every one with flag g).
func regexpReplaceAt(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	start := a[3].Int()
	if start <= 0 {
		return repr.Null, errParam("start", start)
	}
	n := optInt(a, 4, -1)
	if n < -1 || len(a) > 4 && n < 0 {
		return repr.Null, errParam("n", n)
	}
	return replaceMatches(a[0].Text(), a[1].Text(), a[2].Text(), optText(a, 5), start, n)
}

// replaceMatches replaces matches of p in s from character start: the n-th
// (1-based), every one (n = 0), or as flag g says (n = -1).
func replaceMatches(s, p, repl, flags string, start, n int64) (repr.Datum, error) {
	m, global, err := newMatcher("regexp_replace", s, p, flags, true)
	if err != nil {
		return repr.Null, err
	}
	if n < 0 {
		n = 1
		if global {
			n = 0
		}
	}
	var b strings.Builder
	last, count := 0, int64(0)
	m.each(byteOffset(s, start), func(loc []int) bool {
		if count++; n > 0 && count < n {
			return true
		}
		b.WriteString(s[last:loc[0]])
		expandReplacement(&b, s, repl, loc)
		last = loc[1]
		return n == 0
	})
	b.WriteString(s[last:])
	return checkLen(b.String())
}

// similarToEscape is similar_to_escape(pattern [, escape]), which the
// parser wraps around the pattern of SIMILAR TO: it translates an SQL
// regular expression into an anchored POSIX one (% is .*, _ is ., ( is a
// non-capturing group, . ^ $ are literal), as PostgreSQL's
// similar_escape_internal.
func similarToEscape(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	esc, hasEsc := '\\', true
	if len(a) == 2 {
		e := []rune(a[1].Text())
		switch len(e) {
		case 0:
			hasEsc = false
		case 1:
			esc = e[0]
		default:
			return repr.Null, repr.Errorf("22025", "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
	}
	var b strings.Builder
	b.WriteString("^(?:")
	afterEsc, inClass := false, false
	for _, c := range a[0].Text() {
		switch {
		case afterEsc:
			b.WriteByte('\\')
			b.WriteRune(c)
			afterEsc = false
		case hasEsc && c == esc:
			afterEsc = true
		case inClass:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			inClass = c != ']'
		case c == '[':
			b.WriteRune(c)
			inClass = true
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString(")$")
	return repr.NewText(b.String()), nil
}
