package exec

import (
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// q7Plan is Nexmark q7's dataflow as EXPLAIN prints it (bids reduced to
// auction, price, date_time): the max price per 10-second tumbling window
// (keyed by window end) joined back to the bids on the price, within
// b1.we - 10s <= b.date_time <= b1.we.
const q7Plan = `%0 = Source coll=1 name=bid watermark=#2 :: int8, int8, timestamp
%1 = MFP map=[(tumble_start(#2, '00:00:10'::interval) + '00:00:10'::interval)] project=[#3, #1] <- %0
%2 = Reduce key=[#0] aggs=[max(#1)] <- %1
%3 = Join kind=inner on=[#1=#1] residual=[((#2 >= (#3 - '00:00:10'::interval)) AND (#2 <= #3))] <- %0, %2`

// TestQ7StateFlat streams 120 seconds of bids (1000 per second of event
// time, one step per second, the watermark 4 seconds behind as the
// Nexmark source declares) through q7 and checks that its state stays at
// the bids of the last 14 seconds at most (a bid is freed once the
// window-end watermark, the end of the window holding the bid watermark,
// minus 10s passes it: 4s lag plus up to 10s into the window) and the
// windows not yet closed, however long the stream runs; and that every
// window's top bid is output.
func TestQ7StateFlat(t *testing.T) {
	d := buildText(t, q7Plan)
	var (
		ctx                            expr.Ctx
		w                              discardBatch
		n                              int64
		peakBids, peakWins, peakGroups int
		joined                         int64
	)
	for step := uint64(1); step <= 120; step++ {
		var bids []repr.Update
		var last int64
		for range 1000 {
			n++
			last = n * usPerMs
			price := (n * 7919) % 100003
			bids = append(bids, repr.Update{Row: repr.Row{repr.NewInt(n), repr.NewInt(price), repr.NewTimestamp(last)}, Time: step, Diff: 1})
		}
		in := Input{
			Updates:    map[repr.CollectionID][]repr.Update{1: bids},
			Watermarks: map[repr.CollectionID]int64{1: last - 4000*usPerMs},
		}
		w.buf = w.buf[:0]
		out, err := d.StepInput(&ctx, step, in, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		for _, u := range out {
			joined += u.Diff
		}
		j := unsharded(d.ops[3]).(*intervalJoin)
		peakBids = max(peakBids, j.sides[0].live)
		peakWins = max(peakWins, j.sides[1].live)
		peakGroups = max(peakGroups, len(unsharded(d.ops[2]).(*windowReduce).groups))
	}
	if limit := 14*1000 + 1000; peakBids > limit {
		t.Errorf("join arranges %d bids at peak over %d events, want <= %d", peakBids, n, limit)
	}
	if peakGroups > 3 {
		t.Errorf("window max keeps %d groups at peak, want <= 3", peakGroups)
	}
	if peakWins > 3 {
		t.Errorf("join arranges %d windows at peak, want <= 3", peakWins)
	}
	// 12 windows of 10 seconds; the last one may still change.
	if joined < 11 {
		t.Errorf("%d q7 rows for 12 windows", joined)
	}
	t.Logf("peak %d bids and %d windows arranged, %d open groups, over %d events; %d q7 rows", peakBids, peakWins, peakGroups, n, joined)
}

// TestWatermarkedJoinsSpill checks that an interval join (q7's) offers
// its state to spill, spills with its close index turned into names
// (close_spill.go), and that a restore that stops to spill files every
// stored row, arranged or not, in the close index.
func TestWatermarkedJoinsSpill(t *testing.T) {
	d := buildText(t, q7Plan)
	if _, ok := unsharded(d.ops[3]).(*intervalJoin); !ok {
		t.Fatalf("node 3 runs as %T, not an intervalJoin", d.ops[3])
	}
	var ctx expr.Ctx
	store := newMemStore()
	var w opBatch
	var bids []repr.Update
	for i := range int64(20) {
		bids = append(bids, repr.Update{Row: repr.Row{repr.NewInt(i), repr.NewInt(5 + i%3), repr.NewTimestamp((i + 1) * usPerMs)}, Time: 1, Diff: 1})
	}
	in := Input{Updates: map[repr.CollectionID][]repr.Update{1: bids}, Watermarks: map[repr.CollectionID]int64{1: 0}}
	if _, err := d.StepInput(&ctx, 1, in, &w); err != nil {
		t.Fatal(err)
	}
	d.Commit()
	w.apply(store)
	candidate := false
	for _, c := range d.SpillCandidates() {
		candidate = candidate || c.Node == 3
	}
	if !candidate {
		t.Fatal("the interval join is not a spill candidate")
	}
	indexed := unsharded(d.ops[3]).(*intervalJoin).bounds[0].idx.len()
	if !d.SpillNode(3, store, 0) {
		t.Fatal("the interval join did not spill")
	}
	j := unsharded(d.ops[3]).(*intervalJoin)
	if j.sides[0].live != 0 || j.bounds[0].idx.len() != indexed || len(j.bounds[0].idx.mem.items) != 0 {
		t.Fatalf("spilled: %d rows arranged, close index %d values (%d before), %d by reference",
			j.sides[0].live, j.bounds[0].idx.len(), indexed, len(j.bounds[0].idx.mem.items))
	}
	r := buildText(t, q7Plan)
	if _, err := r.RestoreWithin(store, 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := r.SpilledNodes(); len(got) == 0 || got[len(got)-1] != 3 {
		t.Fatalf("RestoreWithin spilled nodes %v, not the interval join", got)
	}
	if got := unsharded(r.ops[3]).(*intervalJoin).bounds[0].idx.len(); got != indexed {
		t.Fatalf("RestoreWithin filed %d values in the interval join's close index, want %d", got, indexed)
	}
}
