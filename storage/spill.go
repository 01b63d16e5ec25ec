package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/eddydb/eddy/repr"
	"github.com/google/btree"
)

// Spilled collections. A collection is in memory (the default: its tree
// holds every entry) or spilled (Spill): the store holds its contents as
// of the last checkpoint under RowKey(id, ·), and the tree holds only an
// overlay, the entries changed since (count > 0: the key's current entry;
// count tombstone: the key is absent, whatever the store says). Every read
// merges the overlay with a Pebble iterator or point lookup, so it sees
// exactly what the in-memory collection would: the overlay wins where
// both have a key. Indexes spill with their collection, the same way:
// the store holds the entries under RowKey(index id, ·) as of the
// checkpoint (written by the same batches as the rows), the index tree
// holds the changed entries and tombstones (ixEntry.n < 0).
//
// Flushed drops the overlays once a checkpoint has made the store equal
// to the collection, so a spilled collection's memory is its changes
// since the last checkpoint (bounded by CheckpointOptions' size) plus the
// undo records of an open Begin, plus its resident key filter (a few
// bytes per key, spill_filter.go), which spares the store read of a key
// the store cannot hold: inserting a new key costs no read. Hot entries
// are cached by Pebble's block cache, not by the collection.
//
// Invariants a spilled collection relies on (the caller, sql's engine,
// keeps them): every change is logged to a batch (Apply, Clear, AddIndex
// with b != nil), and Flushed and Spill are called only when every batch
// logged to since the last Flushed/Spill has been committed (right after a
// checkpoint, outside Begin/Commit). Reads (Get, Scan, ScanPrefix,
// ScanRange, ScanIndex, Len) still run concurrently with each other: they
// only read the overlay and take their own Pebble iterators (iters.go:
// reused across reads until the next commit).

// tombstone is the count of an overlay entry whose key is absent.
const tombstone = -1

// spillState is a spilled collection's state beyond its overlay.
type spillState struct {
	db *DB
	// n is the number of distinct keys (Len); beginN its value at Begin.
	n, beginN int
	// filter holds every key of the store and of the overlay (and maybe
	// more): a key it rejects is not read from the store.
	filter *KeyFilter
	// reads counts point reads of the store (baseGet past the filter).
	reads atomic.Int64
}

// Spilled reports whether c is spilled (its rows live in the store).
func (c *Collection) Spilled() bool { return c.sp != nil }

// Spill makes c spilled: it drops every in-memory entry and index entry,
// reading them from db from then on. The store must hold exactly c's
// contents and indexes (right after a checkpoint that committed every
// batch c logged to). It does nothing if c is spilled or recording, or
// owes writes (FlushDirty).
func (c *Collection) Spill(db *DB) {
	if c.sp != nil || c.recording || c.Dirty() > 0 {
		return
	}
	c.forgetScans()
	c.sp = &spillState{db: db, n: c.tree.Len(), filter: NewKeyFilter(2 * c.tree.Len())}
	c.tree.Ascend(func(e entry) bool {
		c.sp.filter.Add(e.key())
		return true
	})
	c.tree = newEntryTree()
	for _, ix := range c.indexes {
		ix.tree = btree.NewG(btreeDegree, ixLess)
	}
}

// Flushed drops the overlay of a spilled collection (and its indexes'),
// once a checkpoint has committed every batch it logged to, and rebuilds
// its key filter from the store when deleted keys crowd it. It does
// nothing for an in-memory collection or while recording.
func (c *Collection) Flushed() {
	if c.sp == nil || c.recording {
		return
	}
	c.forgetScans()
	if c.tree.Len() > 0 {
		c.tree = newEntryTree()
	}
	for _, ix := range c.indexes {
		if ix.tree.Len() > 0 {
			ix.tree = btree.NewG(btreeDegree, ixLess)
		}
	}
	if c.sp.filter.needsRebuild(c.sp.n) {
		c.rebuildFilter()
	}
}

// rebuildFilter replaces c's key filter by one of the store's keys (c's
// keys: the overlay is empty). A scan that fails keeps the old filter,
// which still holds every key.
func (c *Collection) rebuildFilter() {
	f := NewKeyFilter(2 * c.sp.n)
	n := len(RowPrefix(c.id))
	if err := c.sp.db.Scan(RowPrefix(c.id), func(key, _ []byte) error {
		f.Add(key[n:])
		return nil
	}); err == nil {
		c.sp.filter = f
	}
}

// MemBytes estimates the heap bytes of c's in-memory entries and index
// entries (the tree items and their encoded bytes, sampled): what
// spilling it would free.
func (c *Collection) MemBytes() int64 {
	total := c.RowsMemBytes()
	for _, ix := range c.indexes {
		total += ix.memBytes()
	}
	return total
}

// itemOverhead is the estimated bytes of one tree item beyond its encoded
// bytes: the entry value plus the B-tree's share.
const itemOverhead = 56

