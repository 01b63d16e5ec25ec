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

// TestISODate checks parseDate's YYYY-MM-DD fast path against the general
// parser (reached with a leading space), which must accept exactly the
// dates the fast path takes, with the same value, and reject the others.
func TestISODate(t *testing.T) {
	for _, y := range []int{0, 1, 4, 99, 100, 1600, 1899, 1900, 1970, 1992, 1998, 2000, 2024, 2100, 9999} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
				fast, ok := isoDate(s)
				general, err := parseDate(" "+s, nil)
				switch {
				case ok && (err != nil || general != NewDate(int32(fast))):
					t.Errorf("%s: fast path %d, general %v %v", s, fast, general, err)
				case !ok && err == nil:
					t.Errorf("%s: fast path declined, general took it: %v", s, general)
				}
			}
		}
	}
	for _, s := range []string{"2024-1-02", "2024/01/02", "20240102", "2024-01-0x", "+024-01-02"} {
		if _, ok := isoDate(s); ok {
			t.Errorf("isoDate(%q) took it", s)
		}
	}
}
