package are

import (
	"fmt"
	"slices"
	"testing"
)

// TestVMAgreesWithRE2 runs patterns without \m and \M through both the
// VM and RE2 over ASCII subjects, where their word characters agree, from
// every start position: the VM must find the same leftmost-longest match
// and the same groups.
func TestVMAgreesWithRE2(t *testing.T) {
	patterns := []string{
		`a+b*`, `(a|ab)(c|bcd)(d*)`, `\yfoo\y`, `o\Yo`, `(a*)(b*)`, `x*`, `(?i)AB|cd`,
		`^a|b$`, `(?m)^b`, `[^\n]+`, `(a)|(b)`, `((a)|b)+`, `\w+\y`, `.\Y.`, `(|a)+`,
		`a{2,3}`, `(?s).+`, `\Aab`, `b\Z`, `\y`, `\Y`, `(\y\w)+`,
	}
	subjects := []string{"", "a", "ab", "abcd", "aab cd", "foo bar", "xabcabcd\nb", "a_b c", "AB cd"}
	for _, p := range patterns {
		prefix, body, err := Translate(p, NLStop)
		if err != nil {
			t.Fatalf("Translate(%q): %v", p, err)
		}
		re, err := Compile(p, NLStop)
		if err != nil {
			t.Fatalf("Compile(%q): %v", p, err)
		}
		prog, err := compileProg(prefix + body)
		if err != nil {
			t.Fatalf("compileProg(%q): %v", p, err)
		}
		ncap := 2 * (re.NumSubexp() + 1)
		for _, s := range subjects {
			for from := 0; from <= len(s); from++ {
				want := fmt.Sprint(re.FindAt(s, from))
				if got := fmt.Sprint(vmFind(prog, ncap, s, from)); got != want {
					t.Errorf("%q in %q from %d: VM %s, RE2 %s", p, s, from, got, want)
				}
			}
		}
	}
}

// TestWordConstraintsUnicode checks \m \M \y \Y at every position of
// subjects with non-ASCII word characters, against the definition: a word
// character is a letter, a digit of any script, or _.
func TestWordConstraintsUnicode(t *testing.T) {
	for _, s := range []string{"héllo wörld", "добрый день", "a é,x", "x٣ 語", "ü"} {
		for _, c := range []struct {
			pattern string
			want    func(prev, next bool) bool
		}{
			{`\m`, func(p, n bool) bool { return !p && n }},
			{`\M`, func(p, n bool) bool { return p && !n }},
			{`\y`, func(p, n bool) bool { return p != n }},
			{`\Y`, func(p, n bool) bool { return p == n }},
		} {
			re, err := Compile(c.pattern, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []int
			for p := 0; p <= len(s); p = next(s, p) {
				if loc := re.FindAt(s, p); loc != nil && loc[0] == p {
					got = append(got, p)
				}
				prev, nextWord := false, false
				for _, r := range s[:p] {
					prev = isUWord(r)
				}
				for _, r := range s[p:] {
					nextWord = isUWord(r)
					break
				}
				if c.want(prev, nextWord) {
					want = append(want, p)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s in %q: at %v, want %v", c.pattern, s, got, want)
			}
		}
	}
}

// next returns the byte offset after the rune at p (p+1 at the end).
func next(s string, p int) int {
	if _, w := runeAt(s, p); w > 0 {
		return p + w
	}
	return p + 1
}
