package exec

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// A spilled temporal filter (temporalOp.sp) keeps its rows in the store,
// as of the last checkpoint, logged by next transition (tagTemporalDue:
// key(at) ++ row key), so the store lists them in the order they come
// due. In memory it keeps the rows its Steps have touched since (each
// exactly as an in-memory filter holds it, in rows and the queue) and a
// cache of clean ones (residency, spill_keys.go, by row key), plus an
// index of the store by time: the buckets of due times (2^(8*tdueDrop)
// microseconds each) that may hold rows not resident, each with a lower
// bound of their times. A Step first loads, bucket by bucket in time
// order, the stored rows not resident that come due by its now (a prefix
// scan of the bucket that stops at the first row due later, which
// becomes the bucket's bound), then runs as in memory. An input row's
// stored copy, if any, is under its next transition after now, which its
// own interval gives: every row not resident is due after now, so its
// key is known without an index by row.
//
// The index is exact except for a bucket whose first row was loaded for
// an input row (stale): NextTransition rescans that bucket to tighten it,
// so it stays exact. Spilling scans the store's keys once to build the
// index (a restart that stops loading midway spills the same way). A
// Step rescans the rows of its buckets that Steps since the checkpoint
// moved (resident, skipped); a checkpoint removes them from the store.

// tbucket is one bucket of a spilled filter's index: the store may hold
// rows not resident with a next transition in the bucket, none before
// min (exactly the first such row's time unless stale).
type tbucket struct {
	id    uint64
	min   int64
	stale bool
}

// tdueDrop is the number of low bytes of a due time's key encoding that a
// bucket of the index spans: 3, 2^24 microseconds (about 17 seconds).
// Tests lower it.
var tdueDrop = 3

// dueKeyLen is the length of a row's key before its row key: the tag and
// the key encoding of its next transition.
const dueKeyLen = 1 + 9

// appendDueKey appends the tag and key of a row's next transition at.
func appendDueKey(buf []byte, at int64) []byte {
	return repr.AppendKey(append(buf, tagTemporalDue), repr.NewInt(at))
}

// dueAt decodes the next transition of a row's key (relative to the
// node; at least dueKeyLen bytes).
func dueAt(key []byte) int64 {
	return int64(binary.BigEndian.Uint64(key[2:dueKeyLen]) ^ 1<<63)
}

// dueBucket returns the bucket of the index holding time at.
func dueBucket(at int64) uint64 { return (uint64(at) ^ 1<<63) >> (8 * tdueDrop) }

// The spiller methods of temporal filters (spill.go).

