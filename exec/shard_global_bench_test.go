package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// globalBenchAggs are the global Reduces BenchmarkGlobalAggregate
// measures, over a source of (id int4, value int4, price numeric(15,2)).
var globalBenchAggs = []struct{ name, aggs, opts string }{
	{"count_sums", "count(*), sum(#1), sum(#2), avg(#2)", ""},
	{"bits", "count(*), bit_or(#1), bit_and(#1)", ""},
	{"min_max", "count(*), min(#1), max(#2)", ""},
	{"append_only", "count(*), sum(#2), min(#1), max(#2)", " append-only=true"},
}

// BenchmarkGlobalAggregate measures a global Reduce on 1 and 2 workers
// (BuildWorkers) over Steps of 10,000 updates: 32 Steps insert new rows,
// the next 32 delete them in reverse order (append-only: inserts only),
// cycled. It reports input updates per wall second and the process's CPU
// seconds per million updates.
func BenchmarkGlobalAggregate(b *testing.B) {
	for _, c := range globalBenchAggs {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(b *testing.B) {
				p, err := dataflow.Parse(fmt.Sprintf(`%%0 = Source coll=1 :: int4, int4, numeric
%%1 = Reduce key=[] aggs=[%s]%s <- %%0`, c.aggs, c.opts))
				if err != nil {
					b.Fatal(err)
				}
				d, err := BuildWorkers(p, workers)
				if err != nil {
					b.Fatal(err)
				}
				batches := globalBenchBatches(c.opts != "")
				var w discardBatch
				ctx := &expr.Ctx{}
				rows, t := 0, uint64(0)
				cpu0 := cpuTime()
				for b.Loop() {
					t++
					w.buf = w.buf[:0]
					in := map[repr.CollectionID][]repr.Update{1: batches[(t-1)%uint64(len(batches))]}
					if _, err := d.Step(ctx, t, in, &w); err != nil {
						b.Fatal(err)
					}
					d.Commit()
					rows += len(in[1])
				}
				b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "updates/s")
				b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(rows)*1e6, "cpu-s/Mupdates")
			})
		}
	}
}

// globalBenchBatches returns 64 Steps of 10,000 updates: the first 32
// insert random rows, the last 32 delete them in reverse (insertOnly:
// 64 Steps of inserts).
func globalBenchBatches(insertOnly bool) [][]repr.Update {
	const steps, n = 64, 10_000
	rng := rand.New(rand.NewPCG(5, 6))
	bs := make([][]repr.Update, steps)
	for k := range bs {
		if !insertOnly && k >= steps/2 {
			ins := bs[steps-1-k]
			del := make([]repr.Update, len(ins))
			for i, u := range ins {
				del[i] = repr.Update{Row: u.Row, Diff: -1}
			}
			bs[k] = del
			continue
		}
		bs[k] = make([]repr.Update, n)
		for i := range bs[k] {
			v := rng.Int64N(100_000)
			r := repr.Row{repr.NewInt(int64(k*n + i)), repr.NewInt(v), repr.NewNumeric(apd.New(v*7, -2))}
			bs[k][i] = repr.Update{Row: r, Diff: 1}
		}
	}
	return bs
}
