package exec

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
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
func TestDeltaJoinRandom(t *testing.T) { testDeltaJoinPlans(t, deltaJoinPlans) }

// deltaBorrowPlans compute the join of deltaJoinBase without its residual
// as the union of two joins, one with the residual a.k <= c.v and one
// with a.k > c.v whose inputs come in the other order (c, b, a): a binary
// chain, two delta joins each with its own arrangements, and the second
// delta join borrowing every arrangement it reads from the first
// (DeltaLookup.Borrow), so that its paths read inputs that come before
// and after them in its own input order from arrangements the first one
// has already brought up to date.
var deltaBorrowPlans = []string{
	deltaJoinBase + `%4 = Join kind=inner on=[#1=#0] <- %0, %1
%5 = Join kind=inner on=[#4=#1, #0=#0] <- %4, %3`,
	deltaJoinBase + deltaBorrowFirst + `%5 = DeltaJoin on=[#7=#3, #4=#1, #6=#0] residual=[(#6 > #1)] path0=[1:#1=#4, 2:#0=#6] path1=[0:#4=#1, 2:#3=#7] path2=[1:#7=#3, 0:#4=#1+#6=#0] <- %3, %1, %0
` + deltaBorrowUnion,
	deltaJoinBase + deltaBorrowFirst + `%5 = DeltaJoin on=[#7=#3, #4=#1, #6=#0] residual=[(#6 > #1)] path0=[1:#1=#4@%4, 2:#0=#6@%4] path1=[0:#4=#1@%4, 2:#3=#7@%4] path2=[1:#7=#3@%4, 0:#4=#1+#6=#0@%4] <- %3, %1, %0
` + deltaBorrowUnion,
}

const (
	deltaBorrowFirst = `%4 = DeltaJoin on=[#1=#3, #4=#7, #0=#6] residual=[(#0 <= #7)] path0=[1:#1=#3, 2:#4=#7+#0=#6] path1=[0:#3=#1, 2:#4=#7] path2=[1:#7=#4, 0:#6=#0] <- %0, %1, %3
`
	deltaBorrowUnion = `%6 = MFP project=[#6, #7, #8, #3, #4, #5, #0, #1, #2] <- %5
%7 = Union <- %4, %6`
)

// TestDeltaJoinBorrowRandom is TestDeltaJoinRandom over deltaBorrowPlans:
// a delta join reading another's arrangements emits what it would with
// its own, through rollbacks and restores.
func TestDeltaJoinBorrowRandom(t *testing.T) { testDeltaJoinPlans(t, deltaBorrowPlans) }

// TestDeltaJoinBorrowState checks that the borrowing delta join keeps no
// arrangement of its own and that a bad borrow fails to build.
func TestDeltaJoinBorrowState(t *testing.T) {
	f := buildText(t, deltaBorrowPlans[2])
	if o := f.ops[5].(*deltaJoin); len(o.arrs) != 0 {
		t.Fatalf("the borrowing delta join keeps %d arrangements", len(o.arrs))
	}
	if o := buildText(t, deltaBorrowPlans[1]).ops[5].(*deltaJoin); len(o.arrs) != 6 {
		t.Fatalf("the private delta join keeps %d arrangements, want 6", len(o.arrs))
	}
	bad := strings.Replace(deltaBorrowPlans[2], "0:#4=#1+#6=#0@%4", "0:#6=#0+#4=#1@%4", 1)
	p, err := dataflow.Parse(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(p); err == nil || !strings.Contains(err.Error(), "keeps no arrangement") {
		t.Fatalf("a borrow of an arrangement the lender does not keep built: %v", err)
	}
}

// deltaGroupPlans join a grouped Reduce of a (count and sum by a.v,
// mapped by an MFP) with b and c: a binary chain, a delta join with its
// own arrangement of the Reduce's rows, and one reading them from the
// Reduce's groups (DeltaLookup.Borrow naming the Reduce).
var deltaGroupPlans = []string{
	deltaJoinBase + deltaGroupReduce + `%6 = Join kind=inner on=[#1=#1] <- %1, %3
%7 = Join kind=inner on=[#0=#0] residual=[(#8 <> #7)] <- %6, %5`,
	deltaJoinBase + deltaGroupReduce + `%6 = DeltaJoin on=[#0=#6, #1=#4] residual=[(#8 <> #7)] path0=[2:#0=#6, 1:#1=#4] path1=[0:#4=#1, 2:#0=#6] path2=[0:#6=#0, 1:#1=#4] <- %1, %3, %5`,
	deltaJoinBase + deltaGroupReduce + `%6 = DeltaJoin on=[#0=#6, #1=#4] residual=[(#8 <> #7)] path0=[2:#0=#6@%4, 1:#1=#4] path1=[0:#4=#1, 2:#0=#6@%4] path2=[0:#6=#0, 1:#1=#4] <- %1, %3, %5`,
}

const deltaGroupReduce = `%4 = Reduce key=[#1] aggs=[count(*), sum(#0)] <- %0
%5 = MFP map=[(#1 + #1)] project=[#0, #3, #2] <- %4
`

// TestDeltaJoinGroupsRandom is TestDeltaJoinRandom over deltaGroupPlans: a
// delta join reading a Reduce's groups emits what it would with its own
// arrangement of them, through rollbacks and restores.
func TestDeltaJoinGroupsRandom(t *testing.T) { testDeltaJoinPlans(t, deltaGroupPlans) }

// TestDeltaJoinGroupsState checks that the delta join reading the
// Reduce's groups keeps no arrangement of them, and that a lookup by
// less than the whole group key is refused.
func TestDeltaJoinGroupsState(t *testing.T) {
	if o := buildText(t, deltaGroupPlans[1]).ops[6].(*deltaJoin); len(o.arrs) != 4 {
		t.Fatalf("the delta join with its own arrangements keeps %d, want 4", len(o.arrs))
	}
	if o := buildText(t, deltaGroupPlans[2]).ops[6].(*deltaJoin); len(o.arrs) != 3 {
		t.Fatalf("the delta join reading the groups keeps %d arrangements, want 3 (of b and c)", len(o.arrs))
	}
	bad := strings.Replace(deltaGroupPlans[2], "%4 = Reduce key=[#1]", "%4 = Reduce key=[#1, #2]", 1)
	bad = strings.Replace(bad, "map=[(#1 + #1)] project=[#0, #3, #2]", "map=[(#2 + #2)] project=[#0, #4, #3]", 1)
	p, err := dataflow.Parse(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(p); err == nil || !strings.Contains(err.Error(), "whole group key") {
		t.Fatalf("a lookup by part of the group key built: %v", err)
	}
}

// testDeltaJoinPlans runs plans (over deltaJoinBase's collections) on the
// same random changes and checks that all emit what the first emits.
func testDeltaJoinPlans(t *testing.T, plans []string) {
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
	flows := make([]*Dataflow, len(plans))
	stores := make([]*memStore, len(plans))
	for i, p := range plans {
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
				flows[i] = buildText(t, plans[i])
				if err := flows[i].Restore(stores[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
