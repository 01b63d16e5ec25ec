package exec

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// BenchmarkDeltaJoin compares a chain of binary joins with a delta join
// (private arrangements only: no shared ones in exec's benchmarks) on a
// TPC-H-like star: 180k lineitem-like rows joined with 20k orders by
// orderkey, 20k parts by partkey and 1k suppliers by suppkey (rows of
// three int4 and three numeric columns, BenchmarkJoinState's). It reports
// the live heap per input row after loading, and the wall and CPU time per
// update of Steps of 500 lineitem changes (half retractions) and 10 order
// changes. The chain keeps three intermediates as wide as the joined rows
// so far; the delta join keeps lineitem once per key it is looked up by
// (in SQL those are shared: its own key order and automatic indexes).
func BenchmarkDeltaJoin(b *testing.B) {
	const src = `%0 = Source coll=1 :: int4, int4, int4, numeric, numeric, numeric
%1 = Source coll=2 :: int4, int4, int4, numeric, numeric, numeric
%2 = Source coll=3 :: int4, int4, int4, numeric, numeric, numeric
%3 = Source coll=4 :: int4, int4, int4, numeric, numeric, numeric
`
	plans := map[string]string{
		"chain": src + `%4 = Join kind=inner on=[#0=#0] <- %0, %1
%5 = Join kind=inner on=[#1=#0] <- %4, %2
%6 = Join kind=inner on=[#2=#0] <- %5, %3`,
		"delta": src + `%4 = DeltaJoin on=[#0=#6, #1=#12, #2=#18] path0=[1:#0=#6, 2:#1=#12, 3:#2=#18] path1=[0:#6=#0, 2:#1=#12, 3:#2=#18] path2=[0:#12=#1, 1:#0=#6, 3:#2=#18] path3=[0:#18=#2, 1:#0=#6, 2:#1=#12] <- %0, %1, %2, %3`,
	}
	for _, name := range []string{"chain", "delta"} {
		b.Run(name, func(b *testing.B) { benchStar(b, plans[name]) })
	}
}

func benchStar(b *testing.B, plan string) {
	const items, orders, parts, supps = 180_000, 20_000, 20_000, 1_000
	d := mustBuild(b, plan)
	rng := rand.New(rand.NewPCG(5, 6))
	var w discardBatch
	ctx := &expr.Ctx{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t := uint64(0)
	step := func(in map[repr.CollectionID][]repr.Update) {
		t++
		w.buf = w.buf[:0]
		if _, err := d.Step(ctx, t, in, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
	}
	for coll, n := range map[repr.CollectionID]int{2: orders, 3: parts, 4: supps} {
		vals := make([]tpchVals, n)
		for j := range vals {
			vals[j] = newTPCHVals(rng, orders)
			vals[j][0] = int64(j)
		}
		step(map[repr.CollectionID][]repr.Update{coll: tpchRows(vals, 1)})
	}
	live := make([]tpchVals, 0, items)
	for i := 0; i < items; i += 10_000 {
		vals := make([]tpchVals, 10_000)
		for j := range vals {
			vals[j] = newTPCHVals(rng, orders)
		}
		live = append(live, vals...)
		step(map[repr.CollectionID][]repr.Update{1: tpchRows(vals, 1)})
	}
	w.buf = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	state := float64(after.HeapInuse-before.HeapInuse) / float64(items+orders+parts+supps)
	ups, cpu0 := 0, cpuTime()
	for b.Loop() {
		gone, added := make([]tpchVals, 250), make([]tpchVals, 250)
		for j := range 250 {
			k := rng.IntN(len(live))
			added[j] = newTPCHVals(rng, orders)
			gone[j], live[k] = live[k], added[j]
		}
		ordersIn := make([]tpchVals, 10)
		for j := range ordersIn {
			ordersIn[j] = newTPCHVals(rng, orders)
			ordersIn[j][0] += orders // new orderkeys: no duplicate key
		}
		step(map[repr.CollectionID][]repr.Update{
			1: append(tpchRows(gone, -1), tpchRows(added, 1)...),
			2: tpchRows(ordersIn, 1),
		})
		ups += 510
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ups), "ns/update")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(ups), "cpu-ns/update")
	b.ReportMetric(state, "state-B/row")
	runtime.KeepAlive(d)
}
