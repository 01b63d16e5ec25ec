package exec

import (
	"cmp"
	"slices"

	"github.com/eddydb/eddy/repr"
)

// The close indexes of window and interval joins (windowJoin,
// intervalJoin), in memory and spilled. In memory a close index files
// each arranged row by reference (jref) under the value that frees it.
// A spilled join (join_spill.go) arranges only some of its rows, so its
// close index files each row's name instead (keyRef: its join key and
// the 64-bit rowKeyHash of its row key; no columns), and closing frees a
// named row where it is: in memory (a resident side key or a tail); or,
// if its side key is not resident, in the store without decoding it:
// the Step's names are in key order (nameHeap's rounds), so one range
// scan of their join keys' stored keys finds the rows of the names'
// hashes, logs their deletion and records their state
// keys as dead until the next checkpoint (joinSpill.dead), so that
// neither a point read nor a load sees them before the checkpoint
// deletes them. A row filed under a value below the threshold is the row
// the in-memory index frees (every row of that row key has that value);
// a name whose row has gone (retracted since) frees nothing.
//
// A spilled side frees at most spillCloseRows rows per Step (in rounds
// sorted by key, nameHeap), an in-memory side at most memCloseRows, the
// lowest first; the rest stay filed, and arranged, until later Steps
// free them.
// Freeing late changes no output: a row past the threshold can match no
// later row of the other side (the join's residual or window key refuses
// it, as it would refuse a row freed in time), and freeing emits nothing.
// It bounds a Step's memory, which closing spends per freed row (the
// popped entry kept for rollback, the dead key, the logged deletion:
// about 300 bytes): a watermark that passes a whole window at once (q7's
// windows end every 10 s of event time, closing every bid of those 10 s,
// 1M at 100K events/s) would otherwise make one Step hold hundreds of MB
// and the memory budget refuse it for good.
//
// A side with at most an eighth of the other side's rows when the join
// spills (q7's windows beside its bids) stays in memory (joinSpill.skip)
// with its index by reference. A restore that stops to spill keeps no
// side.

// keyRef names an arranged row of a spilled join's side: its join key
// and the rowKeyHash of its row key (rows sharing both are one row but
// for a 64-bit hash collision). Names of one bucket share its key.
type keyRef struct {
	key  string
	hash uint64
}

// rowClose is the close index of one side's rows of a window or interval
// join: mem while the join is in memory, sp once it has spilled.
type rowClose struct {
	mem closeIndex[jref]
	sp  nameHeap
}

// nameHeap is the close index of a spilled side: a min-heap of named
// rows by value, one flat entry per row (a closeIndex keeps a slice per
// distinct value, and the rows of an interval join's side mostly have
// distinct times: q7's bids), so it holds each open row in 24 bytes
// and no pointer (its join key's id in keys, a keyTab: the collector
// scans no name).
//
// Closing works in rounds: once the previous round is done, a close moves
// the names due (up to spillCloseRound, the lowest) from the heap to due,
// sorted by join key and hash, and each Step then frees the next
// spillCloseRows of them (due[next:] are still filed). A Step's names are
// thus adjacent in key order, and so are their stored rows: one range
// scan finds them all (closeStored), and a crowded join key (a low q7
// price: hundreds of open bids) is read once per round rather than once
// per Step. Rollback moves the Step's names back: the round's position,
// or, if the Step began the round, its names to the heap.
type nameHeap struct {
	h    []named
	due  []named
	keys keyTab
	// kept is the number of keys after the last rebuild of keys.
	kept int
	// next is the first name of due not freed; mark is next at the last
	// commit; filled is set when the pending Step filled due.
	next, mark int
	filled     bool
	// buckets holds, per key id, the lowest and highest timeBucket of
	// the values filed under the key since the last rebuild: where a
	// load of a join keyed by time looks (join_time.go).
	buckets []bucketSpan
}

// bucketSpan is a range of time buckets, lo > hi when empty.
type bucketSpan struct{ lo, hi uint64 }