// RowsMemBytes estimates the heap bytes of c's in-memory entries (the
// whole collection, or a spilled one's overlay), without its indexes.
func (c *Collection) RowsMemBytes() int64 {
	var sampled, size int
	c.tree.Ascend(func(e entry) bool {
		sampled++
		size += cap(e.kv)
		return sampled < 256
	})
	n := c.tree.Len()
	total := int64(n) * itemOverhead
	if sampled > 0 {
		total += int64(n) * int64(size) / int64(sampled)
	}
	if c.sp != nil {
		total += c.sp.filter.Bytes()
	}
	return total
}

// IndexMem reports index id's in-memory entries (all of them, or a
// spilled collection's overlay) and their estimated heap bytes; ok is
// false if c has no such index.
func (c *Collection) IndexMem(id uint64) (entries int, bytes int64, ok bool) {
	ix := c.findIndex(id)
	if ix == nil {
		return 0, 0, false
	}
	return ix.tree.Len(), ix.memBytes(), true
}

// memBytes estimates the heap bytes of ix's in-memory entries (sampled).
func (ix *index) memBytes() int64 {
	sampled, size := 0, 0
	ix.tree.Ascend(func(e ixEntry) bool {
		sampled++
		size += cap(e.key)
		return sampled < 256
	})
	total := int64(ix.tree.Len()) * itemOverhead
	if sampled > 0 {
		total += int64(ix.tree.Len()) * int64(size) / int64(sampled)
	}
	return total
}

// lookup returns the entry under key, merging the overlay with the store
// when c is spilled.
func (c *Collection) lookup(key []byte) (entry, bool) {
	e, ok := c.tree.Get(probe(key))
	if c.sp == nil || ok {
		return e, ok && e.count > 0
	}
	return c.baseGet(key)
}

// baseGet reads the entry under key from the store, unless the key
// filter rules it out. A read error or a value that does not decode is a
// broken store: it panics (the wire layer turns a panic into an internal
// error for the session).
func (c *Collection) baseGet(key []byte) (entry, bool) {
	if !c.sp.filter.MayContain(key) {
		return entry{}, false
	}
	c.sp.reads.Add(1)
	it := c.sp.db.takeIter(c.id)
	defer c.sp.db.putIter(it)
	v, ok := it.get(key)
	if !ok {
		return entry{}, false
	}
	return c.baseEntry(key, v), true
}

// baseEntry builds an entry (owning its bytes) from a stored key (without
// the row prefix) and value.
func (c *Collection) baseEntry(key, value []byte) entry {
	count, val, err := splitValue(value)
	if err != nil {
		panic(fmt.Sprintf("storage: spilled collection %d at %q: %v", c.id, key, err))
	}
	kv := make([]byte, 0, len(key)+len(val))
	kv = append(append(kv, key...), val...)
	return newEntry(kv, len(key), count)
}

// ascend calls fn in key order for the entries whose key k has from <= k
// < to (to nil: no upper bound) until fn returns false, merging the
// overlay with the store when c is spilled.
func (c *Collection) ascend(from, to []byte, fn func(e entry) bool) {
	if c.sp == nil {
		c.tree.AscendGreaterOrEqual(probe(from), func(e entry) bool {
			return (to == nil || bytes.Compare(e.key(), to) < 0) && fn(e)
		})
		return
	}
	ov := func(yield func(e entry) bool) { c.tree.AscendGreaterOrEqual(probe(from), yield) }
	mergeScan(c.sp.db, c.id, from, to, ov, entry.key, func(e entry) bool { return e.count > 0 }, fn,
		func(k, v []byte) bool { return fn(c.baseEntry(k, v)) })
}

// mergeScan merges an ascending overlay (ov, from its first key >= from)
// with the store's keys under RowPrefix(id) in [from, to): an overlay item
// hides the stored key equal to its key, and is passed to onOv only if
// live; stored keys (without the prefix) and values go to onBase. Either
// callback returning false stops the scan.
func mergeScan[T any](db *DB, id uint64, from, to []byte, ov func(func(T) bool), keyOf func(T) []byte,
	live func(T) bool, onOv func(T) bool, onBase func(k, v []byte) bool) {
	it := db.takeIter(id)
	defer db.putIter(it)
	valid := it.seek(from, to)
	stopped := false
	ov(func(o T) bool {
		k := keyOf(o)
		if to != nil && bytes.Compare(k, to) >= 0 {
			return false
		}
		for ; valid; valid = it.next() {
			cmp := bytes.Compare(it.key(), k)
			if cmp > 0 {
				break
			}
			if cmp < 0 && !onBase(it.key(), it.value()) {
				stopped = true
				return false
			}
		}
		if live(o) && !onOv(o) {
			stopped = true
			return false
		}
		return true
	})
	for ; !stopped && valid; valid = it.next() {
		if !onBase(it.key(), it.value()) {
			break
		}
	}
}

