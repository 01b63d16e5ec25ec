package exec

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// BenchmarkTemporalSlidingWindow measures a one-minute sliding window
// (ts <= now < ts + 1 min) over a stream whose rows arrive at now: each
// Step inserts 1000 rows and retracts the 1000 that aged out, so the state
// stays at one minute of rows (60 Steps of 1000). Reported per input row.
func BenchmarkTemporalSlidingWindow(b *testing.B) {
	p, err := dataflow.Parse(`
%0 = Source coll=1 name=ev :: int8, timestamptz
%1 = TemporalFilter lower=[#1] upper=[(#1 + '00:01:00'::interval)] <- %0
`)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		b.Fatal(err)
	}
	const perStep = 1000
	const second = int64(1_000_000)
	ctx := &expr.Ctx{TimeZone: "UTC"}
	var t repr.Time
	var id int64
	batch := make([]repr.Update, perStep)
	w := &opBatch{}
	step := func() {
		t++
		now := int64(t) * second
		for i := range batch {
			batch[i] = repr.Update{Row: repr.Row{repr.NewInt(id), repr.NewTimestampTZ(now)}, Time: t, Diff: 1}
			id++
		}
		w.ops = w.ops[:0]
		if _, err := d.StepInput(ctx, t, Input{Updates: map[repr.CollectionID][]repr.Update{1: batch}, Now: now}, w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
	}
	for range 60 {
		step()
	}
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perStep), "ns/row")
	b.ReportMetric(float64(len(d.ops[1].(*temporalOp).rows)), "rows-kept")
}
