package exec

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"

	"github.com/eddydb/eddy/repr"
	"github.com/google/btree"
)

// multiset is a counted set of values of one aggregate in one group,
// keyed by the values' key encoding. Ordered multisets (min, max,
// string_agg, numeric scales) answer order queries; unordered ones
// (DISTINCT counts and sums) need only the map.
//
// Up to smallSet entries are kept in a slice sorted by key, which answers
// every query (found by binary search, extrema at its ends) for a slice
// header and a pointer per entry: most groups' multisets (a min over a
// part's four suppliers, a numeric sum's display scales) stay this small,
// and a map and a B-tree cost hundreds of bytes more. Past smallSet a
// hash table (the map, entryTable) takes over for good (until the
// multiset is freed).
//
// In the map, order is kept lazily. While values only arrive (and no retraction
// removes the current extremum), min and max are cached as entries arrive
// and no B-tree exists: an append-only group pays one map insertion per
// value. The first time the cache cannot answer (the extremum lost its
// last copy, a Step was rolled back) or the full order is needed
// (string_agg), the B-tree is built from the map once and kept up to date
// from then on, so the extremum is found, and deleted, in O(log n)
// however the values arrive.
//
// Entries whose count drops to zero stay until the end of the Step (so
// rollback and the output diff can see them) and are then removed; readers
// skip entries whose count is not positive.
type multiset struct {
	// keys, instead of everything below, holds a key set: the keys of
	// the values a DISTINCT aggregate over an append-only input has seen
	// (no value, no count: ~45 instead of ~140 bytes per value).
	keys map[string]struct{}
	// small holds the entries in key order while m is nil.
	small []*mentry
	// m holds the entries once they outgrow small (multiset_table.go).
	m       *entryTable
	t       *btree.BTreeG[*mentry] // nil until order is needed
	ordered bool
	// lo and hi are the smallest and largest live entries (nil when none),
	// maintained while t is nil and stale is false; ext holds copies of
	// their keys (set with m: only a map's extrema are cached).
	lo, hi *mentry
	ext    *extremaKeys
	stale  bool
	// rs is the multiset's runs, when its entries are logged in runs
	// (reduce_runs.go).
	rs *runState
	// lz holds a min or max's integer values not yet in the entries,
	// lz[:lzLogged] of them logged; lzMark is its length before the
	// pending Step, if that Step (lzStamp) appended (multiset_lazy.go).
	lz                         []lazyVal
	lzLogged, lzMark, lzSorted int
	lzStamp                    uint64
}

// extremaKeys holds the keys of a multiset's cached extrema, copied into
// loKb and hiKb when short, so that counted compares a new value with
// them without loading the extrema's entries: max(v) over a table
// compares every row's value, and the extrema of a thousand groups do not
// stay in the cache between their rows. It is allocated with the map
// (which costs hundreds of bytes more), so small multisets and key sets
// do not carry it.
//
// loVal and hiVal are the extrema's values, so that a group's output row
// (min or max once per touched group) does not load the entries either.
type extremaKeys struct {
	lo, hi       string
	loKb, hiKb   [inlineKey]byte
	loVal, hiVal repr.Datum
}

// setLo makes e the cached smallest live entry.
func (ms *multiset) setLo(e *mentry) {
	ms.lo, ms.ext.lo, ms.ext.loVal = e, inlineCopy(&ms.ext.loKb, e), valOf(e)
}

// setHi makes e the cached largest live entry.
func (ms *multiset) setHi(e *mentry) {
	ms.hi, ms.ext.hi, ms.ext.hiVal = e, inlineCopy(&ms.ext.hiKb, e), valOf(e)
}

// valOf returns e's value, NULL for nil.
func valOf(e *mentry) repr.Datum {
	if e == nil {
		return repr.Null
	}
	return e.val
}

// cached reports whether the extrema of ms are cached (lo, hi and ext).
func (ms *multiset) cached() bool { return ms.m != nil && ms.t == nil && !ms.stale }

// minVal is min's value (ok false when none), from the cache if it can.
func (ms *multiset) minVal() (repr.Datum, bool) {
	if ms.cached() {
		return ms.ext.loVal, ms.lo != nil
	}
	return entryVal(ms.min())
}

// maxVal is max's value (ok false when none), from the cache if it can.
func (ms *multiset) maxVal() (repr.Datum, bool) {
	if ms.cached() {
		return ms.ext.hiVal, ms.hi != nil
	}
	return entryVal(ms.max())
}

