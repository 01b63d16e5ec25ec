package are

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Regexp is a compiled ARE: the RE2 expression, leftmost-longest as an ARE
// without non-greedy quantifiers matches.
type Regexp struct {
	std          *regexp.Regexp
	prefix, body string
	// prog runs a pattern with a word constraint (\y \Y \m \M; vm.go):
	// always when marks (it has \m or \M), else over non-ASCII text,
	// where RE2's ASCII word boundaries could answer wrongly.
	prog  *syntax.Prog
	marks bool

	once    sync.Once
	shifted *regexp.Regexp
}

// NumSubexp returns the number of capturing groups.
func (r *Regexp) NumSubexp() int { return r.std.NumSubexp() }

// String returns the RE2 expression.
func (r *Regexp) String() string { return r.std.String() }

// MatchString reports whether s holds a match.
func (r *Regexp) MatchString(s string) bool { return r.FindAt(s, 0) != nil }

// FindStringSubmatchIndex returns the leftmost-longest match in s as
// submatch index pairs, nil if none.
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.FindAt(s, 0) }

// FindStringSubmatch returns the text of the match and its groups ("" for
// a group that did not take part), nil if none.
func (r *Regexp) FindStringSubmatch(s string) []string {
	loc := r.FindAt(s, 0)
	if loc == nil {
		return nil
	}
	out := make([]string, len(loc)/2)
	for i := range out {
		if loc[2*i] >= 0 {
			out[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return out
}

// FindAt returns the first match in s at or after byte offset p as
// submatch indexes into s (nil if none). Anchors and word constraints
// see the text before p.
func (r *Regexp) FindAt(s string, p int) []int {
	if r.prog != nil && (r.marks || !isASCII(s)) {
		return vmFind(r.prog, 2*(r.std.NumSubexp()+1), s, p)
	}
	if p == 0 {
		return r.std.FindStringSubmatchIndex(s)
	}
	// (?s:.)(pattern) from p-1 lets ^ and \y read the character before p.
	loc := r.Shifted().FindStringSubmatchIndex(s[p-1:])
	if loc == nil {
		return nil
	}
	out := loc[2:]
	for i := range out {
		if out[i] >= 0 {
			out[i] += p - 1
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Shifted returns the expression (?s:.)(pattern) under the same flags:
// searching it from byte p-1 finds matches at or after p while anchors
// and word boundaries still see the character before p. Its group 1 is
// the whole match.
func (r *Regexp) Shifted() *regexp.Regexp {
	r.once.Do(func() {
		// A valid body stays valid inside a group.
		re, err := regexp.Compile(r.prefix + "(?s:.)(" + r.body + ")")
		if err != nil {
			re = regexp.MustCompile(`[^\x00-\x{10FFFF}]`) // matches nothing
		}
		re.Longest()
		r.shifted = re
	})
	return r.shifted
}

// cache holds compiled patterns: patterns are usually constants, so a
// small cache avoids recompiling per row. It is cleared when full.
var cache struct {
	sync.Mutex
	m map[string]*Regexp
}

const cacheSize = 256

// Compile translates and compiles ARE pattern under flags f. Invalid
// patterns fail with 2201B, constructs RE2 cannot run with 0A000.
func Compile(pattern string, f Flags) (*Regexp, error) {
	key := string(rune(f)) + pattern
	cache.Lock()
	re := cache.m[key]
	cache.Unlock()
	if re != nil {
		return re, nil
	}
	prefix, body, err := Translate(pattern, f)
	if err != nil {
		return nil, err
	}
	std, err := regexp.Compile(prefix + body)
	if err != nil {
		return nil, invalid(re2Message(err))
	}
	std.Longest()
	re = &Regexp{std: std, prefix: prefix, body: body}
	re.marks = strings.Contains(body, startMark) || strings.Contains(body, endMark)
	if re.marks && (strings.Contains(body, `\x{d800}`) || strings.Contains(body, `\x{d801}`)) {
		return nil, unsupported("the escapes \\uD800 and \\uD801 beside \\m, \\M, [[:<:]] or [[:>:]] in one regular expression are not supported")
	}
	if re.marks || hasBoundary(prefix+body) {
		if re.prog, err = compileProg(prefix + body); err != nil {
			return nil, invalid(re2Message(err))
		}
	}
	cache.Lock()
	if len(cache.m) >= cacheSize || cache.m == nil {
		cache.m = make(map[string]*Regexp)
	}
	cache.m[key] = re
	cache.Unlock()
	return re, nil
}

// re2Messages are PostgreSQL's words for RE2's parse errors.
var re2Messages = map[syntax.ErrorCode]string{
	syntax.ErrMissingParen:          "parentheses () not balanced",
	syntax.ErrUnexpectedParen:       "parentheses () not balanced",
	syntax.ErrMissingBracket:        "brackets [] not balanced",
	syntax.ErrMissingRepeatArgument: "quantifier operand invalid",
	syntax.ErrNestingDepth:          "quantifier operand invalid",
	syntax.ErrInvalidRepeatSize:     "invalid repetition count(s)",
	syntax.ErrInvalidRepeatOp:       "invalid repetition count(s)",
	syntax.ErrInvalidCharRange:      "invalid character range",
	syntax.ErrInvalidEscape:         "invalid escape \\ sequence",
}

// re2Message words an RE2 compile error as PostgreSQL would, without the
// translated pattern (which the user did not write).
func re2Message(err error) string {
	var e *syntax.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	if m, ok := re2Messages[e.Code]; ok {
		return m
	}
	return string(e.Code)
}

// hasBoundary reports whether an RE2 expression asserts a word boundary.
func hasBoundary(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		if r.Op == syntax.OpWordBoundary || r.Op == syntax.OpNoWordBoundary {
			return true
		}
		return slices.ContainsFunc(r.Sub, walk)
	}
	return walk(re)
}
