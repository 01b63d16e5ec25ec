package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestIndexRandom applies random inserts, deletes, updates and Clears to a
// keyed collection and a multiset, each with two indexes, inside random
// Begin / Rollback / Commit spans, and checks after every span that each
// index equals the one built from the contents (in memory, and as loaded
// from the store), and that index range scans return exactly the rows a
// filtered full scan returns.
func TestIndexRandom(t *testing.T) {
	seed := testSeed(t)
	for _, keyed := range []bool{true, false} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			testIndexRandom(t, rand.New(rand.NewPCG(seed, 2)), keyed)
		})
	}
}

func testIndexRandom(t *testing.T, rng *rand.Rand, keyed bool) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	var pk []int
	if keyed {
		pk = []int{0}
	}
	c := NewCollection(7, pk)
	c.AddIndex(8, []int{1}, nil)
	c.AddIndex(9, []int{2, 1}, nil)
	c.AddIndexKey(10, partialKey, nil)
	live := map[int64]repr.Row{} // keyed: committed rows by key
	for span := 0; span < 150; span++ {
		b := db.NewBatch()
		c.Begin()
		trial := map[int64]repr.Row{}
		for k, r := range live {
			trial[k] = r
		}
		for i := rng.IntN(15); i > 0; i-- {
			randomIndexChange(t, rng, c, b, keyed, trial)
		}
		if rng.IntN(3) == 0 {
			c.Rollback()
		} else {
			c.Commit()
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			live = trial
		}
		_ = b.Close()
		if err := c.CheckIndexes(); err != nil {
			t.Fatalf("span %d: %v", span, err)
		}
		checkIndexScans(t, span, c, rng)
		reloaded := NewCollection(7, pk)
		if err := reloaded.Load(db); err != nil {
			t.Fatal(err)
		}
		for _, ix := range []struct {
			id   uint64
			cols []int
		}{{8, []int{1}}, {9, []int{2, 1}}} {
			if err := reloaded.LoadIndex(db, ix.id, ix.cols); err != nil {
				t.Fatalf("span %d: %v", span, err)
			}
		}
		if err := reloaded.LoadIndexKey(db, 10, partialKey); err != nil {
			t.Fatalf("span %d: %v", span, err)
		}
	}
}

// partialKey is the key of index 10, an expression index with a
// predicate: rows whose column 1 is odd, keyed by column 1 times 10.
func partialKey(dst []byte, row repr.Row) ([]byte, bool) {
	if row[1].IsNull() || row[1].Int()%2 == 0 {
		return dst, false
	}
	return repr.AppendKey(dst, repr.NewInt(row[1].Int()*10)), true
}

// randomIndexChange applies one random change: an insert, a delete of a
// present row, an update (delete and insert under the same key), or, rarely,
// a Clear. trial tracks the rows of a keyed collection.
func randomIndexChange(t *testing.T, rng *rand.Rand, c *Collection, b *Batch, keyed bool, trial map[int64]repr.Row) {
	t.Helper()
	if rng.IntN(50) == 0 {
		c.Clear(b)
		clear(trial)
		return
	}
	k := rng.Int64N(20)
	row := repr.Row{repr.NewInt(k), repr.NewInt(rng.Int64N(5)), repr.NewText(fmt.Sprint(rng.IntN(3)))}
	if rng.IntN(7) == 0 {
		row[1] = repr.Null
	}
	if !keyed {
		diff := rng.Int64N(3) - 1
		_ = c.Apply(row, diff, b) // a refused retraction changes nothing
		return
	}
	old, present := trial[k]
	switch {
	case present && rng.IntN(2) == 0: // update or delete
		if err := c.Apply(old, -1, b); err != nil {
			t.Fatal(err)
		}
		delete(trial, k)
		if rng.IntN(2) == 0 {
			if err := c.Apply(row, 1, b); err != nil {
				t.Fatal(err)
			}
			trial[k] = row
		}
	case !present:
		if err := c.Apply(row, 1, b); err != nil {
			t.Fatal(err)
		}
		trial[k] = row
	}
}