// inlineCopy returns e's key, copied into kb when it fits (nil e: "").
func inlineCopy(kb *[inlineKey]byte, e *mentry) string {
	if e == nil || len(e.key) > inlineKey || len(e.key) == 0 {
		if e == nil {
			return ""
		}
		return e.key
	}
	n := copy(kb[:], e.key)
	return unsafe.String(&kb[0], n)
}

// mentry is one distinct value (and, for string_agg, its separator: nil
// when NULL, as for every other aggregate, so that the multisets of
// DISTINCT counts, which hold millions of entries in q16, do not carry a
// 48-byte Datum each for it).
//
// A key of up to inlineKey bytes (an integer's is 9, a date's 5) lives in
// the entry itself (kb, which key then points into), so that a new value
// costs one allocation, not two: max(v) over a table's bigint column keeps
// an entry per row.
type mentry struct {
	key   string
	val   repr.Datum
	sep   *repr.Datum
	n     int64
	stamp uint64
	in    bool
	// dirty: e is in its multiset's runState.pend; legacy: e was
	// restored from a key of its own (reduce_runs.go).
	dirty, legacy bool
	kb            [inlineKey]byte
}

// inlineKey is the longest key an entry holds inline.
const inlineKey = 16

// newEntry returns an entry for a copy of key with value val and
// separator sep.
func newEntry(key []byte, val, sep repr.Datum, n int64) *mentry {
	e := &mentry{val: val, n: n}
	if len(key) > 0 && len(key) <= inlineKey {
		copy(e.kb[:], key)
		e.key = unsafe.String(&e.kb[0], len(key))
	} else {
		e.key = string(key)
	}
	if !sep.IsNull() {
		e.sep = heapDatum(sep)
	}
	return e
}

// heapDatum returns a pointer to a copy of d. It is a function of its own
// so that only a separator is moved to the heap: taking the address of
// newEntry's parameter would allocate it for every entry, separator or not.
//
//go:noinline
func heapDatum(d repr.Datum) *repr.Datum { return &d }

// separator returns e's separator (NULL if none).
func (e *mentry) separator() repr.Datum {
	if e.sep == nil {
		return repr.Null
	}
	return *e.sep
}

func lessEntry(a, b *mentry) bool { return a.key < b.key }

// newKeySet returns an empty key set.
func newKeySet() *multiset { return &multiset{keys: make(map[string]struct{})} }

func newMultiset(ordered bool) *multiset {
	return &multiset{ordered: ordered}
}

// smallSet is the number of entries a multiset keeps in its sorted slice
// (a variable so that a test can make every multiset a map).
var smallSet = 16

// search returns the position of key in the sorted slice and whether an
// entry has it.
func (ms *multiset) search(key []byte) (int, bool) {
	lo, hi := 0, len(ms.small)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ms.small[m].key < string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ms.small) && ms.small[lo].key == string(key)
}

// position returns the position of e in the sorted slice, or where it
// belongs, and whether it is there.
func (ms *multiset) position(e *mentry) (int, bool) {
	i, _ := slices.BinarySearchFunc(ms.small, e, func(x, y *mentry) int { return strings.Compare(x.key, y.key) })
	return i, i < len(ms.small) && ms.small[i] == e
}

// settled settles lz (multiset_lazy.go), so that the entries are the
// multiset's content.
func (ms *multiset) settled() {
	if len(ms.lz) > 0 {
		ms.settleLazy()
	}
}

// find returns the entry for key, or nil.
func (ms *multiset) find(key []byte) *mentry {
	ms.settled()
	return ms.lookup(key)
}

// lookup is find without settling lz: the entry for key in the index.
func (ms *multiset) lookup(key []byte) *mentry {
	if ms.m == nil {
		if i, ok := ms.search(key); ok {
			return ms.small[i]
		}
		return nil
	}
	return ms.m.get(key)
}

// size returns the number of entries (0 for a key set).
func (ms *multiset) size() int {
	ms.settled()
	if ms.m == nil {
		return len(ms.small)
	}
	return ms.m.n
}

// all iterates over the entries in no particular order; fn must not
// insert or remove entries.
func (ms *multiset) all(fn func(*mentry)) {
	ms.settled()
	ms.indexed(fn)
}

