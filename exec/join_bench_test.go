package exec

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// BenchmarkJoinState measures joinOp's memory per arranged row and its
// time per update on the shape of TPC-H's join inputs: rows of three int4
// and three numeric(15,2) columns (lineitem's keys, quantity, price and
// discount). It arranges 900k lineitem-like rows over 100k orderkeys and
// the 100k order-like rows they join with (1M rows), reporting the live
// heap per arranged row (HeapInuse after a GC, against before), then times
// (wall and process CPU, which counts the GC's work and is steadier on a
// shared machine)
// Steps of 1000 lineitem changes (half new rows, half retractions of
// arranged ones) and 10 order changes, each matching about one or nine
// rows of the other side. Input rows are allocated per batch, as an
// upstream operator's slab would, so the figure is the operator's own.
func BenchmarkJoinState(b *testing.B) {
	for _, kind := range []string{"inner", "left"} {
		b.Run(kind, func(b *testing.B) { benchJoinState(b, kind) })
	}
}

func benchJoinState(b *testing.B, kind string) {
	const orders, items = 100_000, 900_000
	d := mustBuild(b, `%0 = Source coll=1 :: int4, int4, int4, numeric, numeric, numeric
%1 = Source coll=2 :: int4, int4, int4, numeric, numeric, numeric
%2 = Join kind=`+kind+` on=[#0=#0] <- %0, %1`)
	rng := rand.New(rand.NewPCG(3, 4))
	var w discardBatch
	ctx := &expr.Ctx{}
	// live holds the values of the arranged lineitem rows (not the rows,
	// which would count as the join's state), allocated before measuring.
	live := make([]tpchVals, 0, items)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t := uint64(0)
	for i := 0; i < items+orders; i += 10_000 {
		t++
		vals := make([]tpchVals, 10_000)
		for j := range vals {
			vals[j] = newTPCHVals(rng, orders)
			if i >= items {
				vals[j][0] = int64(i - items + j)
			}
		}
		coll := repr.CollectionID(1)
		if i >= items {
			coll = 2
		} else {
			live = append(live, vals...)
		}
		w.buf = w.buf[:0]
		if _, err := d.Step(ctx, t, map[repr.CollectionID][]repr.Update{coll: tpchRows(vals, 1)}, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
	}
	w.buf = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	state := float64(after.HeapInuse-before.HeapInuse) / float64(items+orders)
	ups, cpu0 := 0, cpuTime()
	for b.Loop() {
		t++
		gone := make([]tpchVals, 500)
		added := make([]tpchVals, 500)
		for j := range 500 {
			k := rng.IntN(len(live))
			added[j] = newTPCHVals(rng, orders)
			gone[j], live[k] = live[k], added[j]
		}
		ordersIn := make([]tpchVals, 10)
		for j := range ordersIn {
			ordersIn[j] = newTPCHVals(rng, orders)
		}
		in := map[repr.CollectionID][]repr.Update{
			1: append(tpchRows(gone, -1), tpchRows(added, 1)...),
			2: tpchRows(ordersIn, 1),
		}
		w.buf = w.buf[:0]
		if _, err := d.Step(ctx, t, in, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
		ups += 1010
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ups), "ns/update")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(ups), "cpu-ns/update")
	b.ReportMetric(state, "state-B/row")
	runtime.KeepAlive(d)
}

// tpchVals are the values of a TPC-H-like row: orderkey, partkey,
// suppkey, and quantity, price and discount in cents.
type tpchVals [6]int64

// newTPCHVals draws a row with orderkey < keys.
func newTPCHVals(rng *rand.Rand, keys int) tpchVals {
	return tpchVals{rng.Int64N(int64(keys)), rng.Int64N(20_000), rng.Int64N(1_000),
		100 * (1 + rng.Int64N(50)), 90_000 + rng.Int64N(10_000_000), rng.Int64N(11)}
}

// tpchRows makes updates with diff of rows of three int4 and three
// numeric(15,2) columns from vals, their datums from one slab as an
// upstream operator's would be.
func tpchRows(vals []tpchVals, diff int64) []repr.Update {
	datums := make([]repr.Datum, 6*len(vals))
	us := make([]repr.Update, len(vals))
	for i, v := range vals {
		r := repr.Row(datums[6*i : 6*i+6 : 6*i+6])
		for c := range 3 {
			r[c] = repr.NewInt(v[c])
			r[3+c] = repr.NewNumeric(apd.New(v[3+c], -2))
		}
		us[i] = repr.Update{Row: r, Diff: diff}
	}
	return us
}
