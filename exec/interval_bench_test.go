package exec

import (
	"runtime"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// intervalPlan is Nexmark q4's join: auctions (id, date_time, expires)
// and bids (auction, price, date_time) with a.date_time <= b.date_time <=
// a.expires; wm says whether the sources carry watermarks.
func intervalPlan(wm bool) string {
	a, b := " watermark=#1", " watermark=#2"
	if !wm {
		a, b = "", ""
	}
	return `%0 = Source coll=1 name=auction` + a + ` :: int8, timestamp, timestamp
%1 = Source coll=2 name=bid` + b + ` :: int8, int8, timestamp
%2 = Join kind=inner on=[#0=#0] residual=[((#5 >= #1) AND (#5 <= #2))] <- %0, %1`
}

// intervalStream feeds a dataflow steps of 1000 events one millisecond
// of event time apart: every 100th an auction lasting 2 to 20 seconds,
// the others bids on one of the 50 latest auctions; both watermarks trail
// the latest event by 4 seconds (as the Nexmark sources declare).
type intervalStream struct {
	d      *Dataflow
	t      uint64
	n      int64
	wm     bool
	ctx    expr.Ctx
	w      discardBatch
	as, bs []repr.Update
	joined int
}

func (s *intervalStream) step() error {
	s.t++
	s.as, s.bs = s.as[:0], s.bs[:0]
	var last int64
	for range 1000 {
		s.n++
		last = s.n * usPerMs
		ts := repr.NewTimestamp(last)
		if s.n%100 == 0 {
			id := s.n / 100
			exp := repr.NewTimestamp(last + (2+id%19)*1000*usPerMs)
			s.as = append(s.as, repr.Update{Row: repr.Row{repr.NewInt(id), ts, exp}, Time: s.t, Diff: 1})
			continue
		}
		auction := max(s.n/100-(s.n*7919)%50, 1)
		s.bs = append(s.bs, repr.Update{Row: repr.Row{repr.NewInt(auction), repr.NewInt(s.n % 9973), ts}, Time: s.t, Diff: 1})
	}
	in := Input{Updates: map[repr.CollectionID][]repr.Update{1: s.as, 2: s.bs}}
	if s.wm {
		in.Watermarks = map[repr.CollectionID]int64{1: last - 4000*usPerMs, 2: last - 4000*usPerMs}
	}
	s.w.buf = s.w.buf[:0]
	out, err := s.d.StepInput(&s.ctx, s.t, in, &s.w)
	s.joined += len(out)
	return err
}

// liveRows is the number of rows a join arranges on both sides.
func liveRows(op operator) int {
	switch o := op.(type) {
	case *joinOp:
		return o.sides[0].live + o.sides[1].live
	case *intervalJoin:
		return o.sides[0].live + o.sides[1].live
	}
	return 0
}

// BenchmarkIntervalJoin runs a long stream through q4's interval join and
// reports events per second, the rows arranged at the end and the live
// heap: with watermarks the arranged rows stay at the auctions still open
// and the bids of the last 4 seconds however long the stream; without,
// they grow with it.
func BenchmarkIntervalJoin(b *testing.B) {
	for _, c := range []struct {
		name string
		wm   bool
	}{{"watermark", true}, {"no-watermark", false}} {
		b.Run(c.name, func(b *testing.B) {
			d := mustBuild(b, intervalPlan(c.wm))
			s := &intervalStream{d: d, wm: c.wm}
			for b.Loop() {
				if err := s.step(); err != nil {
					b.Fatal(err)
				}
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(s.n)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(liveRows(d.ops[2])), "live-rows")
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
		})
	}
}

// TestIntervalJoinStateFlat checks that q4's interval join keeps only the
// open auctions (at most 24 seconds' worth: 20s lifetime plus the 4s
// watermark lag, 10 per second) and the last 4-5 seconds of bids, however
// long the stream runs, and that it still joins.
func TestIntervalJoinStateFlat(t *testing.T) {
	p, err := dataflow.Parse(intervalPlan(true))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	s := &intervalStream{d: d, wm: true}
	peak := 0
	for range 300 {
		if err := s.step(); err != nil {
			t.Fatal(err)
		}
		d.Commit()
		peak = max(peak, liveRows(d.ops[2]))
	}
	if limit := 250 + 5*990; peak > limit {
		t.Errorf("%d live rows at peak after %d events, want <= %d", peak, s.n, limit)
	}
	if s.joined < int(s.n)/2 {
		t.Errorf("only %d join results for %d events", s.joined, s.n)
	}
	t.Logf("peak %d live rows over %d events, %d results", peak, s.n, s.joined)
}
