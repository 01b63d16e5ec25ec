package storage

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestSpillRandom runs every operation of a collection against an
// in-memory collection and one that spills partway (then has its overlay
// flushed at random checkpoints), both with a column index and a partial
// index, inside random Begin / Rollback / Commit spans with the odd Clear.
// After every change it compares the two through every read (Get, Scan,
// ScanPrefix, ScanRange, ScanIndex, Len) and the error of every refused
// change; after every span it also compares a copy loaded from the store
// with a small memory bound (so it loads spilled) and checks the indexes.
//
// It runs with the key filter at its size and with tiny filter layers
// (minFilterKeys 2), which grow a layer every few keys and rebuild the
// filter from the store at most checkpoints.
func TestSpillRandom(t *testing.T) {
	seed := testSeed(t)
	defer func(n int) { minFilterKeys = n }(minFilterKeys)
	for _, minKeys := range []int{minFilterKeys, 2} {
		for _, keyed := range []bool{false, true} {
			t.Run(fmt.Sprintf("keyed=%v/filter=%d", keyed, minKeys), func(t *testing.T) {
				minFilterKeys = minKeys
				testSpillRandom(t, rand.New(rand.NewPCG(seed, 3)), keyed)
			})
		}
	}
}

// spillPartial indexes rows whose first column is even, by their second.
func spillPartial(dst []byte, row repr.Row) ([]byte, bool) {
	if row[0].Int()%2 != 0 {
		return dst, false
	}
	return repr.AppendColsKey(dst, row, []int{1}), true
}

func testSpillRandom(t *testing.T, rng *rand.Rand, keyed bool) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	var pk []int
	if keyed {
		pk = []int{0, 1}
	}
	mem, sp := NewCollection(20, pk), NewCollection(30, pk)
	mem.AddIndex(21, []int{1}, nil)
	mem.AddIndexKey(22, spillPartial, nil)
	sp.AddIndex(31, []int{1}, nil)
	sp.AddIndexKey(32, spillPartial, nil)
	for span := 0; span < 150; span++ {
		b := db.NewBatch()
		mem.Begin()
		sp.Begin()
		for i := rng.IntN(25); i > 0; i-- {
			if rng.IntN(50) == 0 {
				mem.Clear(b)
				sp.Clear(b)
			} else {
				row, diff := spillChange(rng, keyed)
				errM, errS := mem.Apply(row, diff, b), sp.Apply(row, diff, b)
				if (errM == nil) != (errS == nil) {
					t.Fatalf("span %d: Apply(%s, %d): in memory %v, spilled %v", span, formatRow(row), diff, errM, errS)
				}
			}
			compareColls(t, fmt.Sprintf("span %d", span), rng, mem, sp)
		}
		if rng.IntN(4) == 0 {
			mem.Rollback()
			sp.Rollback()
		} else {
			mem.Commit()
			sp.Commit()
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			if span >= 10 && !sp.Spilled() { // a checkpoint: the store now holds sp
				sp.Spill(db)
			} else if rng.IntN(3) == 0 {
				sp.Flushed()
			}
		}
		_ = b.Close()
		where := fmt.Sprintf("span %d", span)
		compareColls(t, where, rng, mem, sp)
		if span > 30 && !sp.Spilled() {
			t.Fatalf("%s: not spilled", where)
		}
		reloaded := NewCollection(30, pk)
		if err := reloaded.LoadSpillable(db, int64(rng.IntN(2000))); err != nil {
			t.Fatal(err)
		}
		if err := reloaded.LoadIndex(db, 31, []int{1}); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if err := reloaded.LoadIndexKey(db, 32, spillPartial); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		compareColls(t, where+" (reloaded)", rng, mem, reloaded)
		for _, c := range []*Collection{mem, sp, reloaded} {
			if err := c.CheckIndexes(); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		}
	}
}

// spillChange returns a random change: rows of one shape over a small
// key space, so that inserts, retractions and updates of present keys
// (under a primary key, the same key with another payload) all occur.
func spillChange(rng *rand.Rand, keyed bool) (repr.Row, int64) {
	row := repr.Row{repr.NewInt(rng.Int64N(12)), repr.NewText(strings.Repeat("y", rng.IntN(4))),
		repr.NewFloat(float64(rng.IntN(2)))}
	if keyed {
		return row, []int64{1, -1}[rng.IntN(2)]
	}
	return row, rng.Int64N(5) - 2
}

