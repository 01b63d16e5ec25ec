package storage

import (
	"encoding/binary"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestKeyFilter checks that a filter grown over many layers never loses
// a key and keeps its false-positive rate within its design (under 1%).
func TestKeyFilter(t *testing.T) {
	f := NewKeyFilter(0)
	key := func(i int) []byte { return binary.BigEndian.AppendUint64([]byte("k"), uint64(i)) }
	const n = 200_000
	for i := range n {
		f.Add(key(i))
	}
	if len(f.layers) < 3 || f.adds != n {
		t.Fatalf("%d layers, %d adds: want at least 3 layers and %d adds", len(f.layers), f.adds, n)
	}
	for i := range n {
		if !f.MayContain(key(i)) {
			t.Fatalf("key %d added but rejected", i)
		}
	}
	fp := 0
	for i := n; i < 2*n; i++ {
		if f.MayContain(key(i)) {
			fp++
		}
	}
	if fp > n/100 {
		t.Fatalf("%d false positives in %d absent keys", fp, n)
	}
	if b := f.Bytes(); b > 6*n {
		t.Fatalf("%d bytes for %d keys", b, n)
	}
	if f.needsRebuild(n) || !f.needsRebuild(n/3) {
		t.Fatalf("needsRebuild(%d) %v, needsRebuild(%d) %v", n, f.needsRebuild(n), n/3, f.needsRebuild(n/3))
	}
}

// filterRow is row i of TestSpillFilterReads: a multiset row that sorts
// by i.
func filterRow(i int) repr.Row { return repr.Row{repr.NewInt(int64(i)), repr.NewText("pad")} }

// TestSpillFilterReads checks what the key filter spares and what it must
// not: inserting new keys into a spilled collection reads (almost) nothing
// from the store, while a change to a stored key reads it and finds it,
// also after a restart's load (which rebuilds the filter from its scan)
// and after Flushed rebuilds a filter crowded by deleted keys.
func TestSpillFilterReads(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	const n = 20_000
	c := NewCollection(40, nil)
	apply := func(c *Collection, from, to int, diff int64) {
		t.Helper()
		b := db.NewBatch()
		defer func() { _ = b.Close() }()
		for i := from; i < to; i++ {
			if err := c.Apply(filterRow(i), diff, b); err != nil {
				t.Fatalf("Apply(row %d, %d): %v", i, diff, err)
			}
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		c.Flushed()
	}
	apply(c, 0, n, 1)
	c.Spill(db)
	apply(c, n, 2*n, 1) // new keys
	if r := c.sp.reads.Load(); r > n/100 {
		t.Fatalf("inserting %d new keys read the store %d times", n, r)
	}
	wantCount := func(c *Collection, i int, want int64) {
		t.Helper()
		_, got, _ := c.Get(c.Key(nil, filterRow(i)))
		if got != want {
			t.Fatalf("row %d: count %d, want %d", i, got, want)
		}
	}
	before := c.sp.reads.Load()
	apply(c, 0, 100, 1) // stored keys: read, found, counted twice
	if r := c.sp.reads.Load() - before; r != 100 {
		t.Fatalf("changing 100 stored keys read the store %d times", r)
	}
	wantCount(c, 0, 2)
	wantCount(c, n+1, 1)

	// An update (a key deleted and inserted again before the checkpoint)
	// adds nothing: the key was in the filter already.
	adds := c.sp.filter.adds
	b := db.NewBatch()
	for i := n; i < n+100; i++ {
		if c.Apply(filterRow(i), -1, b) != nil || c.Apply(filterRow(i), 1, b) != nil {
			t.Fatalf("updating row %d failed", i)
		}
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	c.Flushed()
	if c.sp.filter.adds != adds {
		t.Fatalf("100 updates added %d keys to the filter", c.sp.filter.adds-adds)
	}
	wantCount(c, n, 1)

	// A restart loads the collection spilled; its filter holds every key.
	re := NewCollection(40, nil)
	if err := re.LoadSpillable(db, 1000); err != nil {
		t.Fatal(err)
	}
	if !re.Spilled() {
		t.Fatal("reloaded collection not spilled")
	}
	apply(re, 2*n-50, 2*n+50, 1)
	wantCount(re, 2*n-1, 2)
	wantCount(re, 2*n, 1)
	if re.Len() != 2*n+50 {
		t.Fatalf("Len %d, want %d", re.Len(), 2*n+50)
	}

	// Deleting most keys crowds the filter; Flushed rebuilds it smaller.
	apply(re, 100, 2*n-50, -1)
	if re.sp.filter.adds > 2*max(re.Len(), minFilterKeys) {
		t.Fatalf("filter of %d adds for %d keys not rebuilt", re.sp.filter.adds, re.Len())
	}
	apply(re, 0, 100, -1)
	wantCount(re, 0, 1)
	wantCount(re, 100, 0)
	wantCount(re, 2*n, 1)
}
