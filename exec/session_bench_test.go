package exec

import (
	"runtime"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// sessionPlan counts clicks per user per session with a 5-second gap.
const sessionPlan = `%0 = Source coll=1 watermark=#2 :: int8, int8, timestamp
%1 = SessionWindow key=[#0] time=#2 gap=5s <- %0
%2 = Reduce key=[#0, #3, #4] aggs=[count(*)] <- %1`

// sessionStream feeds batches of 1000 clicks, one millisecond of event
// time apart, from 1000 users, each active for 10 seconds out of every 30
// (so a user's session has about 10 clicks, one per second, and ends), with
// the watermark 4 seconds behind the latest click.
type sessionStream struct {
	d   *Dataflow
	t   uint64
	n   int64
	ctx expr.Ctx
	w   discardBatch
	in  []repr.Update
	// rows counts the clicks fed.
	rows int64
}

func (s *sessionStream) step() error {
	s.t++
	s.in = s.in[:0]
	var last int64
	for range 1000 {
		s.n++
		last = s.n * usPerMs
		u := (s.n * 7919) % 1000
		if (last/10_000_000+u)%3 != 0 {
			continue
		}
		row := repr.Row{repr.NewInt(u), repr.NewInt(s.n), repr.NewTimestamp(last)}
		s.in = append(s.in, repr.Update{Row: row, Time: s.t, Diff: 1})
	}
	s.rows += int64(len(s.in))
	in := Input{Updates: map[repr.CollectionID][]repr.Update{1: s.in},
		Watermarks: map[repr.CollectionID]int64{1: last - 4000*usPerMs}}
	s.w.buf = s.w.buf[:0]
	_, err := s.d.StepInput(&s.ctx, s.t, in, &s.w)
	return err
}

func newSessionStream(tb testing.TB) *sessionStream {
	p, err := dataflow.Parse(sessionPlan)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		tb.Fatal(err)
	}
	return &sessionStream{d: d}
}

// liveSessionRows is the number of rows a SessionWindow (all its shards)
// keeps.
func liveSessionRows(op operator) int {
	n := 0
	for _, sh := range shardsOf(op) {
		for _, g := range sh.(*sessionOp).groups {
			n += len(g.ents)
		}
	}
	return n
}

// BenchmarkSessionCount runs a long click stream through a per-user
// session count and reports clicks per second, the rows the SessionWindow
// keeps, the live groups of the Reduce, and the live heap.
func BenchmarkSessionCount(b *testing.B) {
	s := newSessionStream(b)
	for b.Loop() {
		if err := s.step(); err != nil {
			b.Fatal(err)
		}
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(s.rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(liveSessionRows(s.d.ops[1])), "session-rows")
	b.ReportMetric(float64(liveGroups(s.d.ops[2])), "live-groups")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
}

// TestSessionStateFlat checks that with a watermark the SessionWindow and
// the Reduce keep only open sessions however long the stream runs: each
// of the 1000 users has at most one open session, of at most about 10
// clicks (one per second while active), so fewer than 10000 rows and 1000
// groups stay live, while the stream has 66669 clicks.
func TestSessionStateFlat(t *testing.T) {
	s := newSessionStream(t)
	peakRows, peakGroups := 0, 0
	for range 200 {
		if err := s.step(); err != nil {
			t.Fatal(err)
		}
		s.d.Commit()
		peakRows = max(peakRows, liveSessionRows(s.d.ops[1]))
		peakGroups = max(peakGroups, liveGroups(s.d.ops[2]))
	}
	if peakRows > 10000 || peakGroups > 1000 {
		t.Errorf("peak %d session rows, %d groups after %d clicks", peakRows, peakGroups, s.rows)
	}
	t.Logf("peak %d session rows, %d groups over %d clicks", peakRows, peakGroups, s.rows)
}
