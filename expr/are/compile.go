package are

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
)

// Regexp is a compiled ARE: the RE2 expression, leftmost-longest as an ARE
// without non-greedy quantifiers matches.
type Regexp struct {
	*regexp.Regexp
	prefix, body string
	// boundaries notes a word boundary (\y \Y \m \M), which RE2 decides
	// on ASCII word characters only (CheckSubject).
	boundaries bool

	once    sync.Once
	shifted *regexp.Regexp
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
	re = &Regexp{Regexp: std, prefix: prefix, body: body, boundaries: hasBoundary(prefix + body)}
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

// CheckSubject refuses (0A000) to match s when the pattern has a word
// boundary and s holds a non-ASCII character: PostgreSQL's word
// characters are the locale's (é is one), RE2's boundaries know only
// ASCII ones, and a match there could be a wrong answer.
func (r *Regexp) CheckSubject(s string) error {
	if !r.boundaries {
		return nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return unsupported("word boundaries (\\y, \\Y, \\m, \\M) in regular expressions over non-ASCII text are not supported")
		}
	}
	return nil
}
