package exec

import "unsafe"

// A spilled Window (windowOp.sp) keeps its partitions in the store, as of
// the last checkpoint, and in memory only the partitions its Steps have
// read since (residency, spill_keys.go), each exactly as an in-memory
// Window holds it: every live row in order with its function slots. A
// partition's copies are logged under its key (the key encoding of a
// fixed number of columns, so no partition's key is a prefix of
// another's) followed by their sort and row keys, so loading a partition
// is one prefix scan, in position order; part makes a partition resident
// before it looks it up, so the rest of the Window runs unchanged over
// resident partitions (a partition a Step empties stays resident, absent,
// until the checkpoint deletes its rows). A Window without PARTITION BY
// (one partition) pages its partition's chunks instead (winpage.go). A reloaded partition's lag and lead
// reach (wpart.maxN) is recomputed from its live rows, as on restart:
// only live rows' offsets decide which positions a change reaches.

// The spiller methods of Windows (spill.go).

// spillSize estimates o's partitions and reports whether o can spill now.
func (o *windowOp) spillSize() (int64, bool) {
	if o.sp != nil || o.pg != nil || len(o.touched) > 0 {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

// spillTo makes o spilled: it drops every partition, reading them from r
// (under prefix, the node's state key prefix) from then on, and caches up
// to cache bytes of clean partitions. The store must hold exactly o's
// state (right after a checkpoint). It reports false, doing nothing, when
// o cannot spill now.
func (o *windowOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if _, ok := o.spillSize(); !ok {
		return false
	}
	if len(o.spec.Key) == 0 {
		if err := o.pageTo(r, prefix, cache); err != nil {
			o.pageErr = err
		}
		return true
	}
	o.parts = make(map[string]*wpart)
	rs := newResidency(r, prefix, cache)
	o.sp = &rs
	return true
}

// loadKey restores the stored copies of partition key, returning their
// estimated bytes.
func (o *windowOp) loadKey(key []byte) (int64, error) {
	n := int64(unsafe.Sizeof(wpart{})) + mapEntryOverhead + int64(len(key))
	err := o.sp.scanPrefix(key, func(rel, v []byte) error {
		c, _, err := o.restoreSized(rel, v)
		n += c
		return err
	})
	return n, err
}

// evictKey drops a clean resident partition.
func (o *windowOp) evictKey(key string) { delete(o.parts, key) }

func (o *windowOp) spilledStats() (bool, int64, int64, int64) {
	if o.pg != nil {
		return o.pg.rs.stats()
	}
	return o.sp.stats()
}

// flushedState marks every resident partition (or chunk) clean and
// evicts past the cache.
func (o *windowOp) flushedState() {
	if o.pg != nil {
		o.pg.flushed(o.pagedSeq())
	}
	o.sp.flushed(o)
}

// restoreSized is restore, returning the copy's estimated bytes and
// whether o may stop there and spill.
func (o *windowOp) restoreSized(key, value []byte) (int64, bool, error) {
	if err := o.restore(key, value); err != nil {
		return 0, false, err
	}
	return o.entryCost(len(key)), true, nil
}

// entryCost estimates the heap bytes of a copy logged under a key of n
// bytes: its entry and slots, its row and sort key (about the key's
// size).
func (o *windowOp) entryCost(n int) int64 {
	return int64(unsafe.Sizeof(went{})) + int64(o.width+o.ncols)*datumBytes + int64(n)
}

// forget drops nothing: restoring keeps no undo record.
func (o *windowOp) forget() {}

// ensurePart makes partition key resident in a spilled Window and marks
// it dirty.
func (o *windowOp) ensurePart(key []byte) error {
	if o.sp == nil {
		return nil
	}
	o.pbuf = append(o.pbuf[:0], key...) // loadKey reuses o.kbuf
	return o.sp.use(o, o.pbuf, true)
}
