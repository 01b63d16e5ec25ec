package exec

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/eddydb/eddy/repr"
)

// Lazy values of min and max. max(v) under retractions keeps every value
// of its group, yet only the largest matters until it is retracted:
// max(v) over a table (BENCHMARKS.md, write path) inserted a value per
// row into its group's hash table (a cache miss), allocated a 112-byte
// entry for it (a million live, pointer-bearing objects for the
// collector to mark), rehashed as the table grew, and logged the entry
// in a run. A value that falls strictly between the multiset's cached
// extrema changes neither min nor max; as long as nothing is retracted
// it is only ever needed again to be logged. Such a value (an integer,
// the common case, whose key is its 9-byte key encoding and whose datum
// is NewInt of it) is appended to the multiset's lz instead: 16 bytes,
// no pointer, no lookup, no entry. The multiset's content is its index
// (entries) plus lz, the same key possibly in both, counts adding.
//
// lz is settled (each value looked up and added to its entry, created if
// needed) before anything reads the multiset as a whole or looks up a key
// lz may hold: a retraction, an insertion between the extrema that does
// not go to lz (a Step that does not defer), any iteration, a stale
// extremum. A new extremum goes to the entries without settling (lz
// cannot hold its key). Settling is when the index was needed anyway, so
// a group that sees retractions pays what it paid before, once. A Step
// settles before it touches an entry lz may add to: the settle's silent
// additions would otherwise be undone by the entry's undo record.
//
// Invariant: while lz is not empty the multiset is in cached mode (map,
// no B-tree, extrema not stale) and every lz key lies strictly between
// the cached extrema (they only widen while nothing is retracted, and a
// retraction settles first). Only Steps that defer (reduce_defer.go) on
// slots logged in runs append to lz; they queue the multiset for
// FlushState, which logs lz[lzLogged:] as a diff run:
//
//	{0x02} group-key (0x80|slot) seq -> row(len(group-key), -2, blob, NULL)
//
// blob holding per value its integer and its count change, each a
// varint. A restore adds a diff run's changes to the entries (where a
// count run replaces counts), in seq order with the count runs: FlushState
// writes a multiset's count run before its diff run, and settling marks
// the entries it changes dirty when their values were not yet logged, so
// a later count run carries them. A rewrite (runCompactRuns) writes the
// live entries as a count run and all of lz as one diff run.
//
// Rollback truncates lz to its length before the Step (lzMark); a
// settle during the Step adds the Step's own values through the entries'
// undo records (addIndexed) and the earlier ones without (they are
// committed), so lzMark becomes 0.

// lz is kept sorted and merged (compactLazy) at FlushState whenever it
// has doubled since the last time: a group's repeated values then cost
// one item per distinct value, not one per row, beyond the values of the
// Steps since the flush.

// lazyVal is an integer value of a min/max multiset not yet in its
// index, and its count change.
type lazyVal struct{ v, n int64 }

// lazyValBytes is a lazy value's bytes.
const lazyValBytes = 16

// lazyCompactMin is how long lz may grow past twice its length after the
// last compactLazy before the next (a variable for tests).
var lazyCompactMin = 64

// countRunTag and diffRunTag are the count field of a count run's and of
// a diff run's record.
const (
	countRunTag = -1
	diffRunTag  = -2
)

// initLazy decides which slots may take lazy values: those of min and max
// over an integer column logged in runs.
func (o *reduceOp) initLazy(in []repr.T) {
	for _, a := range o.aggs {
		if a.valSlot < 0 || a.def.Extremum == 0 || !o.slotRuns[a.valSlot] || len(a.Order) > 0 {
			continue
		}
		if in[a.Col].Family != repr.FamInt {
			continue
		}
		if o.slotLazy == nil {
			o.slotLazy = make([]bool, len(o.slotOrdered))
		}
		o.slotLazy[a.valSlot] = true
	}
}

// addLazy appends diff copies of val to lz of ms (slot of g), if the Step
// defers and val lies strictly between the cached extrema; o.ebuf holds
// val's key.
func (o *reduceOp) addLazy(s *stepCtx, g *group, slot int, ms *multiset, val repr.Datum, diff int64) bool {
	if diff <= 0 || !o.defers(s) || !ms.cached() || ms.lo == nil || ms.hi == nil || !ms.ordered ||
		val != repr.NewInt(val.Int()) || string(o.ebuf) <= ms.ext.lo || string(o.ebuf) >= ms.ext.hi {
		return false
	}
	if ms.lzStamp != s.epoch {
		ms.lzStamp, ms.lzMark = s.epoch, len(ms.lz)
		o.lzTouched = append(o.lzTouched, ms)
	}
	if len(ms.lz) == cap(ms.lz) {
		s.grown += int64(max(cap(ms.lz), 8)) * lazyValBytes
	}
	ms.lz = append(ms.lz, lazyVal{v: val.Int(), n: diff})
	if ms.rs == nil {
		ms.rs = &runState{}
		s.grown += runStateBytes
	}
	o.queueRuns(g, slot, ms)
	return true
}

