package expr

import (
	"strings"

	"github.com/eddydb/eddy/expr/are"
	"github.com/eddydb/eddy/repr"
)

// Regular expressions: the ~ ~* !~ !~* operators, regexp_replace and
// regexp_match (the capture groups as text[]), and regexp_match_at, the
// planner's form of (regexp_match(s, p))[n] from before Eddy had arrays,
// kept so that stored plans using it still parse.
//
// Patterns run on Go's regexp package (RE2), not PostgreSQL's Spencer ARE
// engine: package are translates the ARE syntax and flags, and refuses
// with 0A000 what RE2 cannot run (back references, lookaround, non-greedy
// quantifiers); see its doc comment for the remaining differences.
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

// compileRegexp compiles pattern under PostgreSQL flags (i c n m s p w x
// q t; g only where allowGlobal), reporting whether g was given. Patterns
// are translated from PostgreSQL's ARE syntax by package are, which the
// jsonpath like_regex predicate shares.
func compileRegexp(pattern, flags string, allowGlobal bool) (*are.Regexp, bool, error) {
	f, global, err := are.ParseFlags(flags, allowGlobal)
	if err != nil {
		return nil, false, err
	}
	re, err := are.Compile(pattern, f)
	return re, global, err
}
