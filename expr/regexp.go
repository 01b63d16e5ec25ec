package expr

import (
	"regexp"
	"strings"
	"sync"

	"github.com/eddydb/eddy/repr"
)

// Regular expressions: the ~ ~* !~ !~* operators, regexp_replace and
// regexp_match (the capture groups as text[]), and regexp_match_at, the
// planner's form of (regexp_match(s, p))[n] from before Eddy had arrays,
// kept so that stored plans using it still parse.
//
// Patterns run on Go's regexp package (RE2), not PostgreSQL's Spencer ARE
// engine. They agree on the common syntax; to keep answers PostgreSQL's,
// patterns compile with PostgreSQL's defaults (. matches a newline, ^ and $
// anchor the whole string; flag n makes them newline-sensitive) and with
// leftmost-longest matching (an ARE without non-greedy quantifiers prefers
// the longest match). What RE2 lacks or reads differently fails with 2201B
// instead of matching differently: back references (\1), lookahead and
// lookbehind, non-greedy quantifiers (whose ARE semantics differ from
// Perl's), \b (backspace in an ARE, a word boundary in RE2), \B, and ARE
// escapes RE2 rejects (\m \M \y \Y \Z). Remaining differences: \w, \d and
// [[:alpha:]] are ASCII-only in RE2 but locale-aware in PostgreSQL, and
// RE2 accepts a few forms an ARE rejects (\pL, (?P<name>...)).
func init() {
	t := repr.Text
	for op, neg := range map[string]bool{"~": false, "!~": true} {
		binop(op, t, t, repr.Bool, regexpOp("", neg))
		binop(op+"*", t, t, repr.Bool, regexpOp("i", neg))
	}
	fn("regexp_replace", t, regexpReplace, t, t, t)
	fn("regexp_replace", t, regexpReplace, t, t, t, t)
	fn("regexp_match", repr.ArrayOf(t), regexpMatch, t, t)
	fn("regexp_match", repr.ArrayOf(t), regexpMatch, t, t, t)
	fn("regexp_match_at", t, regexpMatchAt, t, t, repr.Int4)
	fn("regexp_match_at", t, regexpMatchAt, t, t, repr.Int4, t)
}

// regexpOp implements s ~ p (flags "" or "i"), negated for !~.
func regexpOp(flags string, negate bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		re, _, err := compileRegexp(a[1].Text(), flags, false)
		if err != nil {
			return repr.Null, err
		}
		return repr.NewBool(re.MatchString(a[0].Text()) != negate), nil
	}
}

// regexpMatch is regexp_match(s, p [, flags]): the capture groups of the
// first match (NULL for a group that did not take part), or the whole
// match for a pattern without groups; NULL when there is no match.
func regexpMatch(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	re, global, err := compileRegexp(a[1].Text(), optText(a, 2), true)
	if err != nil {
		return repr.Null, err
	}
	if global {
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "regexp_match() does not support the \"global\" option").
			WithHint("Use the regexp_matches function instead.")
	}
	s := a[0].Text()
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return repr.Null, nil
	}
	if re.NumSubexp() > 0 {
		m = m[2:]
	}
	elems := make([]repr.Datum, len(m)/2)
	for i := range elems {
		if m[2*i] >= 0 {
			elems[i] = repr.NewText(s[m[2*i]:m[2*i+1]])
		}
	}
	return repr.NewArray(elems), nil
}

// regexpMatchAt returns element n (1-based) of regexp_match(s, p [, flags]):
// the n-th capture group's text, or for a pattern without groups the whole
// match at n = 1. NULL when there is no match, the group did not take part
// in the match, or n is out of range (as an array subscript would be).
func regexpMatchAt(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	flags := ""
	if len(a) == 4 {
		flags = a[3].Text()
	}
	re, global, err := compileRegexp(a[1].Text(), flags, true)
	if err != nil {
		return repr.Null, err
	}
	if global {
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "regexp_match() does not support the \"global\" option").
			WithHint("Use the regexp_matches function instead.")
	}
	s := a[0].Text()
	m := re.FindStringSubmatchIndex(s)
	n := a[2].Int()
	if m == nil {
		return repr.Null, nil
	}
	groups := re.NumSubexp()
	if groups == 0 {
		groups = 1 // the whole match, m[0:2], is element 1
	} else {
		m = m[2:]
	}
	if n < 1 || n > int64(groups) || m[2*(n-1)] < 0 {
		return repr.Null, nil
	}
	return repr.NewText(s[m[2*(n-1)]:m[2*(n-1)+1]]), nil
}