// mayHoldLazy reports whether lz may hold key: it holds only keys
// strictly between the cached extrema.
func (ms *multiset) mayHoldLazy(key []byte) bool {
	if len(ms.lz) == 0 {
		return false
	}
	if !ms.cached() || ms.lo == nil || ms.hi == nil {
		return true
	}
	return string(key) > ms.ext.lo && string(key) < ms.ext.hi
}

// settle moves lz of ms (slot of g) into its entries: the values of
// earlier Steps without undo records (they are committed), the pending
// Step's through addIndexed, which records them.
func (o *reduceOp) settle(s *stepCtx, g *group, slot int, ms *multiset) {
	if len(ms.lz) == 0 {
		return
	}
	lz, cut := ms.lz, len(ms.lz)
	if ms.lzStamp == s.epoch {
		cut = ms.lzMark
	}
	ms.lz = lz[:cut]
	ms.settleLazy()
	ms.lzMark = 0
	for _, x := range lz[cut:] {
		v := repr.NewInt(x.v)
		o.lbuf = repr.AppendKey(o.lbuf[:0], v)
		o.addIndexed(s, g, slot, ms, o.lbuf, v, repr.Null, x.n)
	}
}

// settleLazy moves every value of lz into the entries, marking dirty
// (for the next run) the entries of values not yet logged. Every value
// must be committed: settle handles a pending Step's.
func (ms *multiset) settleLazy() {
	lz, logged := ms.lz, ms.lzLogged
	ms.lz, ms.lzLogged, ms.lzSorted = nil, 0, 0
	var kb [9]byte
	for i, x := range lz {
		key := repr.AppendKey(kb[:0], repr.NewInt(x.v))
		e := ms.lookup(key)
		if e == nil {
			e = newEntry(key, repr.NewInt(x.v), repr.Null, 0)
			ms.insert(e)
		}
		e.n += x.n
		ms.counted(e)
		if i >= logged && ms.rs != nil && !e.dirty {
			e.dirty = true
			ms.rs.pend = append(ms.rs.pend, e)
		}
	}
}

// lazyEnded forgets the pending Step's marks: on rollback lz loses the
// values the Step appended.
func (o *reduceOp) lazyEnded(rollback bool) {
	for i, ms := range o.lzTouched {
		if rollback {
			ms.lz = ms.lz[:min(ms.lzMark, len(ms.lz))]
			ms.lzLogged = min(ms.lzLogged, len(ms.lz))
			ms.lzSorted = min(ms.lzSorted, len(ms.lz))
		}
		ms.lzStamp, ms.lzMark = 0, 0
		o.lzTouched[i] = nil
	}
	o.lzTouched = o.lzTouched[:0]
}

// writeDiffRun logs lz[from:] of ms (slot of g) as a diff run.
func (o *reduceOp) writeDiffRun(s *stepCtx, g *group, slot int, ms *multiset, from int) {
	lz := ms.lz[from:]
	seq := ms.rs.newRun(len(lz))
	blob := o.rbuf[:0]
	for _, x := range lz {
		blob = binary.AppendVarint(binary.AppendVarint(blob, x.v), x.n)
	}
	o.rbuf = blob
	ms.lzLogged = len(ms.lz)
	o.logRun(s, g, slot, seq, diffRunTag, blob)
}

// restoreDiffRun adds a diff run's changes (blob) to the entries of ms and
// reports how many it held.
func (o *reduceOp) restoreDiffRun(ms *multiset, blob string) (int, error) {
	n := 0
	for len(blob) > 0 {
		v, k := binary.Varint([]byte(blob[:min(len(blob), binary.MaxVarintLen64)]))
		if k <= 0 {
			return 0, errCorrupt
		}
		blob = blob[k:]
		d, k := binary.Varint([]byte(blob[:min(len(blob), binary.MaxVarintLen64)]))
		if k <= 0 {
			return 0, errCorrupt
		}
		blob = blob[k:]
		o.ebuf = repr.AppendKey(o.ebuf[:0], repr.NewInt(v))
		e := ms.find(o.ebuf)
		switch {
		case e == nil && d != 0:
			ms.insert(newEntry(o.ebuf, repr.NewInt(v), repr.Null, d))
		case e == nil:
		case e.n+d == 0:
			e.n = 0
			ms.remove(e)
		default:
			e.n += d
			ms.counted(e)
		}
		n++
	}
	return n, nil
}

// compactLazy sorts lz and merges the copies of each value, once lz has
// doubled (plus lazyCompactMin) since the last time. It runs at
// FlushState, after the diff run: every value is logged and no Step is
// pending, so no mark moves. The store keeps its runs as written.
func (ms *multiset) compactLazy() {
	if len(ms.lz) < 2*ms.lzSorted+lazyCompactMin {
		return
	}
	slices.SortFunc(ms.lz, func(a, b lazyVal) int { return cmp.Compare(a.v, b.v) })
	out := ms.lz[:0]
	for _, x := range ms.lz {
		if n := len(out); n > 0 && out[n-1].v == x.v {
			out[n-1].n += x.n
			continue
		}
		out = append(out, x)
	}
	if len(out) < cap(out)/4 {
		out = slices.Clone(out)
	}
	ms.lz, ms.lzLogged, ms.lzSorted = out, len(out), len(out)
}
