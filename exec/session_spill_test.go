package exec

import "testing"

// sessionSpillPlans are the session windows
// TestSpilledSessionEqualsInMemory runs: per (k, v) and per k, with gaps
// shorter and longer than the rows' spacing, and sessions counted per
// group and window (the windowed Reduce closing them). Sources have
// columns (k int4, v int4, ts timestamp); ts carries the watermark.
var sessionSpillPlans = []string{
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[#0, #1] time=#2 gap=1s <- %0`,
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[#0] time=#2 gap=2s <- %0`,
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[#0, #1] time=#2 gap=1s <- %0
%2 = Reduce key=[#0, #3, #4] aggs=[count(*), sum(#1)] <- %1`,
}

// TestSpilledSessionEqualsInMemory is TestSpilledWindowEqualsInMemory
// for SessionWindows: spilled by group (at random checkpoints, with
// caches from nothing to a few groups, restarted at random within a
// random memory bound, which rebuilds the close index from the store), a
// SessionWindow emits exactly what the same operator in memory emits,
// closes the same sessions at the same Steps and logs the same state.
func TestSpilledSessionEqualsInMemory(t *testing.T) {
	runs := checkSpilledEqualsInMemory(t, sessionSpillPlans, false)
	n := 0
	for _, r := range runs {
		n += r.spilledOps["*exec.sessionOp"]
	}
	if n == 0 {
		t.Fatal("no SessionWindow spilled")
	}
}
