package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestSharedReduceRandom feeds random insertions and retractions of a
// collection, in random batches (some rolled back), to a grouped Reduce
// that keeps its groups and to the same Reduce reading them, through a
// filtering MFP, from a shared arrangement that the test keeps as the
// coordinator would (updated before each Step, undone with a rolled-back
// Step), and checks that the two always emit the same changes. The
// second plan groups by two columns in another order than the
// arrangement's, the third reads the collection through two MFPs.
func TestSharedReduceRandom(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 12))
	const base = `%0 = Source coll=1 :: int4, int4, text
%1 = MFP filter=[(#2 <> 'c')] project=[#0, #1, #2] <- %0
%2 = MFP map=[(#1 * 2)] filter=[(#1 <> 3)] project=[#2, #0, #3] <- %1
`
	for _, c := range []struct {
		reduce, shared, in string
		cols               []int
	}{
		{`%3 = Reduce key=[#0] aggs=[count(*), sum(#1), min(#2), max(#1), count(DISTINCT #2)]`, ` shared=9 lookup=[#0]`, " <- %1", []int{0}},
		{`%3 = Reduce key=[#1, #0] aggs=[count(*), max(#2)]`, ` shared=9 lookup=[#0, #1]`, " <- %1", []int{0, 1}},
		// Through a chain of MFPs, the second computing a column.
		{`%3 = Reduce key=[#1] aggs=[sum(#2), min(#0)]`, ` shared=9 lookup=[#1]`, " <- %2", []int{0}},
	} {
		plain := buildText(t, base+c.reduce+c.in)
		shared := buildText(t, base+c.reduce+c.shared+c.in)
		arr := &testArrangement{cols: c.cols, rows: map[string]int64{}, row: map[string]repr.Row{}}
		live := map[string]int64{}
		for step := 1; step <= 400; step++ {
			in := map[repr.CollectionID][]repr.Update{1: randomChanges(rng, live, repr.Time(step))}
			for _, u := range in[1] {
				arr.apply(u.Row, u.Diff)
			}
			want, err := plain.Step(nil, repr.Time(step), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := shared.StepInput(nil, repr.Time(step), Input{Updates: in, Arrangements: arr}, &opBatch{})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := formatDelta(want), formatDelta(got); a != b {
				t.Fatalf("%s, step %d: plain Reduce\n%s\nshared Reduce\n%s", c.reduce, step, a, b)
			}
			if rng.IntN(8) == 0 { // undo the step everywhere
				plain.Rollback()
				shared.Rollback()
				for _, u := range in[1] {
					arr.apply(u.Row, -u.Diff)
					live[string(repr.AppendRowKey(nil, u.Row))] -= u.Diff
				}
				continue
			}
			plain.Commit()
			shared.Commit()
		}
	}
}
