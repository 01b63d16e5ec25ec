package exec

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// windowRandomPlans are Window plans over t(k int4, v int4, s text) for
// TestWindowRandom. %d is a sort direction, %n a positive constant, %k an
// offset (possibly negative), %f and %g frames (see randomFrame).
var windowRandomPlans = []string{
	// Ranking and offset functions.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[row_number(), rank(), dense_rank(), percent_rank(), cume_dist(), ntile(%n), lag(#2, %k), lead(#1, %n, #1)] <- %0`,
	// Aggregates: running (default frame, with peers), sliding and
	// whole-partition frames.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[count(*), count(#1), sum(#1), avg(#1), min(#2), max(#1), sum(#1) %f, min(#1) %f, max(#2) %g, avg(#1) %g, count(*) %f] <- %0`,
	// Value functions over frames, ordered by text, one partition.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[] order=[#2%d] funcs=[first_value(#1) %f, last_value(#0) %g, nth_value(#1, %n) %f, lag(#0, %k, #1), rank()] <- %0`,
	// Numerics, no ORDER BY (every row a peer), and a second window over
	// the first one's output.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[(CAST(#1 AS numeric) / 4)] project=[#0, #3, #2] <- %0
%2 = Window key=[#2] order=[] funcs=[sum(#1), avg(#1) %f, rank(), cume_dist()] <- %1
%3 = Window key=[#0] order=[#1%d, #3] funcs=[sum(#1) %f, max(#1) %g, row_number(), dense_rank()] <- %2`,
	// Functions with a narrow reach alone, so that nothing wider
	// recomputes the positions they need.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[lag(#2, %k), lead(#1, %n, #1)] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[sum(#1) %f, min(#2) %f] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#2%d] funcs=[first_value(#1) %f, nth_value(#2, %n) %g] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[] order=[#1%d] funcs=[count(#2) %f] <- %0`,
	// A window over an aggregate.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0, #2] aggs=[count(*), sum(#1)] <- %0
%2 = Window key=[#1] order=[#3%d] funcs=[rank(), sum(#2) %f, lag(#0, %k)] <- %1`,
}

// randomFrame draws a valid frame.
func randomFrame(rng *rand.Rand) string {
	bound := func(k int) string {
		n := rng.IntN(3)
		return []string{"UNBOUNDED PRECEDING", fmt.Sprintf("%d PRECEDING", n), "CURRENT ROW",
			fmt.Sprintf("%d FOLLOWING", n), "UNBOUNDED FOLLOWING"}[k]
	}
	if rng.IntN(3) == 0 {
		// RANGE: no offsets.
		s := []int{0, 2}[rng.IntN(2)]
		e := []int{2, 4}[rng.IntN(2)]
		return fmt.Sprintf("RANGE BETWEEN %s AND %s", bound(s), bound(e))
	}
	s := rng.IntN(4)
	e := max(s, 1) + rng.IntN(5-max(s, 1))
	if s == 1 && e == 1 || s == 3 && e == 3 {
		// Both offsets in one direction: any order of them is valid.
		return fmt.Sprintf("ROWS BETWEEN %s AND %s", bound(s), bound(e))
	}
	return fmt.Sprintf("ROWS BETWEEN %s AND %s", bound(s), bound(e))
}

// TestWindowRandom checks Window plans the way TestIncrementalEqualsBatch
// checks its plans: after every random batch (inserts and deletes, some
// rolled back) the accumulated output equals recomputing from scratch,
// and a restored dataflow agrees with the live one. Half the runs use
// chunks of 4 positions, so that chunks split and merge.
func TestWindowRandom(t *testing.T) {
	rng := topkRNG(t)
	defer func(n int) { wchunkMax = n }(wchunkMax)
	for iter := range 180 {
		wchunkMax = []int{512, 4}[iter%2]
		tmpl := windowRandomPlans[iter%len(windowRandomPlans)]
		text := strings.NewReplacer(
			"%d", []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST"}[rng.IntN(4)],
			"%n", fmt.Sprint(1+rng.IntN(3)),
			"%k", fmt.Sprint(rng.IntN(5)-1),
		).Replace(tmpl)
		for strings.Contains(text, "%f") || strings.Contains(text, "%g") {
			text = strings.Replace(strings.Replace(text, "%f", randomFrame(rng), 1), "%g", randomFrame(rng), 1)
		}
		if err := runRandom(text, rng); err != nil {
			t.Fatalf("plan:\n%s\n%v", text, err)
		}
	}
}
