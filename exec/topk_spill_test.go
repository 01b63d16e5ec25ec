package exec

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// topkSpillPlans are the TopKs TestSpilledTopKEqualsInMemory runs: one
// ordered on one column (ties broken by the whole row), a ranked one, one
// without a limit on a two-column key, and a TopK over a Reduce, both
// spilling. Sources have columns (k int4, v int4, s text).
var topkSpillPlans = []string{
	`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#0] order=[#1%d] limit=%l offset=%o <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#2] order=[#1%d, #0] limit=%l offset=%o rank=true <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#0, #2] order=[#1%d] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0, #2] aggs=[count(*), sum(#1)] <- %0
%2 = TopK key=[#0] order=[#3%d] limit=%l <- %1`,
}

// TestSpilledTopKEqualsInMemory checks, over random TopKs and random
// update streams (inserts, deletes, rolled-back Steps), that a TopK whose
// groups spill (at random checkpoints, with caches from nothing to a few
// groups, restarted at random within a random memory bound) emits exactly
// what the same TopK in memory emits, and logs exactly the same state.
func TestSpilledTopKEqualsInMemory(t *testing.T) {
	checkSpilledEqualsInMemory(t, topkSpillPlans, false)
}

// TestTopKRestoresRowKeyedState checks that TopK state logged by row key
// alone (before rows were logged under their group key) restores, keeps
// being logged that way, and never spills, while the same TopK built
// afresh logs by group key.
func TestTopKRestoresRowKeyedState(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#0] order=[#1] limit=2 <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	batch := func(step uint64) map[repr.CollectionID][]repr.Update {
		var us []repr.Update
		for range 8 {
			us = append(us, repr.Update{Row: randomRow(rng), Time: step, Diff: 1})
		}
		return map[repr.CollectionID][]repr.Update{1: us}
	}
	build := func() *Dataflow {
		d, err := Build(p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ref := build()
	old, err := BuildWorkers(p, 1) // white-box: one TopK
	if err != nil {
		t.Fatal(err)
	}
	old.ops[1].(*topkOp).keyed = false
	oldStore, refStore := newMemStore(), newMemStore()
	step := func(d *Dataflow, s *memStore, b map[repr.CollectionID][]repr.Update, at uint64) string {
		var w opBatch
		out, err := d.Step(nil, at, b, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		w.apply(s)
		return formatUpdates(out)
	}
	for at := uint64(1); at <= 3; at++ {
		b := batch(at)
		step(old, oldStore, b, at)
		step(ref, refStore, b, at)
	}
	restored := build()
	if err := restored.Restore(oldStore); err != nil {
		t.Fatal(err)
	}
	if len(restored.SpillCandidates()) != 0 {
		t.Fatal("a TopK restored from row-keyed state is a spill candidate")
	}
	for at := uint64(4); at <= 6; at++ {
		b := batch(at)
		if a, b := step(restored, oldStore, b, at), step(ref, refStore, b, at); a != b {
			t.Fatalf("step %d: restored row-keyed TopK emitted\n%s\nfresh one\n%s", at, a, b)
		}
	}
	tagged := func(s *memStore) (n int) {
		prefix := string(nodePrefix(nil, 1)) + string(tagKGroup)
		for k := range s.m {
			if strings.HasPrefix(k, prefix) {
				n++
			}
		}
		return n
	}
	if n := tagged(oldStore); n != 0 {
		t.Fatalf("restored row-keyed state logged %d rows by group key", n)
	}
	if n := tagged(refStore); n == 0 || n != len(refStore.m) {
		t.Fatalf("fresh TopK logged %d of %d rows by group key", n, len(refStore.m))
	}
}
