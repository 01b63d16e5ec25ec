package storage

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomized tests (0: time-based)")

func testSeed(t *testing.T) uint64 {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	return seed
}

// TestCollectionRandom applies random changes (and the odd Clear) inside random Begin /
// Rollback / Commit spans, flushing only committed spans, and checks after
// every span that memory equals a map model and that a collection loaded
// from the store equals memory.
func TestCollectionRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 1))
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	c := NewCollection(5, nil)
	model := map[string]int64{}
	for span := 0; span < 200; span++ {
		b := db.NewBatch()
		c.Begin()
		trial := cloneModel(model)
		for i := rng.IntN(20); i > 0; i-- {
			if rng.IntN(40) == 0 {
				c.Clear(b)
				trial = map[string]int64{}
				continue
			}
			// Two shapes of row, so that both stored forms occur: with a
			// boolean (or NULL) third column the row decodes from its key
			// (stored once); with a float it does not (stored beside the
			// key). A numeric decodes from its key with its exponent.
			// The shapes differ in arity, as a column's family never
			// changes in a real collection (a float 0 and false share a key).
			row := repr.Row{repr.NewInt(rng.Int64N(10)), repr.NewText(strings.Repeat("x", rng.IntN(3)))}
			switch rng.IntN(4) {
			case 0:
				row = append(row, repr.Null)
			case 1:
				row = append(row, repr.NewBool(rng.IntN(2) == 0))
			case 2: // a numeric with trailing zeros: its exponent is a key hint
				row = append(row, repr.NewBool(true), repr.NewNumeric(apd.New(int64(rng.IntN(3)*100), -2)))
			default:
				row = append(row, repr.NewFloat(float64(rng.IntN(3))/2), repr.Null, repr.Null)
			}
			diff := rng.Int64N(5) - 2
			k := formatRow(row)
			err := c.Apply(row, diff, b)
			if wantErr := trial[k]+diff < 0; (err != nil) != wantErr {
				t.Fatalf("span %d: Apply(%s, %d) with count %d: err %v", span, k, diff, trial[k], err)
			}
			if err == nil {
				trial[k] += diff
			}
		}
		if rng.IntN(3) == 0 {
			c.Rollback()
		} else {
			c.Commit()
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			model = trial
		}
		_ = b.Close()
		checkModel(t, span, c, model)
		reloaded := NewCollection(5, nil)
		if err := reloaded.Load(db); err != nil {
			t.Fatal(err)
		}
		checkModel(t, span, reloaded, model)
	}
}

func cloneModel(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func checkModel(t *testing.T, span int, c *Collection, model map[string]int64) {
	t.Helper()
	got := map[string]int64{}
	var prev []byte
	c.Scan(func(r repr.Row, n int64) bool {
		key := c.Key(nil, r)
		if prev != nil && string(prev) >= string(key) {
			t.Fatalf("span %d: scan out of order at %s", span, formatRow(r))
		}
		prev = key
		got[formatRow(r)] = n
		return true
	})
	want := cloneModel(model)
	if fmt.Sprint(got) != fmt.Sprint(want) || c.Len() != len(want) {
		t.Fatalf("span %d: collection %v (len %d), model %v", span, got, c.Len(), want)
	}
}