// regexpReplace replaces the first match of p in s (every match with flag
// g) by the replacement, in which \1..\9 stand for capture groups, \& for
// the whole match and \\ for a backslash.
func regexpReplace(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	flags := ""
	if len(a) == 4 {
		flags = a[3].Text()
	}
	return replaceMatches(a[0].Text(), a[1].Text(), a[2].Text(), flags, 1, -1)
}

// expandReplacement writes repl with its group references filled from match m.
func expandReplacement(b *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		i++
		switch d := repl[i]; {
		case d >= '1' && d <= '9':
			if g := int(d - '0'); 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(s[m[2*g]:m[2*g+1]])
			}
		case d == '&':
			b.WriteString(s[m[0]:m[1]])
		case d == '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(d)
		}
	}
}

// regexpCache holds compiled patterns: patterns are usually constants, so
// a small cache avoids recompiling per row. It is cleared when full.
var regexpCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const regexpCacheSize = 256

// compileRegexp compiles pattern under PostgreSQL flags (i c n m s g; g
// only where allowGlobal), reporting whether g was given.
func compileRegexp(pattern, flags string, allowGlobal bool) (*regexp.Regexp, bool, error) {
	prefix, global, err := regexpFlags(flags, allowGlobal)
	if err != nil {
		return nil, false, err
	}
	key := prefix + "\x00" + pattern
	regexpCache.Lock()
	re := regexpCache.m[key]
	regexpCache.Unlock()
	if re != nil {
		return re, global, nil
	}
	if err := checkAREOnly(pattern); err != nil {
		return nil, false, err
	}
	re, err = regexp.Compile(prefix + pattern)
	if err != nil {
		return nil, false, repr.Errorf(codeInvalidRegexp, "invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re.Longest()
	regexpCache.Lock()
	if len(regexpCache.m) >= regexpCacheSize || regexpCache.m == nil {
		regexpCache.m = make(map[string]*regexp.Regexp)
	}
	regexpCache.m[key] = re
	regexpCache.Unlock()
	return re, global, nil
}

// regexpFlags translates PostgreSQL regexp flags into an RE2 flag group.
func regexpFlags(flags string, allowGlobal bool) (string, bool, error) {
	ci, newline, global := false, false, false
	for _, f := range flags {
		switch f {
		case 'i':
			ci = true
		case 'c':
			ci = false
		case 'n', 'm':
			newline = true
		case 's':
			newline = false
		case 'g':
			if !allowGlobal {
				return "", false, repr.Errorf(repr.CodeInvalidParameter, "invalid regular expression option: \"g\"")
			}
			global = true
		case 'x', 'p', 'w', 'e', 'b', 'q', 't':
			return "", false, repr.Errorf(codeInvalidRegexp, "regular expression option %q is not supported", string(f))
		default:
			return "", false, repr.Errorf(repr.CodeInvalidParameter, "invalid regular expression option: %q", string(f))
		}
	}
	prefix := "(?s)"
	if newline {
		prefix = "(?m)"
	}
	if ci {
		prefix += "(?i)"
	}
	return prefix, global, nil
}

// checkAREOnly rejects constructs RE2 would accept but read differently
// from an ARE: non-greedy quantifiers and the \b and \B escapes.
func checkAREOnly(p string) error {
	inBracket := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			if !inBracket && (p[i] == 'b' || p[i] == 'B') {
				return repr.Errorf(codeInvalidRegexp, "invalid regular expression: \\%c is not supported", p[i])
			}
		case inBracket:
			if c == ']' {
				inBracket = false
			}
		case c == '[':
			inBracket = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // a leading ] is literal
			}
		case c == '?' && i > 0 && strings.IndexByte("*+?}", p[i-1]) >= 0 && (i < 2 || p[i-2] != '\\'):
			return repr.Errorf(codeInvalidRegexp, "invalid regular expression: non-greedy quantifiers are not supported")
		}
	}
	return nil
}

// codeInvalidRegexp is SQLSTATE 2201B, invalid_regular_expression.
const codeInvalidRegexp = "2201B"