// spillSize estimates o's rows and reports whether o can spill now: not
// spilled, no Step pending, rows logged by time.
func (o *temporalOp) spillSize() (int64, bool) {
	if o.sp != nil || !o.timed || len(o.touched) > 0 {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

// spillTo makes o spilled: it drops every row, reading them from r (under
// prefix, the node's state key prefix) from then on, caches up to cache
// bytes of clean rows, and indexes the store's rows by time (one scan of
// their keys; a failed scan fails the next Step). The store must hold
// exactly o's state (right after a checkpoint). It reports false, doing
// nothing, when o cannot spill now.
func (o *temporalOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if _, ok := o.spillSize(); !ok {
		return false
	}
	rs := newResidency(r, prefix, cache)
	o.sp, o.rows, o.queue, o.due = &rs, make(map[string]*tentry), nil, nil
	o.dueErr = rs.scanKey(tagTemporalDue, nil, func(rel, _ []byte) error {
		if len(rel) <= dueKeyLen {
			return errCorrupt
		}
		if !o.own(rel[dueKeyLen:]) {
			return nil // another shard's row
		}
		at := dueAt(rel)
		if n := len(o.due); n == 0 || o.due[n-1].id != dueBucket(at) {
			o.due = append(o.due, tbucket{id: dueBucket(at), min: at})
		}
		return nil
	})
	return true
}

// loadKey restores the stored row of row key key, if any, logged under
// its next transition o.loadAt, returning its estimated bytes.
func (o *temporalOp) loadKey(key []byte) (int64, error) {
	n := int64(len(key)) + bucketBytes
	o.dbuf = append(appendDueKey(o.dbuf[:0], o.loadAt), key...)
	err := o.sp.scanPrefix(o.dbuf, func(rel, v []byte) error {
		if len(rel) != len(o.dbuf) {
			return nil
		}
		e, err := o.loadRow(rel, v)
		if err == nil {
			n += o.entryCost(e)
			o.staleDue(e.at)
		}
		return err
	})
	return n, err
}

// loadRow adds the stored row under key rel (relative to the node) to the
// resident rows, scheduled at its logged next transition.
func (o *temporalOp) loadRow(rel, v []byte) (*tentry, error) {
	r, err := repr.DecodeRow(v)
	if err != nil || len(r) < 3 {
		return nil, errCorrupt
	}
	e := decodeTentry(string(rel[dueKeyLen:]), r)
	e.at = dueAt(rel)
	o.rows[e.key] = e
	heap.Push(&o.queue, titem{at: e.at, key: e.key})
	return e, nil
}

// staleDue marks the bucket of at stale if its first row was at at.
func (o *temporalOp) staleDue(at int64) {
	if i, ok := o.findDue(at); ok && o.due[i].min == at {
		o.due[i].stale = true
	}
}

// findDue returns the index position of at's bucket, and whether the
// index has it.
func (o *temporalOp) findDue(at int64) (int, bool) {
	return slices.BinarySearchFunc(o.due, dueBucket(at), func(b tbucket, id uint64) int { return cmp.Compare(b.id, id) })
}

// addDue records in the index a stored row not resident due at at.
func (o *temporalOp) addDue(at int64) {
	i, ok := o.findDue(at)
	if ok {
		o.due[i].min = min(o.due[i].min, at)
		return
	}
	o.due = slices.Insert(o.due, i, tbucket{id: dueBucket(at), min: at})
}

// ensureRow makes the row of row key key, whose next transition after now
// is at, resident in a spilled filter, and marks it dirty.
func (o *temporalOp) ensureRow(key []byte, at int64) error {
	if o.sp == nil {
		return nil
	}
	o.loadAt = at
	return o.sp.use(o, key, true)
}

// loadDue makes resident, in a spilled filter, every stored row that
// comes due by now, and tightens the index past them.
func (o *temporalOp) loadDue(now int64) error {
	if o.sp == nil {
		return nil
	}
	if o.dueErr != nil {
		return o.dueErr
	}
	for len(o.due) > 0 && o.due[0].min <= now {
		next, ok, err := o.scanDue(o.due[0].id, now)
		if err != nil {
			return err
		}
		if ok {
			o.due[0].min, o.due[0].stale = next, false
			break
		}
		o.due = slices.Delete(o.due, 0, 1)
	}
	return nil
}

// scanDue scans bucket id of the store, making its rows not resident that
// come due by now resident (dirty: the Step moves them), and returns the
// time of the first one due later (ok false: none is left).
func (o *temporalOp) scanDue(id uint64, now int64) (next int64, ok bool, err error) {
	start := int64(id<<(8*tdueDrop) ^ 1<<63)
	o.dbuf = appendDueKey(o.dbuf[:0], start)[:dueKeyLen-tdueDrop]
	err = o.sp.scanPrefix(o.dbuf, func(rel, v []byte) error {
		if len(rel) <= dueKeyLen {
			return errCorrupt
		}
		key := rel[dueKeyLen:]
		switch at := dueAt(rel); {
		case !o.own(key):
			return nil // another shard's row
		case o.sp.resident(string(key)):
			return nil // moved or deleted since the checkpoint
		case at > now:
			next, ok = at, true
			return errStopScan
		}
		e, err := o.loadRow(rel, v)
		if err == nil {
			o.sp.markAbsent(key) // resident and dirty, not absent
			o.sp.grew(key, o.entryCost(e))
			o.sp.loads++
		}
		return err
	})
	if errors.Is(err, errStopScan) {
		err = nil
	}
	return next, ok, err
}

// nextStored returns the earliest next transition of the stored rows not
// resident of a spilled filter, rescanning stale buckets (loading
// nothing); on a failed scan, a lower bound.
func (o *temporalOp) nextStored() (int64, bool) {
	for o.sp != nil && len(o.due) > 0 {
		b := &o.due[0]
		if !b.stale {
			return b.min, true
		}
		next, ok, err := o.scanDue(b.id, noLower)
		if err != nil {
			return b.min, true
		}
		if ok {
			b.min, b.stale = next, false
			return next, true
		}
		o.due = slices.Delete(o.due, 0, 1)
	}
	return 0, false
}

// evictKey drops a clean resident row, which the index then covers.
func (o *temporalOp) evictKey(key string) {
	if e := o.rows[key]; e != nil {
		delete(o.rows, key)
		e.in = false
		o.addDue(e.at)
	}
}

func (o *temporalOp) spilledStats() (bool, int64, int64, int64) { return o.sp.stats() }

// flushedState marks every resident row clean, evicts past the cache and
// drops the evicted rows' queue items.
func (o *temporalOp) flushedState() {
	o.sp.flushed(o)
	o.compact()
}

// restoreSized is restore, returning the row's estimated bytes and
// whether o may stop there and spill (rows logged by time).
func (o *temporalOp) restoreSized(key, value []byte) (int64, bool, error) {
	if err := o.restore(key, value); err != nil {
		return 0, false, err
	}
	var n int64
	if key[0] == tagTemporalDue {
		n = o.entryCost(o.rows[string(key[dueKeyLen:])])
	}
	return n, o.timed, nil
}

// forget drops nothing: restoring keeps no undo record.
func (o *temporalOp) forget() {}

// entryCost estimates the heap bytes of a remembered row: its entry, row
// and key, its map entry and queue item.
func (o *temporalOp) entryCost(e *tentry) int64 {
	return int64(unsafe.Sizeof(tentry{})+unsafe.Sizeof(titem{})) + mapEntryOverhead + 2*int64(len(e.key)) + rowBytes(e.row)
}
