package exec

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// closingJoinPlans are the plans of intervalPlans with an interval join
// (q4, q9 and q7 shapes, outer joins with strict bounds, a bound on an
// equi-join key, q5 over a join) and the window join of windowPlans (q8).
var closingJoinPlans = []string{
	intervalPlans[0], intervalPlans[1], intervalPlans[2], intervalPlans[3],
	intervalPlans[4], intervalPlans[5], intervalPlans[7], windowPlans[3],
}

// TestSpilledClosingJoinEqualsInMemory is TestSpilledJoinEqualsInMemory
// for interval and window joins over event-time streams whose
// watermarks advance at random: spilled (at random checkpoints, or by a
// restart within a random bound) a join frees exactly the rows the same
// join in memory frees, at the same Steps (the logged state, deletions
// included, is compared at every checkpoint), and emits the same rows.
func TestSpilledClosingJoinEqualsInMemory(t *testing.T) {
	runs := checkSpilled(t, closingJoinPlans, func(text string, rng *rand.Rand) (*spillRun, error) {
		return runSpilled(strings.ReplaceAll(text, "%e", ""), rng, false)
	})
	spilled := map[string]int{}
	for _, r := range runs {
		for op, n := range r.spilledOps {
			spilled[op] += n
		}
	}
	t.Logf("spills by operator: %v", spilled)
	for _, op := range []string{"*exec.intervalJoin", "*exec.windowJoin", "small side kept"} {
		if spilled[op] == 0 {
			t.Errorf("no %s spilled", op)
		}
	}
}

// closingJoin returns the joinOp of a window or interval join, nil for
// other operators.
func closingJoin(op operator) *joinOp {
	switch o := op.(type) {
	case *intervalJoin:
		return o.joinOp
	case *windowJoin:
		return o.joinOp
	}
	return nil
}
