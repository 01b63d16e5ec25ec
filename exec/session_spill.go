package exec

import (
	"slices"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// A spilled SessionWindow (sessionOp.sp) keeps its groups in the store, as
// of the last checkpoint, and in memory only the groups its Steps have
// read since (residency, spill_keys.go), each exactly as an in-memory
// SessionWindow holds it: every live row, sorted by time. A group's rows
// are logged under its key (the key encoding of the fixed Key columns, so
// no group's key is a prefix of another's) followed by their time and row
// keys, so loading a group is one prefix scan, in time order. The close
// index stays resident: it files group keys, not groups, so it holds a
// few tens of bytes per open group and no rows; a watermark makes
// resident only the groups it closes (closeKey), which stay resident until
// the checkpoint has written what closing them changed. On a restart that
// spills midway (RestoreWithin) the index is rebuilt from one scan of the
// store, computing each group's first session as its rows go by. A
// SessionWindow without Key columns (one group) spills by session
// instead (session_kspill.go).

// The spiller methods of SessionWindows (spill.go).

// spillSize estimates o's groups and reports whether o can spill now.
func (o *sessionOp) spillSize() (int64, bool) {
	if o.sp != nil || o.ks != nil || len(o.touched) > 0 {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

// spillTo makes o spilled: it drops every group, reading them from r
// (under prefix, the node's state key prefix) from then on, and caches up
// to cache bytes of clean groups. The store must hold exactly o's state
// (right after a checkpoint). It reports false, doing nothing, when o
// cannot spill now.
func (o *sessionOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if _, ok := o.spillSize(); !ok {
		return false
	}
	if len(o.spec.Key) == 0 {
		o.kerr = o.ksessionSpillTo(r, prefix, cache)
		return o.kerr == nil
	}
	o.groups = make(map[string]*sgroup)
	rs := newResidency(r, prefix, cache)
	o.sp = &rs
	return true
}

// loadKey restores the stored rows of group key, returning their
// estimated bytes.
func (o *sessionOp) loadKey(key []byte) (int64, error) {
	n := int64(unsafe.Sizeof(sgroup{})) + mapEntryOverhead + int64(len(key))
	err := o.sp.scanPrefix(key, func(rel, v []byte) error {
		c, _, err := o.restoreSized(rel, v)
		n += c
		return err
	})
	if g := o.groups[string(key)]; g != nil {
		slices.SortFunc(g.ents, cmpEntry)
	}
	return n, err
}

// evictKey drops a clean resident group.
func (o *sessionOp) evictKey(key string) {
	if g := o.groups[key]; g != nil {
		delete(o.groups, key)
		g.in = false
	}
}

func (o *sessionOp) spilledStats() (bool, int64, int64, int64) {
	if ks := o.ks; ks != nil {
		return true, ks.rs.bytes + int64(len(ks.idx))*kspanBytes, ks.rs.loads, ks.rs.evictions
	}
	return o.sp.stats()
}

// flushedState marks every resident group (or session) clean and evicts
// past the cache.
func (o *sessionOp) flushedState() {
	if o.ks != nil {
		o.kflushed()
	}
	o.sp.flushed(o)
}

// restoreSized is restore, returning the row's estimated bytes and
// whether o may stop there and spill.
func (o *sessionOp) restoreSized(key, value []byte) (int64, bool, error) {
	if err := o.restore(key, value); err != nil {
		return 0, false, err
	}
	return int64(unsafe.Sizeof(sentry{})) + 2*int64(len(key)) + int64(len(value)), true, nil
}

// sentryCost estimates the heap bytes of a new row of a group of key n
// bytes long: its entry, row key (about the group key's length plus the
// row's) and row.
func sentryCost(n int, row repr.Row) int64 {
	return int64(unsafe.Sizeof(sentry{})) + int64(n) + 2*rowBytes(row)
}

// forget drops nothing: restoring keeps no undo record.
func (o *sessionOp) forget() {}

// ensureGroup copies group key key to o.pbuf and, in a spilled
// SessionWindow, makes the group resident and marks it dirty.
func (o *sessionOp) ensureGroup(key []byte) error {
	o.pbuf = append(o.pbuf[:0], key...)
	if o.sp == nil {
		return nil
	}
	return o.sp.use(o, o.pbuf, true)
}

// indexStored files every group of the store in the close index under
// the window_end of its first session: the rows come in (group, time)
// order, so the first session of a group is its first rows less than gap
// apart.
func (o *sessionOp) indexStored() error {
	var cur []byte
	var last int64
	have, growing := false, false
	err := o.sp.scanPrefix(nil, func(_, v []byte) error {
		r, err := repr.DecodeRow(v)
		if err != nil || len(r) < 2 || o.spec.TimeCol+1 >= len(r) {
			return errCorrupt
		}
		row := r[1:]
		ts := row[o.spec.TimeCol].Micros()
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
		if o.owns != nil && !o.owns(o.kbuf) {
			return nil // another shard's group
		}
		switch {
		case !have || string(o.kbuf) != string(cur):
			if have {
				o.idx.add(satAdd(last, o.spec.Gap), string(cur))
			}
			cur, last, have, growing = append(cur[:0], o.kbuf...), ts, true, true
		case growing && ts-last < o.spec.Gap:
			last = ts
		default:
			growing = false
		}
		return nil
	})
	if have && err == nil {
		o.idx.add(satAdd(last, o.spec.Gap), string(cur))
	}
	o.idx.commit()
	return err
}
