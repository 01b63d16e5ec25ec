package exec

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// reduceStateAggs are the aggregate lists BenchmarkReduceState measures,
// over a source of (group int4, value int4, price numeric(15,2)).
var reduceStateAggs = []struct{ name, aggs string }{
	{"count", "count(*)"},
	{"sum_int", "sum(#1)"},
	{"sum_numeric", "sum(#2)"},
	{"avg_numeric", "avg(#2)"},
	{"min_max", "min(#1), max(#1)"},
	{"q18", "count(*), sum(#2), avg(#2), max(#1)"},
}

// BenchmarkReduceState loads 100,000 groups of two rows each into a
// Reduce (in Steps of 1,000 rows), reports the live heap its state takes per group (B/group), then
// measures steady-state Steps of 1,000 updates (500 rows changing value:
// a deletion and an insertion each, in random groups), in input updates
// per second.
func BenchmarkReduceState(b *testing.B) {
	const groups, rowsPerGroup = 100_000, 2
	for _, c := range reduceStateAggs {
		b.Run(c.name, func(b *testing.B) {
			load, batches := reduceStateInput(groups, rowsPerGroup)
			runReduceState(b, "#0", c.aggs, groups, load, batches)
		})
	}
}

// runReduceState builds a Reduce by key over (int4, int4, numeric)
// computing aggs, loads it with load in Steps of 1,000 updates, reports
// the live heap it grew by per group (B/group) and times the batches.
func runReduceState(b *testing.B, key, aggs string, groups int, load []repr.Update, batches [][]repr.Update) {
	var w discardBatch
	ctx := &expr.Ctx{}
	before := liveHeap()
	d := mustBuild(b, fmt.Sprintf(`%%0 = Source coll=1 :: int4, int4, numeric
%%1 = Reduce key=[%s] aggs=[%s] <- %%0`, key, aggs))
	for i := 0; i < len(load); i += 1000 {
		w.buf = w.buf[:0]
		in := map[repr.CollectionID][]repr.Update{1: load[i:min(i+1000, len(load))]}
		if _, err := d.Step(ctx, 0, in, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
	}
	perGroup := float64(liveHeap()-before) / float64(groups)
	loopBatches(b, d, batches, "updates/s")
	b.ReportMetric(perGroup, "B/group")
	runtime.KeepAlive(d)
}

// liveHeap returns the bytes of live heap after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// reduceStateInput returns the initial rows (perGroup per group) and 64
// batches that change 500 random rows' values each; the last 32 undo the
// first 32 in reverse, so cycling through them keeps every deletion live.
func reduceStateInput(groups, perGroup int) ([]repr.Update, [][]repr.Update) {
	rng := rand.New(rand.NewPCG(3, 4))
	row := func(g, v int) repr.Row {
		return repr.Row{repr.NewInt(int64(g)), repr.NewInt(int64(v)), repr.NewNumeric(apd.New(int64(v), -2))}
	}
	n := groups * perGroup
	vals := make([]int, n)
	load := make([]repr.Update, n)
	for j := range load {
		vals[j] = rng.IntN(10_000_000)
		load[j] = repr.Update{Row: row(j%groups, vals[j]), Diff: 1}
	}
	batches := make([][]repr.Update, 64)
	for k := range 32 {
		for range 500 {
			j := rng.IntN(n)
			v := rng.IntN(10_000_000)
			batches[k] = append(batches[k], repr.Update{Row: row(j%groups, vals[j]), Diff: -1},
				repr.Update{Row: row(j%groups, v), Diff: 1})
			vals[j] = v
		}
	}
	for k := range 32 {
		for _, u := range batches[31-k] {
			batches[32+k] = append(batches[32+k], repr.Update{Row: u.Row, Diff: -u.Diff})
		}
	}
	return load, batches
}

// BenchmarkReduceNumericKey measures what a numeric GROUP BY column costs
// a Reduce: optimizer/lower (reps.go) gives such a key column min(column)
// as its output, so that a group shows a value it holds when equal values
// print apart (2 and 2.00). The input is BenchmarkReduceState's, with the
// numeric column a function of the group (as o_totalprice is of TPC-H
// Q18's order): "key" groups by (#0, #2) with sum(#1), "key_min" adds the
// min(#2) lower adds; the difference is the min's multiset.
func BenchmarkReduceNumericKey(b *testing.B) {
	const groups, rowsPerGroup = 100_000, 2
	for _, c := range []struct{ name, aggs string }{{"key", "sum(#1)"}, {"key_min", "sum(#1), min(#2)"}} {
		b.Run(c.name, func(b *testing.B) {
			load, batches := reduceStateInput(groups, rowsPerGroup)
			for _, us := range append([][]repr.Update{load}, batches...) {
				for i, u := range us {
					g := u.Row[0].Int()
					us[i].Row = repr.Row{u.Row[0], u.Row[1], repr.NewNumeric(apd.New(g*100+99, -2))}
				}
			}
			runReduceState(b, "#0, #2", c.aggs, groups, load, batches)
		})
	}
}

// BenchmarkReduceMaxGrowing is the write path's Reduce (sql's InsertView
// benchmarks): count(*), sum and max over 1,000 groups, each Step 1,000
// new rows (one per group) whose values are spread and mostly new to
// their group, so that max's multisets grow by an entry per row (to a
// thousand per group at -benchtime 1000x), in input rows per second.
func BenchmarkReduceMaxGrowing(b *testing.B) {
	const groups = 1000
	d := mustBuild(b, `%0 = Source coll=1 :: int8, int8
%1 = Reduce key=[#0] aggs=[count(*), sum(#1), max(#1)] <- %0`)
	var w discardBatch
	ctx := &expr.Ctx{}
	batch := make([]repr.Update, groups)
	rows, id := 0, 0
	for b.Loop() {
		for i := range batch {
			batch[i] = repr.Update{Row: repr.Row{repr.NewInt(int64(id % groups)),
				repr.NewInt(int64(id * 7919 % 100003))}, Diff: 1}
			id++
		}
		w.buf = w.buf[:0]
		in := map[repr.CollectionID][]repr.Update{1: batch}
		if _, err := d.Step(ctx, uint64(id), in, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
		rows += len(batch)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