// spillCloseRows is the most rows a spilled side's close frees per Step
// (a variable for tests): 64K rows, about 20 MB of a Step's memory.
var spillCloseRows = 1 << 16

// memCloseRows is the most rows (completing the last value's) an
// in-memory side's close frees per Step (a variable for tests): 256K, so
// that the first window close of q7 before its join spills (every bid of
// 10 s of event time, 1M) does not make one Step hold hundreds of MB of
// undo records and logged deletions. (64K, as spillCloseRows, cost
// in-memory q7 14-21% more CPU per event; 256K about 5%.)
var memCloseRows = 1 << 18

// spillCloseRound is the most names a round of closes takes from the heap
// (nameHeap): 4 Steps' worth, 8 MB of names at most (a round's names stay
// allocated until it ends, beside the heap's: under q7's 256 MiB budget
// a round of a whole window, 1M names, made its Steps refused).
func spillCloseRound() int { return 4 * spillCloseRows }

// named is a row's name filed under its value: the rowKeyHash of its
// row key and the id of its join key in its nameHeap's keys.
type named struct {
	v    int64
	hash uint64
	key  uint32
}

// add files ref under v.
func (x *nameHeap) add(v int64, ref keyRef) {
	x.file(named{v, ref.hash, x.keys.intern(ref.key)})
}

// file files e, widening its key's bucket span.
func (x *nameHeap) file(e named) {
	for int(e.key) >= len(x.buckets) {
		x.buckets = append(x.buckets, bucketSpan{lo: nullBucket})
	}
	b, sp := timeBucket(e.v), &x.buckets[e.key]
	sp.lo, sp.hi = min(sp.lo, b), max(sp.hi, b)
	x.push(e)
}

// span returns the lowest and highest bucket of the values key is
// filed under (a superset: closed names are dropped by rebuild only);
// false when no name holds key.
func (x *nameHeap) span(key []byte) (lo, hi uint64, ok bool) {
	id, ok := x.keys.find(string(key))
	if !ok || int(id) >= len(x.buckets) || x.buckets[id].lo > x.buckets[id].hi {
		return 0, 0, false
	}
	return x.buckets[id].lo, x.buckets[id].hi, true
}

// ref returns the name of e, its key viewing x's keys.
func (x *nameHeap) ref(e named) keyRef { return keyRef{x.keys.str(e.key), e.hash} }

// push files e.
func (x *nameHeap) push(e named) {
	x.h = append(x.h, e)
	for i := len(x.h) - 1; i > 0; {
		p := (i - 1) / 2
		if x.h[p].v <= x.h[i].v {
			break
		}
		x.h[p], x.h[i] = x.h[i], x.h[p]
		i = p
	}
}

// popBelow moves the entries whose value is below wm to due, in value
// order, up to limit of them.
func (x *nameHeap) popBelow(wm int64, limit int) {
	for n := 0; n < limit && len(x.h) > 0 && x.h[0].v < wm; n++ {
		top := x.h[0]
		last := len(x.h) - 1
		x.h[0] = x.h[last]
		x.h[last] = named{}
		x.h = x.h[:last]
		x.down()
		x.due = append(x.due, top)
	}
}

// down restores the heap order from the root.
func (x *nameHeap) down() {
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(x.h) {
			return
		}
		if c+1 < len(x.h) && x.h[c+1].v < x.h[c].v {
			c++
		}
		if x.h[i].v <= x.h[c].v {
			return
		}
		x.h[i], x.h[c] = x.h[c], x.h[i]
		i = c
	}
}

// take returns the next names of the current round to free, at most
// limit, after filling a new round with the names due below wm if the
// last one is done: sorted by join key, then hash.
func (x *nameHeap) take(wm int64, limit int) []named {
	if x.next == len(x.due) && len(x.h) > 0 && x.h[0].v < wm {
		x.due, x.next, x.filled = x.due[:0], 0, true
		x.popBelow(wm, spillCloseRound())
		slices.SortFunc(x.due, x.compareNames)
	}
	n := min(limit, len(x.due)-x.next)
	c := x.due[x.next : x.next+n]
	x.next += n
	return c
}

