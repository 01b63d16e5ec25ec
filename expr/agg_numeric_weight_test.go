package expr

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestBaseWeightDigits checks baseWeight's arithmetic on 64-bit
// coefficients against reading the leading digits from the coefficient's
// decimal text, for random coefficients and exponents.
func TestBaseWeightDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		c := rng.Uint64() >> rng.IntN(64)
		if c == 0 {
			continue
		}
		d := apd.New(0, int32(rng.IntN(41)-20))
		d.Coeff.SetUint64(c)
		w, digit := baseWeight(d)
		e := adjExp(d)
		k := int(e - 4*w + 1)
		text := d.Coeff.String() + strings.Repeat("0", 4)
		var want int32
		for _, ch := range text[:k] {
			want = want*10 + int32(ch-'0')
		}
		if digit != want || k < 1 || k > 4 {
			t.Fatalf("%s: weight %d digit %d, want digit %d", d, w, digit, want)
		}
	}
}
