package exec

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// intervalPlans are plans with interval joins (and, at the end, top-N per
// window) over the event-time sources of windowPlans: (k int4, v int4, ts
// timestamp), watermarked on ts. Plans with %e are run in both emit modes;
// their EmitOnClose Reduce groups by a column that gets its watermark
// through the join (joinWM), so the check of closed windows also checks
// the join's output watermarks.
var intervalPlans = []string{
	// q4's shape: auctions (k, v, ts) valid from ts to expires = ts + v
	// seconds, bids (k, v, ts) matching an open auction, the highest bid
	// per auction, then its average per v.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 watermark=#2 :: int4, int4, timestamp
%2 = MFP map=[(#2 + ('00:00:01'::interval * #1::float8))] project=[#0, #1, #2, #3] <- %0
%3 = Join kind=inner on=[#0=#0] residual=[((#6 >= #2) AND (#6 <= #3))] <- %2, %1
%4 = Reduce key=[#0, #1] aggs=[max(#5)] <- %3
%5 = Reduce key=[#1] aggs=[avg(#2), count(*)] <- %4`,
	// q9's shape: the highest bid (earliest on ties) per auction.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 watermark=#2 :: int4, int4, timestamp
%2 = MFP map=[(#2 + '00:00:02'::interval)] project=[#0, #1, #2, #3] <- %0
%3 = Join kind=inner on=[#0=#0] residual=[(#6 >= #2), (#6 <= #3)] <- %2, %1
%4 = TopK key=[#0] order=[#5 DESC, #6] limit=1 rank=true <- %3`,
	// q7's shape: the bids whose price is the highest of their tumbling
	// window (window end we, bids with we - 3s <= ts <= we), counted per
	// window: the window end's watermark comes through the join.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[(tumble_start(#2, '00:00:03'::interval) + '00:00:03'::interval)] project=[#3, #1] <- %0
%2 = Reduce key=[#0] aggs=[max(#1)] <- %1
%3 = Join kind=inner on=[#1=#1] residual=[((#2 >= (#3 - '00:00:03'::interval)) AND (#2 <= #3))] <- %0, %2
%4 = Reduce key=[#3] aggs=[count(*), max(#0)]%e <- %3`,
	// A left interval join with strict bounds (l.ts < r.ts <= l.ts + 2s),
	// counted per window of the preserved side.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 watermark=#2 :: int4, int4, timestamp
%2 = Join kind=left on=[#0=#0] residual=[(#2 < #5), ((#5 - '00:00:02'::interval) <= #2)] <- %0, %1
%3 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#6, #0, #4] <- %2
%4 = Reduce key=[#0, #1] aggs=[count(*), count(#2)]%e <- %3`,
	// A full interval join without equi-key: both sides padded.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 watermark=#2 :: int4, int4, timestamp
%2 = Join kind=full residual=[(#5 >= #2), (#5 < (#2 + '00:00:01'::interval)), (#1 = #4)] <- %0, %1
%3 = MFP project=[#0, #2, #3, #5] <- %2`,
	// A right interval join whose bounds are on an equi-join key
	// watermarked on one side only (ts = ts), plus an interval.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 :: int4, int4, timestamp
%2 = MFP map=[tumble_start(#2, '00:00:02'::interval)] project=[#0, #3] <- %0
%3 = Join kind=right on=[#1=#2] <- %2, %1
%4 = MFP project=[#0, #1, #2, #3] <- %3`,
	// Top-2 values per tumbling window: partitions close with the window.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#3, #0, #1] <- %0
%2 = TopK key=[#0] order=[#2 DESC] limit=2 rank=true <- %1`,
	// q5 with a TopK: the key with the most rows per window (two window
	// columns), and the windows of an interval join's output.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 watermark=#2 :: int4, int4, timestamp
%2 = Join kind=inner on=[#0=#0] residual=[(#5 >= #2), (#5 <= (#2 + '00:00:02'::interval))] <- %0, %1
%3 = MFP map=[tumble_start(#5, '00:00:03'::interval), (tumble_start(#5, '00:00:03'::interval) + '00:00:03'::interval)] project=[#6, #7, #0] <- %2
%4 = Reduce key=[#0, #1, #2] aggs=[count(*)] <- %3
%5 = TopK key=[#0, #1] order=[#3 DESC, #2] limit=1 <- %4`,
}

// TestIntervalEqualsBatch is TestWindowedEqualsBatch over intervalPlans:
// with growing watermarks and no late data, the accumulated output equals
// the batch recomputation after every Step (for EMIT ON WINDOW CLOSE, on
// the closed windows), across rollbacks and restores, and once every
// watermark has passed everything the interval joins keep no state.
func TestIntervalEqualsBatch(t *testing.T) { testIntervalEqualsBatch(t, false) }

// TestIntervalEqualsBatchDeferred is TestIntervalEqualsBatch with Steps
// deferring what they may and flushes (TestWindowedEqualsBatchDeferred).
func TestIntervalEqualsBatchDeferred(t *testing.T) { testIntervalEqualsBatch(t, true) }

func testIntervalEqualsBatch(t *testing.T, deferState bool) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^2))
	for iter := range 120 {
		tmpl := intervalPlans[iter%len(intervalPlans)]
		emit := strings.Contains(tmpl, "%e") && iter/len(intervalPlans)%2 == 1
		if err := runWindowed(tmpl, emit, deferState, rng); err != nil {
			t.Fatalf("seed %d, plan (emit on close %t):\n%s\n%v", seed, emit, tmpl, err)
		}
	}
}
