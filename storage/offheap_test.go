package storage

import (
	"encoding/binary"
	"testing"
)

// TestOffHeapBound checks the bound of Pebble's off-heap memory: the
// block cache, or the memtables Pebble may hold when they need more.
func TestOffHeapBound(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		cache, memtable, want int64
	}{
		{128 * mib, 32 * mib, 128 * mib},
		{128 * mib, 64 * mib, memtablesHeld * 64 * mib},
		{8 * mib, 4 * mib, memtablesHeld * 4 * mib},
	} {
		if got := OffHeapBound(Options{CacheSize: c.cache, MemTableSize: uint64(c.memtable)}); got != c.want {
			t.Errorf("OffHeapBound(cache %d MiB, memtable %d MiB) = %d MiB, want %d MiB",
				c.cache/mib, c.memtable/mib, got/mib, c.want/mib)
		}
	}
}

// TestOffHeapBytes writes several memtables' worth of rows and checks
// that the store's off-heap memory counts them, within its bound.
func TestOffHeapBytes(t *testing.T) {
	o := quietOptions()
	db, err := Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	before := db.OffHeapBytes()
	val := make([]byte, 1000)
	for i := range 40 { // 40 MB in 1 MB batches: ten 4 MiB memtables
		b := db.NewBatch()
		for j := range 1000 {
			b.Set(binary.BigEndian.AppendUint64([]byte("k"), uint64(i*1000+j)), val)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if got, bound := db.OffHeapBytes(), OffHeapBound(o); got > bound {
			t.Fatalf("after %d MB: off-heap %d bytes, past the bound %d", i+1, got, bound)
		}
	}
	if after := db.OffHeapBytes(); after <= before || after < int64(o.MemTableSize) {
		t.Fatalf("off-heap bytes %d before the writes, %d after: want at least a full memtable", before, after)
	}
}