// compareNames orders names by join key, then hash.
func (x *nameHeap) compareNames(a, b named) int {
	if c := x.keys.compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.hash, b.hash)
}

// pending is the number of names x files, freed in no committed Step.
func (x *nameHeap) pending() int { return len(x.h) + len(x.due) - x.next }

func (x *nameHeap) commit() {
	if x.next == len(x.due) {
		x.due, x.next = reuse(x.due), 0
	}
	x.mark, x.filled = x.next, false
	if x.keys.len() > 2*x.kept+keysRebuildMin {
		x.rebuild()
	}
}

// keysRebuildMin is how many keys a nameHeap's keys grow by, beyond
// twice those kept at the last rebuild, before the next rebuild (a
// variable for tests).
var keysRebuildMin = 4096

// rebuild drops the keys no name holds (closed join keys) by interning
// the open names' keys into a new keyTab, and the freed names of due;
// between Steps only (ids change). Amortized: the keys doubled since the
// last rebuild.
func (x *nameHeap) rebuild() {
	old := x.keys
	x.keys = keyTab{}
	x.due = append(x.due[:0], x.due[x.next:]...)
	x.next, x.mark = 0, 0
	x.buckets = x.buckets[:0]
	for _, s := range [][]named{x.h, x.due} {
		for i := range s {
			s[i].key = x.keys.intern(old.str(s[i].key))
			for int(s[i].key) >= len(x.buckets) {
				x.buckets = append(x.buckets, bucketSpan{lo: nullBucket})
			}
			b, sp := timeBucket(s[i].v), &x.buckets[s[i].key]
			sp.lo, sp.hi = min(sp.lo, b), max(sp.hi, b)
		}
	}
	x.kept = x.keys.len()
}

// rollback puts back the names the pending Step took: in due, or, if it
// began the round, in the heap.
func (x *nameHeap) rollback() {
	if x.filled {
		for _, e := range x.due {
			x.push(e)
		}
		x.due, x.mark = x.due[:0], 0
	}
	x.next = x.mark
	x.commit()
}

// rowValue computes the value under which a row of a side is filed (and
// below which it is freed); false when it has none (NULL).
type rowValue func(row repr.Row) (int64, bool)

// add files arranged row r of side of o under v.
func (x *rowClose) add(o *joinOp, side int, v int64, r *jrow) {
	if !o.spilled(side) {
		x.mem.add(v, refOf(r))
		return
	}
	x.sp.add(v, keyRef{r.b.key, r.keyHash()}) // spilled sides bucket every row (nulls too)
}

// close frees the rows of side of o filed below thr, logging their
// deletion: up to memCloseRows (whole values) in memory, up to
// spillCloseRows spilled.
func (x *rowClose) close(s *stepCtx, o *joinOp, side int, thr int64) error {
	ranged := o.tm != nil && o.tm.val[side] != nil && s.log.ranges
	if ranged {
		thr = o.closeBuckets(s, side, thr)
	}
	var err error
	if !o.spilled(side) {
		x.mem.popBelowN(thr, memCloseRows, func(ref jref) {
			if ref.live() && err == nil {
				err = o.free(s, side, ref.r)
			}
		})
		return err
	}
	for _, e := range x.sp.take(thr, spillCloseRows) {
		if err := o.closeRef(s, side, x.sp.ref(e), ranged); err != nil {
			return err
		}
	}
	return o.closeStored(s, side)
}

