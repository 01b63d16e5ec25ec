package exec

import (
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// reduceSpillPlans are the Reduces TestSpilledReduceEqualsInMemory runs:
// scalar accumulators beside min/max, DISTINCT and string_agg multisets;
// a two-column key with DISTINCT sums; ordered-set aggregates; DISTINCT
// rows; and a Reduce over a join, both spilling. Sources have columns
// (k int4, v int4, s text).
var reduceSpillPlans = []string{
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[count(*), sum(#1), avg(#1), min(#1), max(#2), count(DISTINCT #1), string_agg(#2, #2)] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#2, #0] aggs=[count(DISTINCT #1), sum(DISTINCT #1), count(*)] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[mode() WITHIN GROUP (ORDER BY #1), percentile_cont(0.5) WITHIN GROUP (ORDER BY #1), string_agg(#2, #2 ORDER BY #1 DESC, #2)] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0, #1, #2] aggs=[] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=%j on=[#0=#0] <- %0, %1
%3 = Reduce key=[#1, #5] aggs=[count(*), min(#4), max(#2)] <- %2`,
}

// TestSpilledReduceEqualsInMemory checks, over random Reduces and random
// update streams (inserts, deletes, rolled-back Steps), that a Reduce
// whose groups spill (at random checkpoints, with caches from nothing to
// a few groups, restarted at random within a random memory bound) emits
// exactly what the same Reduce in memory emits, and logs exactly the
// same state.
func TestSpilledReduceEqualsInMemory(t *testing.T) {
	checkSpilledEqualsInMemory(t, reduceSpillPlans, false)
}

// TestDirtyReduceDoesNotSpill checks that a Reduce owing group records
// (a Step with Input.DeferState) refuses to spill until FlushState wrote
// them to the store: a spilled Reduce reads its groups from the store.
func TestDirtyReduceDoesNotSpill(t *testing.T) {
	d := mustBuild(t, reduceSpillPlans[0])
	store := newMemStore()
	in := Input{Updates: map[repr.CollectionID][]repr.Update{1: {
		{Row: repr.Row{repr.NewInt(1), repr.NewInt(2), repr.NewText("a")}, Time: 1, Diff: 1}}}, DeferState: true}
	var b opBatch
	if _, err := d.StepInput(&expr.Ctx{}, 1, in, &b); err != nil {
		t.Fatal(err)
	}
	d.Commit()
	b.apply(store)
	d.SpillNode(1, store, 0) // a shard owing nothing may spill
	owing := 0
	for _, r := range nodeReduces(d.ops[1]) {
		if len(r.dirty) > 0 {
			owing++
			if r.sp != nil {
				t.Fatal("a Reduce owing group records spilled")
			}
		}
	}
	if owing == 0 {
		t.Fatal("no Reduce owes the Step's group record")
	}
	var f opBatch
	if err := d.FlushState(&f); err != nil {
		t.Fatal(err)
	}
	f.apply(store)
	d.SpillNode(1, store, 0)
	for _, r := range nodeReduces(d.ops[1]) {
		if r.sp == nil {
			t.Fatal("a flushed Reduce did not spill")
		}
	}
}

// nodeReduces returns the Reduce of a node, or of each of its shards.
func nodeReduces(op operator) []*reduceOp {
	if o, ok := op.(*shardedOp); ok {
		var out []*reduceOp
		for _, sh := range o.shards {
			out = append(out, sh.op.(*reduceOp))
		}
		return out
	}
	return []*reduceOp{op.(*reduceOp)}
}