// applySpilled is Apply for a spilled collection (key in
// c.kvBuf[:c.klen]): the same checks against the merged entry, and the
// new state of the key goes to the overlay (a tombstone when it is
// deleted).
func (c *Collection) applySpilled(row repr.Row, diff int64, b *Batch) error {
	key := c.kvBuf[:c.klen]
	ov, inOv := c.tree.Get(probe(key))
	var old entry
	found := inOv && ov.count > 0
	if found {
		old = ov
	} else if !inOv {
		old, found = c.baseGet(key)
	}
	next, err := c.next(old, found, row, diff)
	if err != nil {
		return err
	}
	if c.recording {
		if inOv {
			c.undo = append(c.undo, ov)
		} else {
			c.undo = append(c.undo, probe(bytes.Clone(key)))
		}
	}
	if next.count == 0 {
		next = old.withCount(0)
		c.tree.ReplaceOrInsert(newEntry(old.key(), int(old.klen), tombstone))
		c.sp.n--
		c.indexRow(c.retractedRow(old, row), old.key(), false, b)
	} else {
		if !found || c.keyCols == nil && diff > 0 {
			next = c.fresh(row, next.count)
		}
		c.tree.ReplaceOrInsert(next)
		if !found {
			c.sp.n++
			if !inOv { // a tombstone's key was live before: the filter has it
				c.sp.filter.Add(next.key())
			}
			c.indexRow(row, next.key(), true, b)
		}
	}
	if b != nil {
		c.log(b, next)
	}
	return nil
}

// clearSpilled is Clear for a spilled collection: every present key gets
// a tombstone (memory proportional to the keys until the next Flushed).
func (c *Collection) clearSpilled(b *Batch) {
	var keys []entry
	c.ascend(nil, nil, func(e entry) bool {
		keys = append(keys, e)
		return true
	})
	for _, e := range keys {
		if c.recording {
			if ov, ok := c.tree.Get(e); ok {
				c.undo = append(c.undo, ov)
			} else {
				c.undo = append(c.undo, probe(e.key()))
			}
		}
		c.tree.ReplaceOrInsert(newEntry(e.key(), int(e.klen), tombstone))
		c.indexRow(e.row(), e.key(), false, nil)
	}
	c.sp.n = 0
	for _, ix := range c.indexes {
		if b != nil {
			b.DeletePrefix(RowPrefix(ix.id))
		}
	}
	if b != nil {
		b.DeletePrefix(RowPrefix(c.id))
	}
}

// rollbackSpilled is Rollback for a spilled collection: each undo record
// is the key's overlay state before the change (absent: count 0), and the
// indexes follow the key's merged entry before and after restoring it.
func (c *Collection) rollbackSpilled() {
	for i := len(c.undo) - 1; i >= 0; i-- {
		u := c.undo[i]
		if cur, ok := c.lookup(u.key()); ok {
			c.indexRow(cur.row(), cur.key(), false, nil)
		}
		if u.count == 0 {
			c.tree.Delete(u)
		} else {
			c.tree.ReplaceOrInsert(u)
		}
		if now, ok := c.lookup(u.key()); ok {
			c.indexRow(now.row(), now.key(), true, nil)
		}
	}
	c.sp.n = c.sp.beginN
}

// ixLookup reports whether ix holds the entry key (overlay, then store).
func (c *Collection) ixLookup(ix *index, key []byte) bool {
	e, ok := ix.tree.Get(newIxEntry(key, len(key)))
	if c.sp == nil || ok {
		return ok && e.n >= 0
	}
	it := c.sp.db.takeIter(ix.id)
	defer c.sp.db.putIter(it)
	_, ok = it.get(key)
	return ok
}

// ixAscend calls fn in order for ix's entries whose key k has from <= k <
// to (to nil: no bound) with the length of the index-columns part, until
// fn returns false, merging the overlay with the store when c is spilled.
func (c *Collection) ixAscend(ix *index, from, to []byte, fn func(key []byte, n int) bool) {
	if c.sp == nil {
		ix.tree.AscendGreaterOrEqual(newIxEntry(from, len(from)), func(ie ixEntry) bool {
			return (to == nil || bytes.Compare(ie.key, to) < 0) && fn(ie.key, int(ie.n))
		})
		return
	}
	ov := func(yield func(ixEntry) bool) { ix.tree.AscendGreaterOrEqual(newIxEntry(from, len(from)), yield) }
	mergeScan(c.sp.db, ix.id, from, to, ov, func(e ixEntry) []byte { return e.key },
		func(e ixEntry) bool { return e.n >= 0 }, func(e ixEntry) bool { return fn(e.key, int(e.n)) },
		func(k, v []byte) bool {
			split, w := binary.Uvarint(v)
			if w <= 0 || int(split) > len(k) {
				panic(fmt.Sprintf("storage: index %d at %q: %v", ix.id, k, errBadValue))
			}
			return fn(k, int(split))
		})
}

// ixLen returns the number of entries of ix (a scan when spilled).
func (c *Collection) ixLen(ix *index) int {
	if c.sp == nil {
		return ix.tree.Len()
	}
	n := 0
	c.ixAscend(ix, nil, nil, func([]byte, int) bool { n++; return true })
	return n
}
