package storage

// OffHeapBytes returns the memory Pebble holds outside the Go heap (C
// allocations): the block cache's blocks plus every memtable's arena,
// the mutable one, those queued for flush, one kept for recycling and
// zombies pinned by open iterators. Memtables reserve their size in the
// block cache, so while the memtables fit in Options.CacheSize the sum
// stays within it; beyond that it is the memtables'.
func (db *DB) OffHeapBytes() int64 {
	m := db.pdb.Metrics()
	return m.BlockCache.Size + int64(m.MemTable.Size+m.MemTable.ZombieSize)
}
