package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// windowRandomPlans are Window plans over t(k int4, v int4, s text) for
// TestWindowRandom. %d is a sort direction, %n a positive constant, %k an
// offset (possibly negative), %f and %g frames (see randomFrame), %F a
// frame that may have RANGE offsets (the window has one integer ORDER BY
// column).
var windowRandomPlans = []string{
	// Ranking and offset functions.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[row_number(), rank(), dense_rank(), percent_rank(), cume_dist(), ntile(%n), lag(#2, %k), lead(#1, %n, #1)] <- %0`,
	// Aggregates: running (default frame, with peers), sliding and
	// whole-partition frames.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[count(*), count(#1), sum(#1), avg(#1), min(#2), max(#1), sum(#1) %F, min(#1) %F, max(#2) %g, avg(#1) %F, count(*) %f] <- %0`,
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
%1 = Window key=[#0] order=[#1%d] funcs=[sum(#1) %F, min(#2) %F] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#2%d] funcs=[first_value(#1) %f, nth_value(#2, %n) %g] <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[] order=[#1%d] funcs=[count(#2) %F] <- %0`,
	// A window over an aggregate.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0, #2] aggs=[count(*), sum(#1)] <- %0
%2 = Window key=[#1] order=[#3%d] funcs=[rank(), sum(#2) %F, lag(#0, %k)] <- %1`,
	// RANGE offsets over numeric, float8 and date order columns.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[(CAST(#1 AS numeric) / 4), (CAST(#1 AS float8) * 1.5::float8), ('2024-01-30'::date + (#1 * 10))] project=[#0, #3, #4, #5, #2] <- %0
%2 = Window key=[#0] order=[#1%d] funcs=[sum(#1) RANGE BETWEEN 0.5 PRECEDING AND 0.25 FOLLOWING, last_value(#4) RANGE BETWEEN CURRENT ROW AND 0.75 FOLLOWING EXCLUDE TIES, max(#4) RANGE BETWEEN 0.25 FOLLOWING AND 1.0 FOLLOWING] <- %1
%3 = Window key=[#0] order=[#2%d] funcs=[avg(#2) RANGE BETWEEN 2::float8 PRECEDING AND 1.5::float8 FOLLOWING EXCLUDE CURRENT ROW, count(*) RANGE BETWEEN UNBOUNDED PRECEDING AND 3::float8 PRECEDING] <- %2
%4 = Window key=[#0] order=[#3%d] funcs=[count(*) RANGE BETWEEN '20 days'::interval PRECEDING AND '10 days'::interval FOLLOWING, min(#1) RANGE BETWEEN '1 mon'::interval PRECEDING AND CURRENT ROW EXCLUDE GROUP, nth_value(#4, 2) RANGE BETWEEN '1 mon 5 days'::interval PRECEDING AND '1 mon'::interval FOLLOWING] <- %3`,
	// Arguments read from columns: lag and lead offsets (possibly
	// negative or NULL), ntile's bucket count, nth_value's position.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[(#0 + 1)] project=[#0, #1, #2, #3] <- %0
%2 = Window key=[#2] order=[#0%d, #1] funcs=[lag(#0, #1), lead(#2, #1, #2), ntile(#3), nth_value(#1, #3) %f, lag(#1, #3, #0)] <- %1`,
	// Multiset aggregates, computed from the frame's rows in order.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[array(#1), ','] project=[#0, #1, #2, #3, #4] <- %0
%2 = Window key=[#0] order=[#1%d] funcs=[string_agg(#2, #4) %F, array_agg(#3) %f, string_agg(#2, #2) %g, array_agg(#3)] <- %1`,
	// Retractable aggregates beyond sum and count: bool_and/or (counts),
	// variances (exact moments), bit_and/or (per-bit counts).
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[(#1 > 0)] project=[#0, #1, #2, #3] <- %0
%2 = Window key=[#0] order=[#1%d] funcs=[bool_and(#3) %F, bool_or(#3) %f, var_samp(#1) %F, stddev_pop(#1), bit_and(#1) %f, bit_or(#0) %F, var_pop(#1) %g, stddev_samp(#1) %f] <- %1`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1%d] funcs=[first_value(#2) %F, nth_value(#1, %n) %F, last_value(#0) %F, max(#1) %F, min(#2) %g] <- %0`,
}

// randomFrame draws a valid frame: ROWS, GROUPS or RANGE (with offsets
// only if offsets), sometimes with an exclusion.
func randomFrame(rng *rand.Rand, offsets bool) string {
	bound := func(k int) string {
		n := rng.IntN(3)
		return []string{"UNBOUNDED PRECEDING", fmt.Sprintf("%d PRECEDING", n), "CURRENT ROW",
			fmt.Sprintf("%d FOLLOWING", n), "UNBOUNDED FOLLOWING"}[k]
	}
	excl := []string{"", "", "", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES"}[rng.IntN(6)]
	mode := []string{"ROWS", "GROUPS", "RANGE"}[rng.IntN(3)]
	if mode == "RANGE" && !offsets {
		s := []int{0, 2}[rng.IntN(2)]
		e := []int{2, 4}[rng.IntN(2)]
		return fmt.Sprintf("RANGE BETWEEN %s AND %s%s", bound(s), bound(e), excl)
	}
	s := rng.IntN(4)
	e := max(s, 1) + rng.IntN(5-max(s, 1))
	return fmt.Sprintf("%s BETWEEN %s AND %s%s", mode, bound(s), bound(e), excl)
}

// TestWindowRandom checks Window plans the way TestIncrementalEqualsBatch
// checks its plans: after every random batch (inserts and deletes, some
// rolled back) the accumulated output equals recomputing from scratch,
// and a restored dataflow agrees with the live one. Half the runs use
// chunks of 4 positions, so that chunks split and merge.
func TestWindowRandom(t *testing.T) {
	rng := topkRNG(t)
	defer func(n int) { wchunkMax = n }(wchunkMax)
	for iter := range 300 {
		wchunkMax = []int{512, 4}[iter%2]
		text := instantiate(windowRandomPlans[iter%len(windowRandomPlans)], rng)
		if err := runRandom(text, rng); err != nil {
			t.Fatalf("plan:\n%s\n%v", text, err)
		}
	}
}
