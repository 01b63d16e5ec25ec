package exec

import "unsafe"

// A spilled TopK (topkOp.sp) keeps its groups in the store, as of the
// last checkpoint, and in memory only the groups its Steps have read
// since (residency, spill_keys.go), each exactly as an in-memory TopK
// holds it. A group's rows are logged under {0x01} group-key, so loading
// a group is one prefix scan; group makes a group resident before it
// looks the group up, so the rest of the TopK runs unchanged over
// resident groups. A TopK without a key (one group) and one whose state
// was logged by row key alone do not spill; a windowTopK spills with its
// close index resident (window_spill.go).

// krowBytes estimates a kept row's fixed heap bytes: the krow and its
// pointer in the group's rows.
const krowBytes = int64(unsafe.Sizeof(krow{})) + 8

// krowCost estimates the heap bytes of kept row r.
func krowCost(r *krow) int64 { return krowBytes + int64(len(r.data)) }

// The spiller methods of TopKs (spill.go).

// spillable reports whether o's state spills: keyed by group, with a key.
func (o *topkOp) spillable() bool { return o.keyed && len(o.spec.Key) > 0 }

// spillSize estimates o's in-memory state and reports whether o can spill
// now.
func (o *topkOp) spillSize() (int64, bool) {
	if o.sp != nil || !o.spillable() || len(o.groupsTouched) > 0 {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

// spill makes o spilled: it drops every group, reading them from r
// (under prefix, the node's state key prefix) from then on, and caches up
// to cache bytes of clean groups. The store must hold exactly o's state
// (right after a checkpoint). It reports false, doing nothing, when o
// cannot spill now.
func (o *topkOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if _, ok := o.spillSize(); !ok {
		return false
	}
	o.groups = make(map[string]*kgroup)
	rs := newResidency(r, prefix, cache)
	o.sp = &rs
	return true
}

// loadKey restores the stored rows of group key key, returning their
// estimated bytes; o.kbuf holds key again when it returns.
func (o *topkOp) loadKey(key []byte) (int64, error) {
	k := string(key)
	n := bucketBytes + int64(len(k))
	err := o.sp.scanKey(tagKGroup, key, func(rel, v []byte) error {
		c, err := o.restoreRow(rel, v)
		if string(o.kbuf) != k {
			return errCorrupt // a row of another group under key's prefix
		}
		n += c
		return err
	})
	o.kbuf = append(o.kbuf[:0], k...)
	return n, err
}

// evictKey drops a clean resident group.
func (o *topkOp) evictKey(key string) { delete(o.groups, key) }

func (o *topkOp) spilledStats() (bool, int64, int64, int64) { return o.sp.stats() }

// flushedState marks every resident group clean and evicts past the
// cache.
func (o *topkOp) flushedState() { o.sp.flushed(o) }

// restoreSized is restore, returning the row's estimated bytes and
// whether o may stop there and spill.
func (o *topkOp) restoreSized(key, value []byte) (int64, bool, error) {
	n, err := o.restoreRow(key, value)
	return n, o.spillable(), err
}
