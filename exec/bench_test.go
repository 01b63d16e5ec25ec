package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// discardBatch copies what it is given into one buffer, as a storage
// batch would, and forgets it at the next Step.
type discardBatch struct{ buf []byte }

func (b *discardBatch) Set(k, v []byte) { b.buf = append(append(b.buf, k...), v...) }
func (b *discardBatch) Delete(k []byte) { b.buf = append(b.buf, k...) }

// benchBatches pre-generates batches of n rows (group, value) over groups groups.
func benchBatches(count, n, groups int) [][]repr.Update {
	rng := rand.New(rand.NewPCG(1, 2))
	bs := make([][]repr.Update, count)
	for i := range bs {
		bs[i] = make([]repr.Update, n)
		for j := range bs[i] {
			r := repr.Row{repr.NewInt(int64(rng.IntN(groups))), repr.NewInt(int64(rng.IntN(1000000)))}
			bs[i][j] = repr.Update{Row: r, Diff: 1}
		}
	}
	return bs
}

func mustBuild(b testing.TB, text string) *Dataflow {
	p, err := dataflow.Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// loopBatches steps d once per b.Loop iteration (at times 1, 2, ...) with
// the next of batches, cycling, as collection 1's input, commits each
// Step, and reports the input rows per second as unit.
func loopBatches(b *testing.B, d *Dataflow, batches [][]repr.Update, unit string) {
	var w discardBatch
	ctx := &expr.Ctx{}
	rows, t := 0, uint64(0)
	for b.Loop() {
		t++
		w.buf = w.buf[:0]
		in := map[repr.CollectionID][]repr.Update{1: batches[t%uint64(len(batches))]}
		if _, err := d.Step(ctx, t, in, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
		rows += len(in[1])
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), unit)
}

// BenchmarkReduceGroupBy measures a 1000-group count/sum/max reduce over
// batches of 1000 inserted rows, logging state, in input rows per second.
func BenchmarkReduceGroupBy(b *testing.B) {
	d := mustBuild(b, `%0 = Source coll=1 :: int4, int4
%1 = Reduce key=[#0] aggs=[count(*), sum(#1), max(#1)] <- %0`)
	loopBatches(b, d, benchBatches(64, 1000, 1000), "rows/s")
}

// BenchmarkJoin measures an inner join of a stream of 1000-row batches
// against a 10,000-row table (one match per row), in input rows per second.
func BenchmarkJoin(b *testing.B) {
	d := mustBuild(b, `%0 = Source coll=1 :: int4, int4
%1 = Source coll=2 :: int4, int4
%2 = Join kind=inner on=[#0=#0] <- %0, %1`)
	dim := make([]repr.Update, 10000)
	for i := range dim {
		dim[i] = repr.Update{Row: repr.Row{repr.NewInt(int64(i)), repr.NewInt(int64(i * 7))}, Diff: 1}
	}
	var w discardBatch
	ctx := &expr.Ctx{}
	if _, err := d.Step(ctx, 0, map[repr.CollectionID][]repr.Update{2: dim}, &w); err != nil {
		b.Fatal(err)
	}
	d.Commit()
	batches := benchBatches(64, 1000, 10000)
	loopBatches(b, d, batches, "rows/s")
}
