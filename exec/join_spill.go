package exec

import (
	"errors"
	"unsafe"
)

// A spilled join (joinOp.sp) keeps its arrangements in the store, as of
// the last checkpoint, and in memory only the join keys it has read
// since (residency, spill_keys.go): a join key is resident (both sides'
// rows of that key arranged in memory, exactly as an in-memory join would
// hold them) or not (its rows are the store's, under the node's prefix,
// tag 3 or 4 and the join key: one prefix scan each). A Step's lookup
// makes the key it touches resident (ensure) before anything reads it,
// so the join's code runs unchanged over resident keys.
type joinSpill struct {
	residency
	// skip marks a side whose rows do not spill: loading a key does not
	// scan it, nor evicting one drop its rows. Such a side keeps every
	// row in memory (a window or interval join's small side, kept: q7's
	// windows) or none (a shared join's shared side, read from an index).
	skip [2]bool
}

// jrowBytes, bucketBytes estimate an arranged row's fixed heap bytes
// (its entry, its id in a bucket, its share of the rows map) and a
// resident key's (bucket, two map entries, jres).
const (
	jrowBytes   = int64(unsafe.Sizeof(jrow{})) + 4 + 24
	bucketBytes = int64(unsafe.Sizeof(jbucket{})+unsafe.Sizeof(jres{})) + 2*mapEntryOverhead
)

// jrowCost estimates the heap bytes of an arranged row encoded in n bytes.
func jrowCost(n int) int64 { return int64(n) + jrowBytes }

// errStopScan ends a StateReader scan early without an error.
var errStopScan = errors.New("stop scan")

// canSpill reports whether o may spill now: in memory, logging by join
// key, no Step pending.
func (o *joinOp) canSpill() bool { return o.sp == nil && o.keyed && len(o.touched) == 0 }

// spill makes o spilled: it drops every arranged row but those of the
// sides kept, reading them from r (under prefix, the node's state key
// prefix) from then on, and caches up to cache bytes of clean keys. The
// store must hold exactly o's state (right after a checkpoint), and no
// Step may be pending. It reports false, doing nothing, when o cannot
// spill now.
func (o *joinOp) spill(r StateReader, prefix []byte, cache int64, keep [2]bool) bool {
	if !o.canSpill() {
		return false
	}
	for i := range o.sides {
		if !keep[i] {
			o.sides[i] = newJoinSide(o.sides[i].keyCols)
			o.sides[i].nulls = make(map[string]*jbucket)
		}
	}
	o.sp = &joinSpill{residency: newResidency(r, prefix, cache), skip: keep}
	return true
}

// spilled reports whether side's rows are spilled (o.sp set, the side
// not kept in memory).
func (o *joinOp) spilled(side int) bool { return o.sp != nil && !o.sp.skip[side] }

// loadKey arranges the stored rows of join key key of both sides,
// returning their estimated bytes.
func (o *joinOp) loadKey(key []byte) (int64, error) {
	n := bucketBytes + 2*int64(len(key))
	skip := 1 + len(key)
	for side := range 2 {
		if o.sp.skip[side] {
			continue
		}
		err := o.sp.scanKey(o.tag(side), key, func(k, v []byte) error {
			row, c, matches, err := o.decodeLogged(side, v)
			if err != nil {
				return err
			}
			n += o.arrange(side, row, key, k[skip:], c, matches)
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// evictKey drops the rows of a clean resident key from the spilled
// sides.
func (o *joinOp) evictKey(key string) {
	for i := range o.sides {
		if o.sp.skip[i] {
			continue
		}
		js := &o.sides[i]
		for _, m := range [2]map[string]*jbucket{js.buckets, js.nulls} {
			b := m[key]
			for b != nil && len(b.rows) > 0 {
				js.unlink(js.at(b.rows[len(b.rows)-1]))
			}
		}
	}
}

// trimSpill evicts clean keys past the cache and releases their entries.
func (o *joinOp) trimSpill() {
	o.sp.trim(o)
	o.sides[0].release()
	o.sides[1].release()
}

// The spiller methods of plain joins (spill.go). A join spills only when
// it logs its state by join key (keyed).

func (o *joinOp) spillSize() (int64, bool) {
	if !o.canSpill() {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

func (o *joinOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	return o.spill(r, prefix, cache, [2]bool{})
}

func (o *joinOp) spilledStats() (bool, int64, int64, int64) {
	if o.sp == nil {
		return false, 0, 0, 0
	}
	return o.sp.stats()
}

func (o *joinOp) flushedState() {
	if o.sp != nil {
		o.sp.markClean()
		o.trimSpill()
	}
}

func (o *joinOp) restoreSized(key, value []byte) (int64, bool, error) {
	n, err := o.restoreRow(key, value)
	return n, o.keyed, err
}

// A shared join spills its private side only: its shared side is an
// index, which a spilled key's load does not scan.

func (o *sharedJoin) spillSize() (int64, bool) { return o.j.spillSize() }

func (o *sharedJoin) spillTo(r StateReader, prefix []byte, cache int64) bool {
	var keep [2]bool
	keep[o.side] = true // it arranges no rows
	return o.j.spill(r, prefix, cache, keep)
}

func (o *sharedJoin) spilledStats() (bool, int64, int64, int64) { return o.j.spilledStats() }
func (o *sharedJoin) flushedState()                             { o.j.flushedState() }
func (o *sharedJoin) forget()                                   { o.j.forget() }

func (o *sharedJoin) restoreSized(key, value []byte) (int64, bool, error) {
	return o.j.restoreSized(key, value)
}
