package exec

import "testing"

// windowSpillPlans are the windowed plans TestSpilledWindowEqualsInMemory
// runs: windowPlans (windowReduces emitting on update or on close, q5's
// and q8's shapes) and a windowTopK per tumbling window. Sources have
// columns (k int4, v int4, ts timestamp); ts carries the watermark.
var windowSpillPlans = append(windowPlans[:len(windowPlans):len(windowPlans)],
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#3, #0, #1] <- %0
%2 = TopK key=[#0] order=[#2%d, #1] limit=%l offset=%o <- %1`)

// TestSpilledWindowEqualsInMemory checks, over random windowed Reduces
// and TopKs and random update streams with advancing watermarks (inserts,
// deletes, rolled-back Steps, every window closed at the end), that an
// operator whose groups spill (at random checkpoints, with caches from
// nothing to a few groups, restarted at random within a random memory
// bound, which rebuilds its close index from the store) emits exactly what
// the same operator in memory emits, and logs exactly the same state.
func TestSpilledWindowEqualsInMemory(t *testing.T) {
	runs := checkSpilledEqualsInMemory(t, windowSpillPlans, false)
	windowed := 0
	for _, r := range runs {
		for _, n := range r.sp.SpilledNodes() {
			switch unsharded(r.sp.ops[n]).(type) {
			case *windowReduce, *windowTopK:
				windowed++
			}
		}
	}
	if windowed == 0 {
		t.Fatal("no windowReduce or windowTopK was spilled at the end of a run")
	}
}

// TestSpilledWindowFuncEqualsInMemory is TestSpilledWindowEqualsInMemory
// for the Window operator (window functions) over windowRandomPlans:
// partitioned ones spill by partition (in chunks of 4 positions, so that
// loading and changing partitions splits and merges chunks).
func TestSpilledWindowFuncEqualsInMemory(t *testing.T) {
	defer func(n int) { wchunkMax = n }(wchunkMax)
	wchunkMax = 4
	runs := checkSpilledEqualsInMemory(t, windowRandomPlans, false)
	n := 0
	for _, r := range runs {
		for _, i := range r.sp.SpilledNodes() {
			if _, ok := r.sp.ops[i].(*windowOp); ok {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no Window was spilled at the end of a run")
	}
}
