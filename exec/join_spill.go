package exec

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// A spilled join (joinOp.sp) keeps its arrangements in the store, as of
// the last checkpoint, and in memory only the side keys it has read or
// written since. Residency (spill_keys.go) is by side key: the side's
// state tag (3 or 4) then the join key. A resident side key holds that
// side's rows of the key exactly as an in-memory join would; the store's
// rows of a side key are under the node's prefix, its tag and the join
// key (one prefix scan).
//
// A delta of one side joins the other side's rows of its key, so it
// makes only that side key resident (clean unless an outer join counts
// matches in those rows). Its own row it finds in memory or, if its side
// key is not resident, by a point read of its state key: a row the store
// holds makes the side key resident (dirty) and is updated there; a new
// row goes to a tail, the bucket of the rows of a non-resident side key
// arranged since the last checkpoint (the store does not hold them). A
// later load of that side key (the other side's probe, a close) adds the
// store's rows to the tail and makes it resident and dirty; a
// checkpoint's Flushed drops the tails (the store now has their rows)
// and makes resident keys clean. So the store plus the resident keys and
// the tails is always the whole state, and a row is never both in a tail
// and in the store. q7's bids (hundreds open per price) then never read
// each other back: a bid reads the windows of its price, kept in memory,
// and its own state key.
type joinSpill struct {
	residency
	// skip marks a side whose rows do not spill: loading a key does not
	// scan it, nor evicting one drop its rows. Such a side keeps every
	// row in memory (a window or interval join's small side, kept: q7's
	// windows) or none (a shared join's shared side, read from an index).
	skip [2]bool
	// tails are the side keys whose buckets are tails (some repeated, or
	// resident since), tailBytes their rows' estimated bytes, and tbuf
	// the scratch of a side key.
	tails     []string
	tailBytes int64
	tbuf      []byte
	// dead holds the state keys (tag, join key, row key) of the stored
	// rows that closing deleted unread since the last checkpoint
	// (close_spill.go): they are not in the state though the store still
	// has them. died lists those of the pending Step, which added the
	// keys of dead past its first deadMark.
	dead     deadKeys
	died     []deadRow
	deadMark int
	// closing holds the names a close could not free in memory, in key
	// order (close_spill.go); empty between Steps.
	closing []keyRef
	// rows counts, for each spilled side of a window or interval join,
	// its rows in the state (in memory or in the store) by rowKeyHash;
	// nil for other joins. A row not arranged whose hash it does not
	// count is not stored: a new row needs no point read (q7's bids,
	// nearly all new, would each cost a Pebble seek). It may count rows
	// that have gone (a name closed after its row was retracted frees
	// nothing but lowers the count of a hash no row has), never fewer
	// than there are.
	rows [2]map[uint64]int32
}

// deadRow is the side of a dead stored row and its rowKeyHash.
type deadRow struct {
	side int
	hash uint64
}

// jrowBytes, bucketBytes estimate an arranged row's fixed heap bytes
// (its entry, its id in a bucket, its share of the chain table) and a
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

// sideKey returns the side key of side and join key key, in o.sp.tbuf.
func (o *joinOp) sideKey(side int, key []byte) []byte {
	o.sp.tbuf = append(append(o.sp.tbuf[:0], o.tag(side)), key...)
	return o.sp.tbuf
}

// sideOf returns the side of side key tkey.
func (o *joinOp) sideOf(tkey string) int { return int(tkey[0]) - int(o.tag(0)) }

// bucketOf returns side's bucket of join key key, a null key's if null.
func (o *joinOp) bucketOf(side int, key string, null bool) *jbucket {
	if null {
		return o.sides[side].nulls[key]
	}
	return o.sides[side].buckets[key]
}

// useSide makes side's rows of join key key resident, loading them if
// need be, dirty if the Step may change them or they were a tail (rows
// the store does not hold yet).
func (o *joinOp) useSide(side int, key []byte, dirty bool) error {
	tk := o.sideKey(side, key)
	if !o.sp.resident(string(tk)) {
		dirty = dirty || o.bucketOf(side, string(key), false) != nil || o.bucketOf(side, string(key), true) != nil
	}
	return o.sp.use(o, tk, dirty)
}

