package exec

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// hopPlan is Nexmark q5's window half as the planner lowers HOP(bid,
// date_time, 2s slide, 10s size) grouped by auction and window: a shared
// MFP, one MFP per window a row is in, their Union and a count.
const hopPlan = `%0 = Source coll=1 name=bid watermark=#2 :: int8, int8, timestamp
%1 = MFP filter=[(#2 IS NOT NULL)] project=[#0, #2] <- %0
%2 = MFP map=[tumble_start(#1, '00:00:02'::interval)] project=[#0, #2] <- %1
%3 = MFP map=[(tumble_start(#1, '00:00:02'::interval) - '00:00:02'::interval)] project=[#0, #2] <- %1
%4 = MFP map=[(tumble_start(#1, '00:00:02'::interval) - '00:00:04'::interval)] project=[#0, #2] <- %1
%5 = MFP map=[(tumble_start(#1, '00:00:02'::interval) - '00:00:06'::interval)] project=[#0, #2] <- %1
%6 = MFP map=[(tumble_start(#1, '00:00:02'::interval) - '00:00:08'::interval)] project=[#0, #2] <- %1
%7 = Union <- %2, %3, %4, %5, %6`

// hopCount adds the count per auction and window to hopPlan.
const hopCount = `
%8 = Reduce key=[#0, #1] aggs=[count(*)] append-only=true <- %7`

// BenchmarkHop feeds hopPlan (windows) and hopPlan+hopCount (count)
// batches of 1000 bids, 10 µs of event time apart (Nexmark's default
// rate), over a sliding set of 100 auctions, with the watermark 4 s
// behind, and reports bids per second.
func BenchmarkHop(b *testing.B) {
	b.Run("windows", func(b *testing.B) { benchHop(b, hopPlan) })
	b.Run("count", func(b *testing.B) { benchHop(b, hopPlan+hopCount) })
}

func benchHop(b *testing.B, plan string) {
	p, err := dataflow.Parse(plan)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		b.Fatal(err)
	}
	var (
		ctx expr.Ctx
		w   discardBatch
		in  []repr.Update
		n   int64
		t   uint64
	)
	for b.Loop() {
		t++
		in = in[:0]
		var last int64
		for range 1000 {
			n++
			last = n * 10
			row := repr.Row{repr.NewInt(n/20 + n%100), repr.NewInt(n % 9973), repr.NewTimestamp(last)}
			in = append(in, repr.Update{Row: row, Time: t, Diff: 1})
		}
		w.buf = w.buf[:0]
		step := Input{Updates: map[repr.CollectionID][]repr.Update{1: in}, Watermarks: map[repr.CollectionID]int64{1: last - 4_000_000}}
		if _, err := d.StepInputRaw(&ctx, t, step, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "bids/s")
}
