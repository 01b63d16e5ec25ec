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
// the next time) and commits it, stepInput one over an Input (with
// watermarks); checkpoint commits the state written so
// far and tells the dataflow (Flushed); reader reads the stored state.
type storedBench struct {
	d          *Dataflow
	step       func([]repr.Update)
	stepInput  func(Input)
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
	stepInput := func(in Input) {
		t++
		for _, us := range in.Updates {
			for i := range us {
				us[i].Time = t
			}
		}
		if _, err := d.StepInput(ctx, t, in, w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
	}
	return &storedBench{
		d:         d,
		reader:    db.PrefixedReader(prefix),
		stepInput: stepInput,
		step: func(in []repr.Update) {
			stepInput(Input{Updates: map[repr.CollectionID][]repr.Update{1: in}})
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
