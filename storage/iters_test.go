package storage

import (
	"sync"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// spilledForIters returns a spilled collection of n rows (i, i*10) keyed
// by the first column, with an index on the second, stored in db.
func spilledForIters(t *testing.T, db *DB, n int) *Collection {
	t.Helper()
	c := NewCollection(40, []int{0})
	c.AddIndex(41, []int{1}, nil)
	b := db.NewBatch()
	for i := range n {
		if err := c.Apply(repr.Row{repr.NewInt(int64(i)), repr.NewInt(int64(i * 10))}, 1, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	c.Spill(db)
	return c
}

// countRange returns the rows of c in the key range [from, to) of the
// first column.
func countRange(c *Collection, from, to int64) int {
	n := 0
	c.ScanRange(repr.AppendKey(nil, repr.NewInt(from)), repr.AppendKey(nil, repr.NewInt(to)), func(repr.Row, int64) bool { n++; return true })
	return n
}

// TestSpillItersCloseWithStore reads a spilled collection (leaving idle
// iterators in the cache) and closes the store and a snapshot: Pebble
// refuses to close with iterators open, so the cache must close them.
func TestSpillItersCloseWithStore(t *testing.T) {
	db := openTest(t, t.TempDir())
	c := spilledForIters(t, db, 100)
	snap := db.NewSnapshot()
	sc := c.Snapshot(snap)
	for _, cc := range []*Collection{c, sc} {
		if _, _, ok := cc.Get(repr.AppendKey(nil, repr.NewInt(7))); !ok {
			t.Fatal("row 7 not found")
		}
		if n := countRange(cc, 10, 20); n != 10 {
			t.Fatalf("range [10, 20): %d rows, want 10", n)
		}
		var got int
		if err := cc.ScanIndex(41, repr.AppendKey(nil, repr.NewInt(70)), nil, func(repr.Row, int64) bool { got++; return false }); err != nil || got != 1 {
			t.Fatalf("index scan: %d rows, %v", got, err)
		}
	}
	if err := snap.CloseSnapshot(); err != nil {
		t.Fatalf("closing the snapshot: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("closing the store: %v", err)
	}
}

// TestSpillItersConcurrentReads reads one spilled collection from several
// goroutines at once (run it with -race): each read takes its own
// iterator, and the ones put back while another is idle are closed.
func TestSpillItersConcurrentReads(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	}()
	c := spilledForIters(t, db, 500)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				from := int64((g*131 + i*7) % 490)
				if n := countRange(c, from, from+10); n != 10 {
					t.Errorf("range [%d, %d): %d rows, want 10", from, from+10, n)
					return
				}
				if _, _, ok := c.Get(repr.AppendKey(nil, repr.NewInt(from))); !ok {
					t.Errorf("row %d not found", from)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestSpillItersReleaseIdle checks that reads leave idle iterators for
// the next read of their owner and that ReleaseIdle closes them.
func TestSpillItersReleaseIdle(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	c := spilledForIters(t, db, 100)
	idle := func() int {
		db.iters.mu.Lock()
		defer db.iters.mu.Unlock()
		return len(db.iters.idle)
	}
	if n := countRange(c, 10, 20); n != 10 || idle() != 1 {
		t.Fatalf("after a range read: %d rows, %d idle iterators; want 10, 1", n, idle())
	}
	if err := c.ScanIndex(41, nil, nil, func(repr.Row, int64) bool { return true }); err != nil || idle() != 2 {
		t.Fatalf("after an index scan: %v, %d idle iterators; want 2 (rows and index)", err, idle())
	}
	db.ReleaseIdle()
	if idle() != 0 {
		t.Fatalf("after ReleaseIdle: %d idle iterators", idle())
	}
	if n := countRange(c, 0, 100); n != 100 {
		t.Fatalf("after ReleaseIdle: %d rows, want 100", n)
	}
}
