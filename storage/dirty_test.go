package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestReplaceDeferred changes a keyed collection (a view keyed by its
// group key) by random replacements, deferred or logged, insertions and
// deletions inside random Begin / Rollback / Commit spans, committing the
// spans' batches but flushing the dirty keys only at random spans (a
// checkpoint's). After every flush a collection loaded from the store
// must equal memory; a collection owing writes must not spill.
func TestReplaceDeferred(t *testing.T) {
	// Short keys (an integer's) are held inline in the dirty set, long
	// ones (a 40-byte text) as strings.
	for _, long := range []bool{false, true} {
		t.Run(fmt.Sprintf("long=%v", long), func(t *testing.T) { testReplaceDeferred(t, long) })
	}
}

func testReplaceDeferred(t *testing.T, long bool) {
	key := func(k int64) repr.Datum {
		if long {
			return repr.NewText(fmt.Sprintf("%040d", k))
		}
		return repr.NewInt(k)
	}
	rng := rand.New(rand.NewPCG(testSeed(t), 2))
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	c := NewCollection(6, []int{0})
	model := map[string]int64{}
	for span := 0; span < 300; span++ {
		b := db.NewBatch()
		c.Begin()
		trial := cloneModel(model)
		for i := rng.IntN(12); i > 0; i-- {
			k := rng.Int64N(8)
			old, _, found := c.Get(repr.AppendColsKey(nil, repr.Row{key(k)}, []int{0}))
			nu := repr.Row{key(k), repr.NewInt(rng.Int64N(5))}
			var err error
			switch {
			case !found:
				err = c.Apply(nu, 1, b)
				trial[formatRow(nu)] = 1
			case rng.IntN(5) == 0:
				err = c.Apply(old, -1, b)
				delete(trial, formatRow(old))
			case rng.IntN(4) == 0:
				err = c.Replace(old, nu, b)
				delete(trial, formatRow(old))
				trial[formatRow(nu)] = 1
			case rng.IntN(3) == 0:
				// ReplacePair, deferred or not; a pair of different
				// keys is refused and changes nothing.
				other := repr.Row{key(k + 8), nu[1]}
				if ok, perr := c.ReplacePair(old, other, b, rng.IntN(2) == 0); ok || perr != nil {
					t.Fatalf("span %d: ReplacePair of different keys: %v %v", span, ok, perr)
				}
				var ok bool
				ok, err = c.ReplacePair(old, nu, b, rng.IntN(3) > 0)
				if !ok && err == nil {
					t.Fatalf("span %d: ReplacePair refused a pair of one key", span)
				}
				delete(trial, formatRow(old))
				trial[formatRow(nu)] = 1
			default:
				err = c.ReplaceDeferred(old, nu, b)
				delete(trial, formatRow(old))
				trial[formatRow(nu)] = 1
			}
			if err != nil {
				t.Fatalf("span %d: %v", span, err)
			}
		}
		if rng.IntN(4) == 0 {
			c.Rollback()
			_ = b.Close() // a failed commit's writes are dropped
			b = db.NewBatch()
		} else {
			c.Commit()
			model = trial
		}
		flush := rng.IntN(5) == 0
		if flush {
			c.FlushDirty(b)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		_ = b.Close()
		checkModel(t, span, c, model)
		if !flush {
			continue
		}
		if c.Dirty() != 0 {
			t.Fatalf("span %d: %d keys dirty after the flush", span, c.Dirty())
		}
		reloaded := NewCollection(6, []int{0})
		if err := reloaded.Load(db); err != nil {
			t.Fatal(err)
		}
		checkModel(t, span, reloaded, model)
	}
	b := db.NewBatch()
	c.Begin()
	old, _, _ := c.Get(repr.AppendColsKey(nil, repr.Row{key(99)}, []int{0}))
	if old == nil {
		row := repr.Row{key(99), repr.NewInt(0)}
		if err := c.Apply(row, 1, b); err != nil {
			t.Fatal(err)
		}
		old = row
	}
	if err := c.ReplaceDeferred(old, repr.Row{key(99), repr.NewInt(7)}, b); err != nil {
		t.Fatal(err)
	}
	c.Commit()
	c.Spill(db)
	if c.Spilled() {
		t.Fatal("a collection owing writes spilled")
	}
	_ = b.Close()
}
