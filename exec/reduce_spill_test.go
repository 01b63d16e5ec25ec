package exec

import "testing"

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
