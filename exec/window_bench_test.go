package exec

import (
	"runtime"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// tumblePlan counts bids per auction per 10-second tumbling window
// (Nexmark-like: 100 auctions); emit is "" or " emit=close", and wm says
// whether date_time carries a watermark.
func tumblePlan(emit string, wm bool) string {
	src := "%0 = Source coll=1 watermark=#2 :: int8, int8, timestamp"
	if !wm {
		src = "%0 = Source coll=1 :: int8, int8, timestamp"
	}
	return src + `
%1 = MFP map=[tumble_start(#2, '00:00:10'::interval)] project=[#3, #0, #1] <- %0
%2 = Reduce key=[#0, #1] aggs=[count(*), max(#2)]` + emit + ` <- %1`
}

// tumbleStream feeds a dataflow batches of 1000 bids, one millisecond of
// event time apart, with the watermark 4 seconds behind the latest event
// (as the Nexmark sources declare).
type tumbleStream struct {
	d      *Dataflow
	t      uint64
	n      int64
	wm     bool
	ctx    expr.Ctx
	w      discardBatch
	in     []repr.Update
	closed int
}

const usPerMs = 1000

func (s *tumbleStream) step() error {
	s.t++
	s.in = s.in[:0]
	var last int64
	for range 1000 {
		s.n++
		last = s.n * usPerMs
		row := repr.Row{repr.NewInt(s.n % 100), repr.NewInt(s.n % 9973), repr.NewTimestamp(last)}
		s.in = append(s.in, repr.Update{Row: row, Time: s.t, Diff: 1})
	}
	in := Input{Updates: map[repr.CollectionID][]repr.Update{1: s.in}}
	if s.wm {
		in.Watermarks = map[repr.CollectionID]int64{1: last - 4000*usPerMs}
	}
	s.w.buf = s.w.buf[:0]
	out, err := s.d.StepInput(&s.ctx, s.t, in, &s.w)
	s.closed += len(out)
	return err
}

// BenchmarkTumbleCount runs a long stream through a tumbling-window count
// and reports input rows per second, the live groups at the end, and the
// live heap. With a watermark the live groups stay at (open windows x
// auctions) however long the stream; without one they grow with it.
func BenchmarkTumbleCount(b *testing.B) {
	for _, c := range []struct {
		name, emit string
		wm         bool
	}{{"emit=update", "", true}, {"emit=close", " emit=close", true}, {"no-watermark", "", false}} {
		b.Run(c.name, func(b *testing.B) {
			p, err := dataflow.Parse(tumblePlan(c.emit, c.wm))
			if err != nil {
				b.Fatal(err)
			}
			d, err := Build(p)
			if err != nil {
				b.Fatal(err)
			}
			s := &tumbleStream{d: d, wm: c.wm}
			for b.Loop() {
				if err := s.step(); err != nil {
					b.Fatal(err)
				}
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(s.n)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(liveGroups(d.ops[2])), "live-groups")
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
		})
	}
}

// TestTumbleStateFlat checks that a watermarked tumbling-window count keeps
// only the groups of its open windows however long the stream runs, for
// both emit modes: with the watermark 4s behind and 10s windows, at most
// two windows (200 groups) are open after a Step.
func TestTumbleStateFlat(t *testing.T) {
	for _, emit := range []string{"", " emit=close"} {
		p, err := dataflow.Parse(tumblePlan(emit, true))
		if err != nil {
			t.Fatal(err)
		}
		d, err := Build(p)
		if err != nil {
			t.Fatal(err)
		}
		s := &tumbleStream{d: d, wm: true}
		peak := 0
		for range 300 {
			if err := s.step(); err != nil {
				t.Fatal(err)
			}
			d.Commit()
			peak = max(peak, liveGroups(d.ops[2]))
		}
		if peak > 200 {
			t.Errorf("emit%q: %d live groups at peak after %d events, want <= 200", emit, peak, s.n)
		}
		if emit != "" && s.closed != 29*100 {
			t.Errorf("emit on close: %d rows emitted for 29 closed windows of 100 auctions", s.closed)
		}
		t.Logf("emit%q: peak %d live groups over %d events", emit, peak, s.n)
	}
}
