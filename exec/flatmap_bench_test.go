package exec

import (
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// BenchmarkFlatMap measures generate_series(1, 10) over batches of 1000
// inserted rows (10 output rows each), in output rows per second.
func BenchmarkFlatMap(b *testing.B) {
	d := mustBuild(b, `%0 = Source coll=1 :: int4, int4
%1 = FlatMap funcs=[generate_series(1, 10)] <- %0`)
	batches := benchBatches(64, 1000, 1000)
	var w discardBatch
	ctx := &expr.Ctx{}
	rows, t := 0, uint64(0)
	for b.Loop() {
		t++
		in := map[repr.CollectionID][]repr.Update{1: batches[t%uint64(len(batches))]}
		out, err := d.Step(ctx, t, in, &w)
		if err != nil {
			b.Fatal(err)
		}
		d.Commit()
		rows += len(out)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