// closeRef frees side's arranged rows named ref of spilled join o (its
// side key, if resident, now dirty); if there are none and the side key
// is not resident, its stored row is in a bucket whose range deletion
// is logged when ranged (join_time.go: it only counts it gone), else it
// leaves ref's hash to closeStored.
func (o *joinOp) closeRef(s *stepCtx, side int, ref keyRef, ranged bool) error {
	js := &o.sides[side]
	found := false
	for r := js.head(uint32(ref.hash) & joinHashMask); r != nil; {
		next := js.following(r)
		if r.keyHash() == ref.hash && r.b != nil && r.b.key == ref.key {
			if err := o.free(s, side, r); err != nil {
				return err
			}
			found = true
		}
		r = next
	}
	o.sp.tbuf = append(append(o.sp.tbuf[:0], o.tag(side)), ref.key...)
	switch {
	case found:
		o.sp.touch(o.sp.tbuf, true)
	case o.sp.resident(string(o.sp.tbuf)):
	case ranged:
		// Stored in a closed bucket, whose range deletion is logged.
		o.sp.died = append(o.sp.died, deadRow{side, ref.hash})
		o.counted(side, ref.hash, -1)
	default:
		o.sp.closing = append(o.sp.closing, ref)
	}
	return nil
}

// closeGap is how many stored keys of join keys it has no name of a
// closing range scan reads in a row before it seeks to its next name's
// key instead (a seek costs about as much as that many steps).
const closeGap = 32

// closeStored frees side's stored rows that closeRef left (o.sp.closing,
// in key order), reading their keys in one range scan, seeking past
// gaps of more than closeGap keys, and decoding no row.
func (o *joinOp) closeStored(s *stepCtx, side int) error {
	for c := o.sp.closing; len(c) > 0; {
		var err error
		if c, err = o.closeRange(s, side, c); err != nil {
			return err
		}
	}
	o.sp.closing = o.sp.closing[:0]
	return nil
}

// closeRange scans side's stored keys from c[0]'s join key on, freeing
// those of the rows c names (sorted by join key and hash), until it
// passes c's last join key or a gap; it returns the names of the join
// keys it did not reach.
func (o *joinOp) closeRange(s *stepCtx, side int, c []keyRef) ([]keyRef, error) {
	tag := o.tag(side)
	o.cbuf = append(o.cbuf[:0], c[0].key...)
	i, end, gap := 0, runEnd(c, 0), 0 // c[i:end] name the rows of c[i].key
	err := o.sp.scanFrom(tag, o.cbuf, commonPrefix(c[0].key, c[len(c)-1].key), func(k, _ []byte) error {
		body := k[1:]
		for i < len(c) && !hasKey(body, c[i].key) && string(body) > c[i].key {
			i = end
			end = runEnd(c, i)
		}
		switch {
		case i == len(c):
			return errStopScan
		case !hasKey(body, c[i].key): // before c[i].key: a join key without names
			if gap++; gap > closeGap {
				return errStopScan
			}
			return nil
		}
		gap = 0
		key := c[i].key
		if len(body) == len(key) {
			return nil
		}
		// Named first, dead second: most keys scanned are not named, and
		// the dead set is a map of whole keys, costlier than the hash.
		h := rowKeyHash(body[len(key):])
		if _, ok := slices.BinarySearchFunc(c[i:end], h, compareHash); ok && !o.sp.isDead(k) {
			o.freeStored(s, side, body, len(key))
		}
		return nil
	})
	switch {
	case err == errStopScan && i < len(c):
		return c[i:], nil
	case err == errStopScan:
		return nil, nil
	}
	return nil, err
}

// compareHash orders a name by its hash against h.
func compareHash(r keyRef, h uint64) int { return cmp.Compare(r.hash, h) }

// commonPrefix returns the length of the longest common prefix of a and
// b: the keys between them share it.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// runEnd returns the end of the run of names of c[i].key in c.
func runEnd(c []keyRef, i int) int {
	j := i
	for j < len(c) && c[j].key == c[i].key {
		j++
	}
	return j
}

// hasKey reports whether state key body (after the tag) is under join
// key key.
func hasKey(body []byte, key string) bool {
	return len(body) >= len(key) && string(body[:len(key)]) == key
}

// fileName files arranged row r of side of keyed join o under v in sp.
func (o *joinOp) fileName(sp *nameHeap, v int64, side int, r *jrow) error {
	row, err := o.decodeScratch(side, r)
	if err != nil {
		return err
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.sides[side].keyCols)
	sp.file(named{v, r.keyHash(), sp.keys.intern(string(o.kbuf))})
	return nil
}

