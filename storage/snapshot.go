package storage

import "github.com/google/btree"

// Snapshots of collections. A snapshot is a read-only Collection holding
// the contents and indexes of another one at one moment, taken in O(1):
// the B-trees are cloned copy-on-write (google/btree's Clone), so the
// original stays writable and the nodes both share are copied by the
// first write that reaches them. A spilled collection's snapshot clones
// its overlay and reads the store through a Pebble snapshot (db, from
// DB.NewSnapshot) taken at the same moment, so it sees exactly what the
// collection held. The snapshot may be read from another goroutine while
// the original changes: a snapshot backfills a new materialized view
// outside the engine lock (sql's backfill.go).

// Snapshot returns a read-only copy of c as it is now. c must not be
// recording (no open Begin: the snapshot would hold uncommitted changes)
// and the caller has exclusive access to c during the call (Clone writes
// c's copy-on-write state). db is a snapshot of the store taken with c
// in the same state (DB.NewSnapshot, while the caller still has exclusive
// access); it is only read when c is spilled and may be nil otherwise.
// Only reads (Get, Scan, ScanPrefix*, ScanRange, ScanIndex*, Len) may be
// called on the result.
func (c *Collection) Snapshot(db *DB) *Collection {
	s := &Collection{id: c.id, keyCols: c.keyCols, tree: c.tree.Clone()}
	for _, ix := range c.indexes {
		s.indexes = append(s.indexes, &index{id: ix.id, key: ix.key, tree: ix.tree.Clone()})
	}
	if c.sp != nil { // no key filter: c keeps adding to its own
		s.sp = &spillState{db: db, n: c.sp.n, beginN: c.sp.n}
	}
	return s
}

// EmptyLike returns an empty in-memory collection with c's id, key
// columns and indexes (with no entries), which Apply then fills: a
// backfill serves a shared arrangement from one, holding the rows fed so
// far (see sql's backfill.go).
func (c *Collection) EmptyLike() *Collection {
	e := NewCollection(c.id, c.keyCols)
	for _, ix := range c.indexes {
		e.indexes = append(e.indexes, &index{id: ix.id, key: ix.key, tree: btree.NewG(btreeDegree, ixLess)})
	}
	return e
}