// indexed is all without settling lz: the entries but not lz's values.
func (ms *multiset) indexed(fn func(*mentry)) {
	for _, e := range ms.small {
		fn(e)
	}
	if ms.m != nil {
		ms.m.each(fn)
	}
}

// insert adds e (with any count; see counted), whose key must not be in ms.
func (ms *multiset) insert(e *mentry) {
	e.in = true
	switch i, _ := ms.position(e); {
	case ms.m != nil:
		ms.m.put(e)
	case len(ms.small) < smallSet:
		ms.small = slices.Insert(ms.small, i, e)
		return
	default:
		ms.toMap()
		ms.m.put(e)
	}
	if ms.t != nil {
		ms.t.ReplaceOrInsert(e)
	}
	ms.counted(e)
}

// toMap moves the sorted slice into the map, caching its live extrema
// (the slice's first and last live entries), so that a multiset that
// outgrows smallSet keeps answering min and max without a B-tree.
func (ms *multiset) toMap() {
	ms.m = newEntryTable(len(ms.small) + 1)
	ms.ext = &extremaKeys{}
	var lo, hi *mentry
	for _, x := range ms.small {
		ms.m.put(x)
		if x.n > 0 {
			lo = cmp.Or(lo, x)
			hi = x
		}
	}
	ms.setLo(lo)
	ms.setHi(hi)
	ms.small, ms.stale = nil, false
}

func (ms *multiset) remove(e *mentry) {
	e.in = false
	if ms.m == nil {
		if i, ok := ms.position(e); ok {
			ms.small = slices.Delete(ms.small, i, i+1)
		}
		return
	}
	ms.m.del(e)
	if ms.t != nil {
		ms.t.Delete(e)
	}
	if e == ms.lo || e == ms.hi {
		ms.stale = true
	}
}

// counted must be called after e's count changed: it keeps the cached
// extrema, or marks them stale when a cached extremum lost its last copy.
func (ms *multiset) counted(e *mentry) {
	if !ms.ordered || ms.m == nil || ms.t != nil || ms.stale {
		return
	}
	switch {
	case e.n > 0:
		if ms.lo == nil || e.key < ms.ext.lo {
			ms.setLo(e)
		}
		if ms.hi == nil || e.key > ms.ext.hi {
			ms.setHi(e)
		}
	case e == ms.lo || e == ms.hi:
		ms.stale = true
	}
}

// invalidate drops the cached extrema (after counts were restored behind
// counted's back, as by a rollback).
func (ms *multiset) invalidate() { ms.stale = true }

// tree returns the B-tree of all entries, building it on first use.
func (ms *multiset) tree() *btree.BTreeG[*mentry] {
	if ms.t == nil {
		ms.settled()
		ms.t = btree.NewG(16, lessEntry)
		ms.all(func(e *mentry) { ms.t.ReplaceOrInsert(e) })
		ms.setLo(nil)
		ms.setHi(nil)
	}
	return ms.t
}

// ascend calls fn with every entry in key order until fn returns false.
func (ms *multiset) ascend(fn func(*mentry) bool) {
	if ms.m != nil {
		ms.tree().Ascend(fn)
		return
	}
	for _, e := range ms.small {
		if !fn(e) {
			return
		}
	}
}

// min returns the smallest live entry, or nil.
func (ms *multiset) min() *mentry {
	if ms.m == nil {
		for _, e := range ms.small {
			if e.n > 0 {
				return e
			}
		}
		return nil
	}
	if ms.t == nil && !ms.stale {
		return ms.lo
	}
	t := ms.tree()
	if e, ok := t.Min(); !ok || e.n > 0 {
		return e
	}
	var found *mentry
	t.Ascend(func(e *mentry) bool {
		if e.n > 0 {
			found = e
		}
		return found == nil
	})
	return found
}

// max returns the largest live entry, or nil.
func (ms *multiset) max() *mentry {
	if ms.m == nil {
		for i := len(ms.small) - 1; i >= 0; i-- {
			if e := ms.small[i]; e.n > 0 {
				return e
			}
		}
		return nil
	}
	if ms.t == nil && !ms.stale {
		return ms.hi
	}
	t := ms.tree()
	if e, ok := t.Max(); !ok || e.n > 0 {
		return e
	}
	var found *mentry
	t.Descend(func(e *mentry) bool {
		if e.n > 0 {
			found = e
		}
		return found == nil
	})
	return found
}