// loadKey arranges the stored rows of side key tkey beside its tail, if
// any, returning their estimated bytes (the tail's included).
func (o *joinOp) loadKey(tkey []byte) (int64, error) {
	side, key := o.sideOf(string(tkey)), tkey[1:]
	n := bucketBytes + 2*int64(len(key))
	for _, null := range [2]bool{false, true} {
		if b := o.bucketOf(side, string(key), null); b != nil {
			t := o.rowsBytes(side, b)
			n += t
			o.sp.tailBytes -= t
		}
	}
	skip := len(tkey)
	if o.tm != nil {
		skip += 8
	}
	load := func(k, v []byte) error {
		if o.sp.isDead(k) {
			return nil
		}
		row, c, matches, err := o.decodeLogged(side, o.timedBody(k), v)
		if err != nil {
			return err
		}
		n += o.arrange(side, row, key, k[skip:], c, matches)
		return nil
	}
	var err error
	if o.tm != nil {
		err = o.loadTimed(side, key, load)
	} else {
		err = o.sp.scanKey(tkey[0], key, load)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// rowsBytes estimates the heap bytes of b's rows, of side.
func (o *joinOp) rowsBytes(side int, b *jbucket) int64 {
	var n int64
	for _, id := range b.rows {
		n += jrowCost(len(o.sides[side].at(id).enc))
	}
	return n
}

// evictKey drops the rows of side key tkey (resident and clean, or a
// flushed tail).
func (o *joinOp) evictKey(tkey string) {
	js := &o.sides[o.sideOf(tkey)]
	for _, m := range [2]map[string]*jbucket{js.buckets, js.nulls} {
		b := m[tkey[1:]]
		for b != nil && len(b.rows) > 0 {
			js.unlink(js.at(b.rows[len(b.rows)-1]))
		}
	}
}

// ownRow finds side's row (encoded in o.vbuf, join key in o.kbuf, row
// key in o.rbuf, rowHash h and hi) on spilled join o: it returns the
// row if arranged (resident or in a tail); if not, its side key is not
// resident and the row may be stored (joinSpill.rows), it reads the
// row's state key, making the side key resident if the store holds it,
// and returns it from there.
func (o *joinOp) ownRow(side int, row repr.Row, h, hi uint32) (*jrow, error) {
	r, err := o.find(side, h, o.vbuf, o.rbuf)
	if err != nil || r != nil || !o.spilled(side) || o.sp.resident(string(o.sideKey(side, o.kbuf))) {
		return r, err
	}
	if m := o.sp.rows[side]; m != nil && m[uint64(hi)<<32|uint64(h)] == 0 {
		return nil, nil
	}
	stored, err := o.storedRow(side, row)
	if err != nil || !stored {
		return nil, err
	}
	if err := o.useSide(side, o.kbuf, true); err != nil {
		return nil, err
	}
	o.vbuf = repr.AppendDatums(o.vbuf[:0], row) // the load reused it
	return o.find(side, h, o.vbuf, o.rbuf)
}

// storedRow reports whether the store holds side's row (row, join key
// o.kbuf, row key o.rbuf): one point read (a scan of its exact state
// key, which sorts first under it), none if it is in a closed bucket.
func (o *joinOp) storedRow(side int, row repr.Row) (bool, error) {
	o.cbuf = o.cbuf[:0]
	if o.tm != nil {
		b := o.timeBucketOf(side, row)
		if b < o.tm.closed[side] {
			return false, nil
		}
		o.cbuf = binary.BigEndian.AppendUint64(o.cbuf, b)
	}
	o.cbuf = append(append(o.cbuf, o.kbuf...), o.rbuf...)
	found := false
	err := o.sp.scanKey(o.tag(side), o.cbuf, func(k, _ []byte) error {
		found = len(k) == 1+len(o.cbuf) && !o.sp.isDead(k)
		return errStopScan
	})
	if err == errStopScan {
		err = nil
	}
	return found, err
}

// arranged accounts a row of n bytes just arranged on spilled side of o,
// join key o.kbuf: to its resident side key (now dirty) or to a tail.
func (o *joinOp) arranged(side int, n int64, fresh bool) {
	tk := o.sideKey(side, o.kbuf)
	if o.sp.resident(string(tk)) {
		o.sp.grew(tk, n)
		o.sp.touch(tk, true)
		return
	}
	o.sp.tailBytes += n
	if fresh {
		o.sp.tails = append(o.sp.tails, string(tk))
	}
}

// flushTails drops the tails that did not become resident (the
// checkpoint wrote their rows) and forgets the dead rows (it deleted
// them).
func (o *joinOp) flushTails() {
	for _, t := range o.sp.tails {
		if !o.sp.resident(t) {
			o.evictKey(t)
		}
	}
	o.sp.tails, o.sp.tailBytes = o.sp.tails[:0], 0
	o.sp.dead.reset()
	o.sp.deadMark = 0
}

// freeStored deletes side's stored row of state key sk (after the tag,
// join key klen bytes), which is not dead, unread, logging its deletion,
// and marks it dead until the checkpoint.
func (o *joinOp) freeStored(s *stepCtx, side int, sk []byte, klen int) {
	o.lbuf = append(append(o.lbuf[:0], s.prefix...), o.tag(side))
	o.lbuf = append(o.lbuf, sk...)
	s.log.del(o.lbuf)
	o.sp.dead.add(o.lbuf[len(s.prefix):])
	d := deadRow{side, rowKeyHash(sk[klen:])}
	o.sp.died = append(o.sp.died, d)
	o.counted(side, d.hash, -1)
}

// counted adds d to the count of side's rows of rowKeyHash h, if o
// counts them (joinSpill.rows).
func (o *joinOp) counted(side int, h uint64, d int32) {
	if o.sp == nil || o.sp.rows[side] == nil {
		return
	}
	m := o.sp.rows[side]
	if n := m[h] + d; n > 0 {
		m[h] = n
	} else {
		delete(m, h)
	}
}

// isDead reports whether state key k (tag, join key, row key) is dead.
func (sp *joinSpill) isDead(k []byte) bool {
	return sp.dead.len() > 0 && sp.dead.has(k)
}

// undie revives the rows the pending Step marked dead (it rolls back).
func (o *joinOp) undie() {
	for _, d := range o.sp.died {
		o.counted(d.side, d.hash, 1)
	}
	o.sp.dead.truncate(o.sp.deadMark)
	o.sp.died = reuse(o.sp.died)
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
	sp, b, l, e := o.sp.stats()
	return sp, b + o.sp.tailBytes, l, e
}

func (o *joinOp) flushedState() {
	if o.sp != nil {
		o.flushTails()
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
