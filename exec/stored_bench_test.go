package exec

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// storedBench is a dataflow built from a printed plan whose state goes to
// a Pebble store under collection 1's state prefix, for benchmarks of
// spilled operators. step runs one Step over collection 1's updates (at
// the next time) and commits it; checkpoint commits the state written so
// far and tells the dataflow (Flushed); reader reads the stored state.
type storedBench struct {
	d          *Dataflow
	step       func([]repr.Update)
	checkpoint func()
	reader     StateReader
}

// newStoredBench builds plan over a fresh store, closed when b ends.
func newStoredBench(b *testing.B, plan string) *storedBench {
	p, err := dataflow.Parse(plan)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		b.Fatal(err)
	}
	db, err := storage.Open(b.TempDir(), storage.Options{CacheSize: 16 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	prefix := storage.StatePrefix(1)
	batch := db.NewBatch()
	w := batch.Prefixed(prefix)
	ctx := &expr.Ctx{}
	t := uint64(0)
	return &storedBench{
		d:      d,
		reader: db.PrefixedReader(prefix),
		step: func(in []repr.Update) {
			t++
			for i := range in {
				in[i].Time = t
			}
			if _, err := d.Step(ctx, t, map[repr.CollectionID][]repr.Update{1: in}, w); err != nil {
				b.Fatal(err)
			}
			d.Commit()
		},
		checkpoint: func() {
			if err := db.Commit(batch); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
			d.Flushed()
		},
	}
}
