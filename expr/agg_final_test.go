package expr

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// TestSumResultFromSlab checks that sum's numeric results take their
// decimal from AggCall.Decs when it is set (no allocation per result)
// and equal the results computed without it.
func TestSumResultFromSlab(t *testing.T) {
	for _, tc := range []struct {
		class AccClass
		v     repr.Datum
		scale int32
	}{
		{AccInt, repr.NewInt(-41), 0},
		{AccNumeric, repr.NewNumeric(apd.New(1234, -2)), 2},
	} {
		var ac Acc
		ac.Add(tc.class, tc.v, 3)
		c := AggCall{Kind: AggSum, Class: tc.class, T: repr.Numeric, Scale: tc.scale}
		want, err := finalSum(&c, &ac, nil)
		if err != nil {
			t.Fatal(err)
		}
		var decs repr.DecimalSlab
		c.Decs = &decs
		var got repr.Datum
		allocs := testing.AllocsPerRun(100, func() {
			for range 64 {
				got, _ = finalSum(&c, &ac, nil)
			}
		})
		if got.Numeric().Cmp(want.Numeric()) != 0 || got.String() != want.String() {
			t.Fatalf("%v: slab sum %s, want %s", tc.class, got, want)
		}
		if allocs > 4 { // a few chunks per 64 results, never one each
			t.Fatalf("%v: %.0f allocations per 64 sums", tc.class, allocs)
		}
	}
}