// checkIndexScans compares an equality scan and a range scan of index 8
// (column 1) with filtered full scans.
func checkIndexScans(t *testing.T, span int, c *Collection, rng *rand.Rand) {
	t.Helper()
	v := rng.Int64N(5)
	lo, hi := rng.Int64N(5), rng.Int64N(5)
	eq := repr.AppendKey(nil, repr.NewInt(v))
	from, to := repr.AppendKey(nil, repr.NewInt(lo)), KeyPrefixEnd(repr.AppendKey(nil, repr.NewInt(hi)))
	for _, q := range []struct {
		from, to []byte
		keep     func(int64) bool
	}{
		{eq, KeyPrefixEnd(eq), func(x int64) bool { return x == v }},
		{from, to, func(x int64) bool { return lo <= x && x <= hi }},
	} {
		var got, want []string
		if err := c.ScanIndex(8, q.from, q.to, func(r repr.Row, n int64) bool {
			got = append(got, fmt.Sprint(formatRow(r), n))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		c.Scan(func(r repr.Row, n int64) bool {
			if !r[1].IsNull() && q.keep(r[1].Int()) {
				want = append(want, fmt.Sprint(formatRow(r), n))
			}
			return true
		})
		if len(got) != len(want) || !sameStrings(got, want) {
			t.Fatalf("span %d: index scan %v, filtered scan %v", span, got, want)
		}
		checkProjectedScan(t, span, c, q.from, q.to, q.keep)
	}
	checkPartialScan(t, span, c, rng.Int64N(5))
}

// checkProjectedScan compares a scan of index 8 decoding only column 1
// (and, for an equality scan, a ScanPrefixCols of the collection by its
// first row's key) with filtered full scans, in the decoded column.
func checkProjectedScan(t *testing.T, span int, c *Collection, from, to []byte, keep func(int64) bool) {
	t.Helper()
	dec := &repr.ColDecoder{Need: []bool{false, true, false}}
	var got, want, keys []string
	if err := c.ScanIndexCols(8, from, to, dec, func(r repr.Row, n int64) bool {
		got = append(got, fmt.Sprint(r[1], n))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	c.Scan(func(r repr.Row, n int64) bool {
		if !r[1].IsNull() && keep(r[1].Int()) {
			want = append(want, fmt.Sprint(r[1], n))
			keys = append(keys, string(c.Key(nil, r)))
		}
		return true
	})
	if !sameStrings(got, want) {
		t.Fatalf("span %d: projected index scan %v, filtered scan %v", span, got, want)
	}
	if len(keys) == 0 {
		return
	}
	got = got[:0]
	c.ScanPrefixCols([]byte(keys[0]), dec, func(r repr.Row, n int64) bool {
		got = append(got, fmt.Sprint(r[1], n))
		return true
	})
	if len(got) != 1 || got[0] != want[0] {
		t.Fatalf("span %d: projected prefix scan of key %q: %v, want %v", span, keys[0], got, want[:1])
	}
}

// checkPartialScan compares an equality scan of the partial index 10 for
// column 1 = v with a filtered full scan: only odd v have rows.
func checkPartialScan(t *testing.T, span int, c *Collection, v int64) {
	t.Helper()
	var got, want []string
	k := repr.AppendKey(nil, repr.NewInt(v*10))
	if err := c.ScanIndex(10, k, KeyPrefixEnd(k), func(r repr.Row, n int64) bool {
		got = append(got, fmt.Sprint(formatRow(r), n))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	c.Scan(func(r repr.Row, n int64) bool {
		if !r[1].IsNull() && r[1].Int() == v && v%2 == 1 {
			want = append(want, fmt.Sprint(formatRow(r), n))
		}
		return true
	})
	if !sameStrings(got, want) {
		t.Fatalf("span %d: partial index scan %v, filtered scan %v", span, got, want)
	}
}

// sameStrings reports whether a and b hold the same strings, in any order.
func sameStrings(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
