package repr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestParseShortDecimal checks parseDecimal's fast path against apd's
// general parser, which it must equal digit for digit (coefficient, sign,
// exponent: the display scale) on every input it takes.
func TestParseShortDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"0", "-0", "-0.00", "+5", "007.50", ".5", "5.", "-.25", "123456789012345678",
		"-999999999999999999", "0.00000000000000001"}
	for range 5000 {
		s := []string{"", "-", "+"}[r.IntN(3)] + fmt.Sprint(r.Int64N(1e12))
		if r.IntN(2) == 0 {
			s += "." + fmt.Sprint(r.Int64N(1e6))[:1+r.IntN(3)]
		}
		inputs = append(inputs, s)
	}
	for _, s := range inputs {
		got, ok := parseShortDecimal(s)
		if !ok {
			t.Fatalf("parseShortDecimal(%q) declined", s)
		}
		want, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		normalizeNumeric(want)
		normalizeNumeric(got)
		if got.Cmp(want) != 0 || got.Exponent != want.Exponent || got.Negative != want.Negative {
			t.Fatalf("%q: got %s (exp %d), want %s (exp %d)", s, got, got.Exponent, want, want.Exponent)
		}
	}
	for _, s := range []string{"1e3", "1234567890123456789", "1.2.3"} {
		if _, ok := parseShortDecimal(s); ok {
			t.Errorf("parseShortDecimal(%q) took it", s)
		}
	}
}