// compareColls fails unless a and b (collections with the same two
// indexes, ids differing by their collections' ids) agree on every read.
func compareColls(t *testing.T, where string, rng *rand.Rand, a, b *Collection) {
	t.Helper()
	if da, db := dumpScan(a.Scan), dumpScan(b.Scan); da != db || a.Len() != b.Len() {
		t.Fatalf("%s: Scan\n%s(len %d)\nvs\n%s(len %d)", where, da, a.Len(), db, b.Len())
	}
	chunk := 1 + rng.IntN(7)
	if da, db := dumpScan(a.Scan), dumpScan(chunkScan(b, chunk)); da != db {
		t.Fatalf("%s: ScanChunk by %d\n%s\nvs\n%s", where, chunk, da, db)
	}
	row, _ := spillChange(rng, false)
	key := a.Key(nil, row)
	ra, na, oka := a.Get(key)
	rb, nb, okb := b.Get(key)
	if oka != okb || na != nb || oka && repr.CompareRows(ra, rb) != 0 {
		t.Fatalf("%s: Get(%s): %v %d %v vs %v %d %v", where, formatRow(row), ra, na, oka, rb, nb, okb)
	}
	prefix := repr.AppendKey(nil, row[0])
	if da, db := dumpScan(func(fn func(repr.Row, int64) bool) { a.ScanPrefix(prefix, fn) }),
		dumpScan(func(fn func(repr.Row, int64) bool) { b.ScanPrefix(prefix, fn) }); da != db {
		t.Fatalf("%s: ScanPrefix(%s)\n%s\nvs\n%s", where, formatRow(row[:1]), da, db)
	}
	lo, hi := spillBounds(rng)
	if da, db := dumpScan(func(fn func(repr.Row, int64) bool) { a.ScanRange(lo, hi, fn) }),
		dumpScan(func(fn func(repr.Row, int64) bool) { b.ScanRange(lo, hi, fn) }); da != db {
		t.Fatalf("%s: ScanRange\n%s\nvs\n%s", where, da, db)
	}
	ia, ib := a.Indexes(), b.Indexes()
	for i := range ia {
		from := repr.AppendKey(nil, repr.NewText(strings.Repeat("y", rng.IntN(4))))
		var to []byte
		if rng.IntN(2) == 0 {
			to = KeyPrefixEnd(from)
		}
		da := dumpScan(func(fn func(repr.Row, int64) bool) { _ = a.ScanIndex(ia[i], from, to, fn) })
		db := dumpScan(func(fn func(repr.Row, int64) bool) { _ = b.ScanIndex(ib[i], from, to, fn) })
		if da != db {
			t.Fatalf("%s: ScanIndex %d\n%s\nvs\n%s", where, i, da, db)
		}
	}
}

// spillBounds returns a random key range over the first column (to nil:
// unbounded).
func spillBounds(rng *rand.Rand) ([]byte, []byte) {
	x, y := rng.Int64N(13), rng.Int64N(13)
	lo := repr.AppendKey(nil, repr.NewInt(min(x, y)))
	if rng.IntN(3) == 0 {
		return lo, nil
	}
	return lo, repr.AppendKey(nil, repr.NewInt(max(x, y)))
}

// dumpScan prints what a scan passes to its callback, stopping early at a
// random-looking but deterministic point half the time (entry 7), so
// that early stops are compared too.
func dumpScan(scan func(fn func(repr.Row, int64) bool)) string {
	var lines []string
	scan(func(r repr.Row, n int64) bool {
		lines = append(lines, fmt.Sprintf("%s x%d", formatRow(r), n))
		return true
	})
	var stopped []string
	scan(func(r repr.Row, n int64) bool {
		stopped = append(stopped, fmt.Sprintf("%s x%d", formatRow(r), n))
		return len(stopped) < 7
	})
	if !slices.Equal(stopped, lines[:min(7, len(lines))]) {
		return "early stop differs: " + strings.Join(stopped, "; ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// chunkScan is a scan of c in pieces of n entries (ScanChunk), in the
// form dumpScan reads.
func chunkScan(c *Collection, n int) func(fn func(repr.Row, int64) bool) {
	return func(fn func(repr.Row, int64) bool) {
		more := true
		for from, first := []byte(nil), true; more && (first || from != nil); first = false {
			from = c.ScanChunk(from, n, func(r repr.Row, k int64) { more = more && fn(r, k) })
		}
	}
}