// named returns the entries of x.mem, an index of side of o, as names
// (o is about to drop its arrangements), without the rows no longer
// arranged.
func (x *rowClose) named(o *joinOp, side int) (nameHeap, error) {
	var sp nameHeap
	for v, refs := range x.mem.items {
		for _, ref := range refs {
			if !ref.live() {
				continue
			}
			if err := o.fileName(&sp, v, side, ref.r); err != nil {
				return sp, err
			}
		}
	}
	return sp, nil
}

func (x *rowClose) commit() {
	x.mem.commit()
	x.sp.commit()
}

func (x *rowClose) rollback() {
	x.mem.rollback()
	x.sp.rollback()
}

// len is the number of rows x files (counting a row again if filed
// again).
func (x *rowClose) len() int {
	n := x.sp.pending()
	for _, refs := range x.mem.items {
		n += len(refs)
	}
	return n
}

// eachStored calls fn with every row of side that spilled join o holds
// in the store, and its name: the rows a restore that stopped to spill
// did not arrange, which its close index must still file.
func (o *joinOp) eachStored(side int, fn func(row repr.Row, ref keyRef) error) error {
	return o.sp.scanKey(o.tag(side), nil, func(k, v []byte) error {
		if o.tm != nil && len(k) < 9 {
			return errCorrupt
		}
		body := o.timedBody(k)
		row, _, _, err := o.decodeLogged(side, body, v)
		if err != nil {
			return err
		}
		if o.tm != nil {
			o.tm.noteNull(side, k[1:])
		}
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.sides[side].keyCols)
		if len(body) < len(o.kbuf) {
			return errCorrupt
		}
		if o.owns != nil && !o.owns(o.kbuf) {
			return nil // another shard's row
		}
		h := rowKeyHash(body[len(o.kbuf):])
		o.counted(side, h, 1)
		return fn(row, keyRef{string(o.kbuf), h})
	})
}

// spillIndexed spills o, keeping its small side (smallSide) in memory,
// and turns the close indexes of the other sides (idx[i] indexes side
// sides[i]) into names; false, doing nothing, when o cannot spill.
func (o *joinOp) spillIndexed(r StateReader, prefix []byte, cache int64, idx []*rowClose, sides []int) bool {
	if !o.canSpill() {
		return false
	}
	keep := o.smallSide()
	named := make([]nameHeap, len(idx))
	for i, x := range idx {
		if keep[sides[i]] {
			continue
		}
		var err error
		if named[i], err = x.named(o, sides[i]); err != nil {
			return false // a row that does not decode: stay in memory
		}
	}
	for i, x := range idx {
		if !keep[sides[i]] {
			x.mem, x.sp = closeIndex[jref]{}, named[i]
		}
	}
	rows := o.rowCounts(keep)
	if !o.spill(r, prefix, cache, keep) {
		return false
	}
	o.sp.rows = rows
	return true
}

// rowCounts counts the arranged rows of each side not kept by
// rowKeyHash (joinSpill.rows): none during a restore, whose stored rows
// eachStored counts.
func (o *joinOp) rowCounts(keep [2]bool) (rows [2]map[uint64]int32) {
	for side := range 2 {
		if keep[side] {
			continue
		}
		rows[side] = make(map[uint64]int32)
		if o.restoring {
			continue
		}
		o.sides[side].each(func(r *jrow) { rows[side][r.keyHash()]++ })
	}
	return rows
}

// smallSide returns the side of o to keep in memory when it spills: one
// with at most an eighth of the other side's rows, if any; none during a
// restore (which arranged only some rows).
func (o *joinOp) smallSide() (keep [2]bool) {
	if o.restoring {
		return keep
	}
	l, r := o.sides[0].live, o.sides[1].live
	keep[0] = r > 0 && l*8 <= r
	keep[1] = l > 0 && r*8 <= l
	return keep
}
