package exec

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// pointWriter hides opBatch's DeletePrefix: a StateWriter without range
// deletions.
type pointWriter struct{ b *opBatch }

func (w pointWriter) Set(k, v []byte) { w.b.Set(k, v) }
func (w pointWriter) Delete(k []byte) { w.b.Delete(k) }

// TestRangeDeletesMatchPointDeletes runs the windowed plans twice on the
// same random input, once logging to a PrefixDeleter and once to a plain
// StateWriter, and checks that the stored state is the same after every
// Step: a closing window's range deletions remove exactly the keys the
// point deletions do.
func TestRangeDeletesMatchPointDeletes(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^3))
	ranged := 0
	for iter := range 16 {
		tmpl := strings.ReplaceAll(windowPlans[iter%len(windowPlans)], "%e", "")
		n, err := compareRangeDeletes(tmpl, rng)
		if err != nil {
			t.Fatalf("seed %d, plan:\n%s\n%v", seed, tmpl, err)
		}
		ranged += n
	}
	if ranged == 0 {
		t.Fatal("no range deletion was logged")
	}
}

// compareRangeDeletes runs one plan both ways and returns the number of
// range deletions logged.
func compareRangeDeletes(tmpl string, rng *rand.Rand) (int, error) {
	p, err := dataflow.Parse(tmpl)
	if err != nil {
		return 0, err
	}
	var ds [2]*Dataflow
	stores := [2]*memStore{newMemStore(), newMemStore()}
	for i := range ds {
		if ds[i], err = Build(p); err != nil {
			return 0, err
		}
	}
	base, _ := dataflow.ParseRow("('2024-01-01 00:00:00')", []repr.T{repr.Timestamp})
	r := &windowRun{d: ds[0], wm: map[repr.CollectionID]int64{}, base: base[0].Micros(), inputs: map[repr.CollectionID][]repr.Update{}}
	ranged := 0
	for step := uint64(1); step <= 30; step++ {
		in := r.randomInput(rng, step, step == 30)
		for c, us := range in.Updates {
			if !nonNegative(append(slices.Clone(r.inputs[c]), us...)) {
				delete(in.Updates, c)
			}
		}
		for i, d := range ds {
			var b opBatch
			var w StateWriter = &b
			if i == 1 {
				w = pointWriter{&b}
			}
			if _, err := d.StepInput(&expr.Ctx{}, step, in, w); err != nil {
				return 0, err
			}
			d.Commit()
			b.apply(stores[i])
			for _, op := range b.ops {
				if op.prefix {
					ranged++
				}
			}
		}
		for c, us := range in.Updates {
			r.inputs[c] = retime(Consolidate(append(r.inputs[c], us...)))
		}
		for c, w := range in.Watermarks {
			r.wm[c] = max(r.wm[c], w)
		}
		if !maps.EqualFunc(stores[0].m, stores[1].m, func(a, b []byte) bool { return string(a) == string(b) }) {
			return 0, fmt.Errorf("step %d: %d keys with range deletions, %d without", step, len(stores[0].m), len(stores[1].m))
		}
	}
	return ranged, nil
}
