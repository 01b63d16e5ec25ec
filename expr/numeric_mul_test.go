package expr

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// TestNumericMulFastPath checks numericMul against apd's exact
// multiplication on random operands, many of them inside the 64-bit fast
// path and some past it (large coefficients, products that overflow 64
// bits, zeros, signs, NaN and infinities): the results must be identical,
// coefficient, exponent and sign.
func TestNumericMulFastPath(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	random := func() *apd.Decimal {
		d := &apd.Decimal{Exponent: int32(rng.IntN(12) - 8), Negative: rng.IntN(2) == 0}
		switch rng.IntN(12) {
		case 0:
			return &apd.Decimal{Form: apd.NaN}
		case 1:
			return &apd.Decimal{Form: apd.Infinite, Negative: d.Negative}
		case 2:
			d.Negative = false // zero
		case 3:
			d.Coeff.SetUint64(math.MaxUint64 - rng.Uint64N(1000))
		case 4:
			d.Coeff.SetString("123456789012345678901234567890", 10)
		default:
			d.Coeff.SetUint64(rng.Uint64() >> rng.IntN(64))
		}
		return d
	}
	fast := 0
	for range 20000 {
		x, y := random(), random()
		if _, ok := mulSmall(x, y); ok {
			fast++
		}
		args := []repr.Datum{repr.NewNumeric(x), repr.NewNumeric(y)}
		got, gerr := numericMul(nil, args)
		want, werr := numericOp(exactCtx.Mul)(nil, args)
		if (gerr != nil) != (werr != nil) {
			t.Fatalf("%s * %s: error %v, apd's %v", x, y, gerr, werr)
		}
		if werr != nil {
			continue
		}
		g, w := got.Numeric(), want.Numeric()
		if g.Form != w.Form || g.Negative != w.Negative || g.Exponent != w.Exponent || g.Coeff.Cmp(&w.Coeff) != 0 {
			t.Fatalf("%s * %s = %s (exp %d), apd gives %s (exp %d)", x, y, g, g.Exponent, w, w.Exponent)
		}
	}
	if fast < 5000 {
		t.Fatalf("only %d of 20000 products took the fast path", fast)
	}
}
