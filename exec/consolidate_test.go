package exec

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// TestConsolidateKeepsScales checks that Consolidate cancels only
// identical rows: a retraction of -1.43 and an insertion of -1.4300 (an
// aggregate re-emitted at a new scale) both survive, retraction first,
// while identical rows still sum.
func TestConsolidateKeepsScales(t *testing.T) {
	num := func(s string) repr.Datum {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return repr.NewNumeric(d)
	}
	row := func(s string) repr.Row { return repr.Row{repr.NewInt(1), num(s)} }
	got := Consolidate([]repr.Update{
		{Row: row("-1.4300"), Time: 5, Diff: 1},
		{Row: row("-1.43"), Time: 5, Diff: -1},
		{Row: row("2.0"), Time: 5, Diff: 1},
		{Row: row("2.0"), Time: 5, Diff: 2},
		{Row: row("-1.43"), Time: 5, Diff: 1},
		{Row: row("-1.43"), Time: 5, Diff: -2},
	})
	want := []struct {
		num  string
		diff int64
	}{{"-1.43", -2}, {"-1.4300", 1}, {"2.0", 3}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i, w := range want {
		if g := got[i]; g.Row[1].Numeric().String() != w.num || g.Diff != w.diff {
			t.Errorf("update %d: got %s x%d, want %s x%d", i, g.Row[1].Numeric(), g.Diff, w.num, w.diff)
		}
	}
}
