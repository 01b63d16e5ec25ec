package storage

// memtablesHeld is how many memtables Pebble holds at most, apart from
// zombies that open iterators pin: the mutable one, one being flushed
// (writes stall when the queue reaches MemTableStopWritesThreshold, 2,
// memtables) and one kept for recycling, which the next rotation makes
// the mutable one (in q7's runs two were held, at times three).
const memtablesHeld = 3

// OffHeapBytes returns the memory Pebble holds outside the Go heap (C
// allocations): the block cache's blocks plus every memtable's arena,
// the mutable one, those queued for flush, one kept for recycling and
// zombies pinned by open iterators. Memtables reserve their size in the
// block cache, so while the memtables fit in Options.CacheSize the sum
// stays within it; beyond that it is the memtables'. An arena counts
// whole as soon as it is allocated, before its pages are resident.
func (db *DB) OffHeapBytes() int64 {
	m := db.pdb.Metrics()
	return m.BlockCache.Size + int64(m.MemTable.Size+m.MemTable.ZombieSize)
}

// OffHeapBound returns the most OffHeapBytes reaches for a store opened
// with o, zombie memtables aside: the block cache's size, or the
// memtables' when they need more (their reservations then leave no
// block cached).
func OffHeapBound(o Options) int64 {
	o = o.withDefaults()
	return max(o.CacheSize, memtablesHeld*int64(o.MemTableSize))
}
