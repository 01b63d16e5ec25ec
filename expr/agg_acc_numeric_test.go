package expr

import (
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// TestNumericSumSmallEqualsDecimal checks the numeric sum kept in 64 bits
// (and its switch to a decimal on overflow) against an apd sum of the
// same values, after every addition and through Pack and the log form.
func TestNumericSumSmallEqualsDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for run := range 300 {
		var a Acc
		want := apd.New(0, 0)
		for step := range 40 {
			c := rng.Int64N(1 << uint(rng.IntN(62)+1))
			if rng.IntN(2) == 0 {
				c = -c
			}
			v := apd.New(c, int32(rng.IntN(13)-8))
			diff := int64(rng.IntN(5) - 2)
			if rng.IntN(10) == 0 {
				diff = rng.Int64N(1 << 40)
			}
			a.Add(AccNumeric, repr.NewNumeric(v), diff)
			var p apd.Decimal
			_, _ = decCtx.Mul(&p, v, apd.New(diff, 0))
			_, _ = decCtx.Add(want, want, &p)
			got := a.numericDec()
			if got == nil {
				got = apd.New(0, 0)
			}
			if got.Cmp(want) != 0 {
				t.Fatalf("run %d step %d: sum %s, want %s", run, step, got, want)
			}
			scale := int32(rng.IntN(10))
			if g, w := a.numericSum(scale).String(), quantized(want, scale); g != w {
				t.Fatalf("run %d step %d: sum at scale %d %s, want %s", run, step, scale, g, w)
			}
			w := make([]int64, AccNumeric.Words())
			d := make([]*apd.Decimal, AccNumeric.Decs())
			AccNumeric.Pack(&a, w, d)
			b := AccNumeric.Decode(AccNumeric.Append(nil, new(AccNumeric.Unpack(w, d))))
			if g := b.numericSum(scale).String(); g != quantized(want, scale) {
				t.Fatalf("run %d step %d: restored sum %s, want %s", run, step, g, quantized(want, scale))
			}
		}
	}
}

// quantized formats d rounded to scale digits after the point.
func quantized(d *apd.Decimal, scale int32) string {
	var r apd.Decimal
	_, _ = decCtx.Quantize(&r, d, -scale)
	return r.String()
}
