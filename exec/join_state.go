package exec

import (
	"hash/maphash"
	"math/bits"

	"github.com/eddydb/eddy/repr"
)

// joinSide is one input's arrangement of a joinOp. Its rows live in
// chunks of jrow entries (which never move), addressed by id, rather than one heap object
// each, and every index over them holds ids: the rows map and the
// buckets' row lists hold no pointers, so the collector neither scans
// them nor marks an object per row. A row's only heap object is its
// encoding. Ids of removed rows are reused, but only once the Step that
// removed them commits or rolls back (release), so an undo record's row
// stays put; gen tells a reused entry from the row an older reference
// (a window or interval join's close index) meant.
type joinSide struct {
	keyCols   []int
	chunks    [][]jrow
	allocated int     // entries in chunks
	free      []int32 // released ids
	removed   []int32 // ids removed during the pending Step (released by release)
	// heads finds a row by rowHash (lo) of its key encoding: heads[lo &
	// (len(heads)-1)] is the id of the head of a chain (jrow.next) of the
	// arranged rows whose hash has those low bits (noRow: none), rows of
	// one hash in the order they were linked, newest first. A flat table,
	// not a map: one memory access per probe. len(heads) is a power of
	// two, at least live (grown by doubling, never shrunk but by a rebuild).
	heads   []int32
	buckets map[string]*jbucket
	// nulls holds, on a spilled side only (nil otherwise), the rows whose
	// join key has a NULL column, by join key, so that evicting a key
	// (join_spill.go) finds them; they never match.
	nulls map[string]*jbucket
	live  int // rows arranged
}

// Chunks of jrow entries double from 1<<jrowFirstShift entries to
// 1<<jrowShift, so a side of a few rows (a nation table) does not pay
// for thousands of entries; later chunks all have 1<<jrowShift. Ids
// number the entries in allocation order.
const (
	jrowFirstShift = 4
	jrowShift      = 12
	jrowMask       = 1<<jrowShift - 1
	// jrowGrown is the number of entries in the doubling chunks.
	jrowGrown = 1<<(jrowShift+1) - 1<<jrowFirstShift
	noRow     = -1 // jrow.next: the end of a chain
	freedRow  = -2 // jrow.next: a released entry
)

// chunkOf returns the chunk holding id and id's offset in it.
func chunkOf(id int32) (chunk, off int) {
	if id < jrowGrown {
		c := bits.Len32(uint32(id)>>jrowFirstShift+1) - 1
		return c, int(id) - (1<<c-1)<<jrowFirstShift
	}
	rest := int(id) - jrowGrown
	return jrowShift - jrowFirstShift + 1 + rest>>jrowShift, rest & jrowMask
}

// chunkSize is the number of entries of chunk c.
func chunkSize(c int) int {
	return 1 << min(jrowFirstShift+c, jrowShift)
}

// jbucket holds the ids of the rows of one join key, in insertion order
// (swap-remove).
type jbucket struct {
	key  string
	rows []int32
	// null marks a bucket of joinSide.nulls.
	null bool
}

// jrow is one distinct row of one side. enc is the value encoding of its
// columns (repr.AppendDatums), which is all of the row that is kept:
// Datums are ~48 bytes each and a numeric another allocation, while the
// encoding of an int4 takes ~3 bytes and of a numeric(15,2) ~7. Rows
// equal as keys (1.5 and 1.50) are one jrow, with the encoding of the
// first.
type jrow struct {
	enc     string
	b       *jbucket // nil: a key column is NULL, or not arranged
	n       int64
	matches int64
	stamp   uint64
	id      int32
	next    int32  // the next row of the same hash; noRow ends the chain
	pos     int32  // index in b.rows; -1 while not arranged
	hash    uint32 // rowHash (lo) of the row's key encoding
	gen     uint32 // incremented when the entry is released
	hi      uint32 // the high bits of the row key's hash (rowHash)
}

// in reports whether r is arranged.
func (r *jrow) in() bool { return r.pos >= 0 }

// jref refers to a row from outside its side (a close index), valid
// while the entry has not been released since.
type jref struct {
	r   *jrow
	gen uint32
}

func refOf(r *jrow) jref { return jref{r, r.gen} }

// live reports whether the row referred to is still arranged.
func (ref jref) live() bool { return ref.r.gen == ref.gen && ref.r.in() }

// joinSeed seeds rowHash; joinHashMask is all ones but in tests that
// force hash collisions.
var (
	joinSeed     = maphash.MakeSeed()
	joinHashMask = ^uint32(0)
)

// rowHash hashes a row's key encoding: lo indexes the rows (jrow.hash,
// masked), hi is 32 more bits (jrow.hi).
func rowHash(key []byte) (lo, hi uint32) {
	h := maphash.Bytes(joinSeed, key)
	return uint32(h) & joinHashMask, uint32(h >> 32)
}

// rowKeyHash is the 64-bit hash of a row's key encoding that a spilled
// join counts its rows by (join_spill.go).
func rowKeyHash(key []byte) uint64 {
	lo, hi := rowHash(key)
	return uint64(hi)<<32 | uint64(lo)
}

// keyHash is r's rowKeyHash.
func (r *jrow) keyHash() uint64 { return uint64(r.hi)<<32 | uint64(r.hash) }

func newJoinSide(keyCols []int) joinSide {
	return joinSide{keyCols: keyCols, heads: newHeads(minHeads), buckets: make(map[string]*jbucket)}
}

