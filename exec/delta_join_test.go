package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// testArrangements serves several test arrangements by index id.
type testArrangements map[uint64]*testArrangement

func (m testArrangements) Lookup(index uint64, key []byte, d *repr.ColDecoder, fn func(repr.Row, int64) bool) error {
	a := m[index]
	if a == nil {
		return fmt.Errorf("no index %d", index)
	}
	return a.Lookup(9, key, d, fn)
}

// deltaJoinBase is three collections (k, v, s) joined a.v = b.k, b.v =
// c.v, a.k = c.k (a cycle) with c filtered and a residual a.k <= c.v.
const deltaJoinBase = `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Source coll=3 :: int4, int4, text
%3 = MFP filter=[(#2 <> 'c')] project=[#0, #1, #2] <- %2
`

// deltaJoinPlans are the binary chain and delta joins of deltaJoinBase
// that TestDeltaJoinRandom compares: the chain, a delta join with only
// private arrangements, and one reading a and c from shared ones (index
// 9: coll 1 by k, index 10: coll 3 by v).
var deltaJoinPlans = []string{
	deltaJoinBase + `%4 = Join kind=inner on=[#1=#0] <- %0, %1
%5 = Join kind=inner on=[#4=#1, #0=#0] residual=[(#0 <= #7)] <- %4, %3`,
	deltaJoinBase + `%4 = DeltaJoin on=[#1=#3, #4=#7, #0=#6] residual=[(#0 <= #7)] path0=[1:#1=#3, 2:#4=#7+#0=#6] path1=[0:#3=#1, 2:#4=#7] path2=[1:#7=#4, 0:#6=#0] <- %0, %1, %3`,
	deltaJoinBase + `%4 = DeltaJoin on=[#1=#3, #4=#7, #0=#6] residual=[(#0 <= #7)] path0=[2:#0=#6, 1:#1=#3] path1=[2:#4=#7@10, 0:#3=#1] path2=[0:#6=#0@9, 1:#7=#4+#1=#3] <- %0, %1, %3`,
}

// TestDeltaJoinRandom feeds random insertions and retractions of three
// collections, in random batches that often change several of them at
// once (some rolled back, some followed by a restore from the logged
// state), to a binary join chain and to delta joins of the same inputs
// (private and shared arrangements, the latter kept as the coordinator
// keeps indexes), and checks that all emit the same changes.
func TestDeltaJoinRandom(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	arrs := testArrangements{
		9:  {cols: []int{0}, rows: map[string]int64{}, row: map[string]repr.Row{}},
		10: {cols: []int{1}, rows: map[string]int64{}, row: map[string]repr.Row{}},
	}
	arrColl := map[uint64]repr.CollectionID{9: 1, 10: 3}
	flows := make([]*Dataflow, len(deltaJoinPlans))
	stores := make([]*memStore, len(deltaJoinPlans))
	for i, p := range deltaJoinPlans {
		flows[i], stores[i] = buildText(t, p), newMemStore()
	}
	live := [3]map[string]int64{{}, {}, {}}
	for step := 1; step <= 400; step++ {
		in := map[repr.CollectionID][]repr.Update{}
		for c := range 3 {
			if rng.IntN(3) > 0 {
				in[repr.CollectionID(c+1)] = randomChanges(rng, live[c], repr.Time(step))
			}
		}
		for id, a := range arrs {
			for _, u := range in[arrColl[id]] {
				a.apply(u.Row, u.Diff)
			}
		}
		var want string
		ws := make([]*opBatch, len(flows))
		for i, f := range flows {
			ws[i] = &opBatch{}
			got, err := f.StepInput(nil, repr.Time(step), Input{Updates: in, Arrangements: arrs}, ws[i])
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				want = formatDelta(got)
			} else if g := formatDelta(got); g != want {
				t.Fatalf("step %d: binary chain\n%s\ndelta join %d\n%s", step, want, i, g)
			}
		}
		if rng.IntN(8) == 0 { // undo the step everywhere
			for _, f := range flows {
				f.Rollback()
			}
			for id, a := range arrs {
				for _, u := range in[arrColl[id]] {
					a.apply(u.Row, -u.Diff)
				}
			}
			for c := range 3 {
				for _, u := range in[repr.CollectionID(c+1)] {
					live[c][string(repr.AppendRowKey(nil, u.Row))] -= u.Diff
				}
			}
			continue
		}
		for i, f := range flows {
			f.Commit()
			ws[i].apply(stores[i])
			if i > 0 && rng.IntN(20) == 0 { // restart from the log
				flows[i] = buildText(t, deltaJoinPlans[i])
				if err := flows[i].Restore(stores[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
