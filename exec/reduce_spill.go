package exec

import (
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// A spilled Reduce (reduceOp.sp) keeps its groups in the store, as of the
// last checkpoint, and in memory only the groups its Steps have read
// since (residency, spill_keys.go), each exactly as an in-memory Reduce
// holds it: its group record, accumulators and multisets. A group's
// state is one record ({0x01} group-key) and its multiset entries ({0x02}
// group-key ...), the layout restore reads, so loading a group is a scan
// of each. add makes a group resident before it looks the group up, so
// the rest of the Reduce runs unchanged over resident groups; a group a
// Step frees stays resident (as absent) until the checkpoint deletes it
// from the store. A global Reduce (one group) never spills; a
// windowReduce spills with its close index resident (window_spill.go).

// entryBytes estimates a multiset entry's fixed heap bytes: the entry,
// its pointer in a slice or map and the map's overhead.
const entryBytes = int64(unsafe.Sizeof(mentry{})) + 8 + mapEntryOverhead

// entryCost estimates a multiset entry whose key encodes in n bytes (its
// value about as large).
func entryCost(n int) int64 { return entryBytes + 2*int64(n) }

// The spiller methods of Reduces (spill.go).

// spillable reports whether o's kind of Reduce spills: not global (an
// EmitOnClose Reduce is a windowReduce, whose close index spills along:
// window_spill.go).
func (o *reduceOp) spillable() bool { return !o.global }

// spillSize estimates o's groups with their multisets, sampling up to
// sizeSample groups, and reports whether o can spill now.
func (o *reduceOp) spillSize() (int64, bool) {
	if o.sp != nil || !o.spillable() || len(o.touched) > 0 {
		return 0, false
	}
	s := sample{n: len(o.groups)}
	for _, g := range o.groups {
		if !s.add(1, o.groupCost(g)) {
			break
		}
	}
	_, b := s.total()
	return b, true
}

// groupCost estimates g's heap bytes with its multisets.
func (o *reduceOp) groupCost(g *group) int64 {
	n := int64(len(g.enc)) + o.groupBytes()
	for _, ms := range o.sets(g) {
		if ms == nil {
			continue
		}
		for k := range ms.keys {
			n += int64(len(k)) + mapEntryOverhead
		}
		ms.indexed(func(e *mentry) { n += entryCost(len(e.key)) })
		n += int64(cap(ms.lz)) * lazyValBytes
	}
	return n
}

// spill makes o spilled: it drops every group, reading them from r
// (under prefix, the node's state key prefix) from then on, and caches up
// to cache bytes of clean groups. The store must hold exactly o's state
// (right after a checkpoint). It reports false, doing nothing, when o
// cannot spill now, or owes group records (reduce_defer.go).
func (o *reduceOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if _, ok := o.spillSize(); !ok || len(o.dirty) > 0 || len(o.runq) > 0 {
		return false // dirty groups: the store lacks their records until FlushState
	}
	o.groups = make(map[string]*group)
	o.arena = groupArena{words: o.arena.words, decs: o.arena.decs, sets: o.arena.sets}
	rs := newResidency(r, prefix, cache)
	o.sp = &rs
	return true
}

// loadKey restores the stored group of key key (its record and multiset
// entries), if any, returning its estimated bytes. A longer group key
// that starts with key (its record or its entries) is skipped.
func (o *reduceOp) loadKey(key []byte) (int64, error) {
	k := string(key)
	err := o.sp.scanKey(tagGroup, key, func(rel, v []byte) error {
		if len(rel) != 1+len(k) {
			return nil
		}
		r, err := repr.DecodeRow(v)
		if err != nil {
			return errCorrupt
		}
		return o.restoreGroup(k, r)
	})
	if err != nil || o.groups[k] == nil {
		return int64(len(k)) + bucketBytes, err
	}
	if o.arena.sets == 0 { // no multisets: no entries to scan for
		return o.groupCost(o.groups[k]) + bucketBytes, nil
	}
	err = o.sp.scanKey(tagEntry, key, func(rel, v []byte) error {
		r, err := repr.DecodeRow(v)
		if err != nil || len(r) != 4 {
			return errCorrupt
		}
		if r[0].Int() != int64(len(k)) {
			return nil
		}
		return o.restoreEntry(rel[1:], r)
	})
	return o.groupCost(o.groups[k]) + bucketBytes, err
}

// evictKey drops a clean resident group.
func (o *reduceOp) evictKey(key string) {
	if g := o.groups[key]; g != nil {
		delete(o.groups, key)
		g.in = false
		o.arena.release(g.id)
	}
}

func (o *reduceOp) spilledStats() (bool, int64, int64, int64) { return o.sp.stats() }

// flushedState marks every resident group clean and evicts past the
// cache.
func (o *reduceOp) flushedState() { o.sp.flushed(o) }

// restoreSized is restore, returning the estimated bytes of what it
// loaded and whether o's kind of Reduce may stop there and spill.
func (o *reduceOp) restoreSized(key, value []byte) (int64, bool, error) {
	if err := o.restore(key, value); err != nil {
		return 0, false, err
	}
	if key[0] == tagGroup {
		return int64(len(key)+len(value)) + o.groupBytes(), o.spillable(), nil
	}
	// A run (reduce_runs.go) holds many entries, ~16 bytes of value each.
	return max(entryCost(len(key)), 8*int64(len(value))), o.spillable(), nil
}

// ensureGroup makes the group of key encoding key resident in a spilled
// Reduce, and marks it dirty.
func (o *reduceOp) ensureGroup(key []byte) error {
	if o.sp == nil {
		return nil
	}
	return o.sp.use(o, key, true)
}
