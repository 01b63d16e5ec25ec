package are

import (
	"errors"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// FuzzCompile feeds arbitrary patterns and flags to Compile, which reads
// user input: it never panics, fails only with PostgreSQL's 2201B (an
// invalid pattern) or 0A000 (a construct it does not run), and a pattern
// it accepts matches text and compiles its shifted form without failing.
func FuzzCompile(f *testing.F) {
	for _, p := range []string{`a+b*`, `\mfoo\M`, `[[:alpha:]]+\y`, `(?i)ab|cd`, `***=a.b`, `***:(?x) a # c`,
		`[^\n]`, `\x41\u00e9\b`, `(a)\1`, `a{2,3}?`, `[[.hyphen.]]`, `[[=a=]]`, `(?=a)`, `\pL`, `[a-`} {
		f.Add(p, uint8(0))
		f.Add(p, uint8(ICase|NLStop|Expanded))
	}
	f.Fuzz(func(t *testing.T, pattern string, flags uint8) {
		fl := Flags(flags) & (ICase | NLStop | NLAnch | Expanded | Quote)
		re, err := Compile(pattern, fl)
		if err != nil {
			var e *repr.Error
			if !errors.As(err, &e) || (e.Code != "2201B" && e.Code != repr.CodeFeatureNotSupported) {
				t.Fatalf("Compile(%q, %d): %v, want 2201B or 0A000", pattern, fl, err)
			}
			return
		}
		re.MatchString("Ab c\nd_é 12")
		if re.Shifted() == nil {
			t.Fatalf("Compile(%q, %d): no shifted form", pattern, fl)
		}
	})
}