// minHeads is the smallest chain table of a side.
const minHeads = 16

// newHeads returns an empty chain table of n slots.
func newHeads(n int) []int32 {
	h := make([]int32, n)
	for i := range h {
		h[i] = noRow
	}
	return h
}

// slot returns the index of hash h's chain.
func (js *joinSide) slot(h uint32) int { return int(h) & (len(js.heads) - 1) }

// grow doubles the chain table, keeping the rows of each hash in their
// order (a row's chain order is the order find and closeRef visit rows of
// one hash, which must not depend on when the table grew).
func (js *joinSide) grow() {
	old := js.heads
	js.heads = newHeads(2 * len(old))
	tails := newHeads(len(js.heads))
	for _, id := range old {
		for id != noRow {
			r := js.at(id)
			id = r.next
			r.next = noRow
			k := js.slot(r.hash)
			if t := tails[k]; t == noRow {
				js.heads[k] = r.id
			} else {
				js.at(t).next = r.id
			}
			tails[k] = r.id
		}
	}
}

// at returns the entry of id.
func (js *joinSide) at(id int32) *jrow {
	c, off := chunkOf(id)
	return &js.chunks[c][off]
}

// alloc returns a fresh entry (not arranged) for a row encoded as enc.
func (js *joinSide) alloc(enc string, hash uint32) *jrow {
	var id int32
	if n := len(js.free); n > 0 {
		id, js.free = js.free[n-1], js.free[:n-1]
	} else {
		last := len(js.chunks) - 1
		if last < 0 || len(js.chunks[last]) == cap(js.chunks[last]) {
			js.chunks = append(js.chunks, make([]jrow, 0, chunkSize(last+1)))
			last++
		}
		id = int32(js.allocated)
		js.allocated++
		js.chunks[last] = js.chunks[last][:len(js.chunks[last])+1]
	}
	r := js.at(id)
	*r = jrow{enc: enc, id: id, next: noRow, pos: -1, hash: hash, gen: r.gen}
	return r
}

// head returns the first arranged row of hash h, nil if none.
func (js *joinSide) head(h uint32) *jrow {
	return js.sameHash(js.heads[js.slot(h)], h)
}

// following returns the arranged row after r with r's hash, nil if none.
func (js *joinSide) following(r *jrow) *jrow {
	return js.sameHash(r.next, r.hash)
}

// sameHash returns the first row of hash h in the chain from id on, nil
// if none.
func (js *joinSide) sameHash(id int32, h uint32) *jrow {
	for id != noRow {
		r := js.at(id)
		if r.hash == h {
			return r
		}
		id = r.next
	}
	return nil
}

// link arranges r (whose columns are row) in the rows map and, unless a
// key column is NULL, in its key's bucket, leaving the join key in
// *kbuf.
func (js *joinSide) link(r *jrow, row repr.Row, kbuf *[]byte) {
	*kbuf = repr.AppendColsKey((*kbuf)[:0], row, js.keyCols)
	js.linkKey(r, *kbuf, hasNullCol(row, js.keyCols))
}

// linkKey arranges r, whose join key is key (null: with a NULL column),
// in the rows map and, unless null, in key's bucket (a null key's rows
// go to js.nulls on a spilled side).
func (js *joinSide) linkKey(r *jrow, key []byte, null bool) {
	if js.live >= len(js.heads) {
		js.grow()
	}
	k := js.slot(r.hash)
	r.next, js.heads[k] = js.heads[k], r.id
	js.live++
	r.pos = 0
	m := js.buckets
	if null {
		if m = js.nulls; m == nil {
			r.b = nil
			return
		}
	}
	b := m[string(key)]
	if b == nil {
		b = &jbucket{key: string(key), null: null}
		m[b.key] = b
	}
	r.b, r.pos = b, int32(len(b.rows))
	b.rows = append(b.rows, r.id)
}

// unlink removes r from the arrangement; its entry is released by the
// next release.
func (js *joinSide) unlink(r *jrow) {
	k := js.slot(r.hash)
	if js.heads[k] == r.id {
		js.heads[k] = r.next
	} else {
		for p := js.at(js.heads[k]); p.next != noRow; p = js.at(p.next) {
			if p.next == r.id {
				p.next = r.next
				break
			}
		}
	}
	r.next = noRow
	js.live--
	if b := r.b; b != nil {
		last := js.at(b.rows[len(b.rows)-1])
		b.rows[r.pos], last.pos = last.id, r.pos
		b.rows = b.rows[:len(b.rows)-1]
		if len(b.rows) == 0 && b.null {
			delete(js.nulls, b.key)
		} else if len(b.rows) == 0 {
			delete(js.buckets, b.key)
		}
	}
	r.b, r.pos = nil, -1
	js.removed = append(js.removed, r.id)
}

// release frees the entries of the rows removed during the Step that is
// ending and not arranged again (by a rollback) for reuse.
func (js *joinSide) release() {
	for _, id := range js.removed {
		if r := js.at(id); !r.in() && r.next != freedRow {
			*r = jrow{id: id, next: freedRow, pos: -1, gen: r.gen + 1}
			js.free = append(js.free, id)
		}
	}
	js.removed = js.removed[:0]
}

// each calls fn with every arranged row.
func (js *joinSide) each(fn func(*jrow)) {
	for _, c := range js.chunks {
		for i := range c {
			if c[i].in() {
				fn(&c[i])
			}
		}
	}
}
