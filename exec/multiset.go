package exec

import (
	"github.com/eddydb/eddy/sql/types"
	"github.com/google/btree"
)

// multiset is a counted set of values of one aggregate in one group,
// keyed by the values' key encoding. Ordered multisets (min, max,
// string_agg, numeric scales) also keep their entries in a B-tree, so the
// extremum is found, and deleted, in O(log n) however the values arrive;
// unordered ones (DISTINCT counts and sums) need only the map.
//
// Entries whose count drops to zero stay until the end of the Step (so
// rollback and the output diff can see them) and are then removed; readers
// skip entries whose count is not positive.
type multiset struct {
	m map[string]*mentry
	t *btree.BTreeG[*mentry]
}

// mentry is one distinct value (and, for string_agg, its separator).
type mentry struct {
	key   string
	val   types.Datum
	sep   types.Datum
	n     int64
	stamp uint64
	in    bool
}

func lessEntry(a, b *mentry) bool { return a.key < b.key }

func newMultiset(ordered bool) *multiset {
	ms := &multiset{m: make(map[string]*mentry)}
	if ordered {
		ms.t = btree.NewG(16, lessEntry)
	}
	return ms
}

// find returns the entry for key, or nil.
func (ms *multiset) find(key []byte) *mentry { return ms.m[string(key)] }

func (ms *multiset) insert(e *mentry) {
	e.in = true
	ms.m[e.key] = e
	if ms.t != nil {
		ms.t.ReplaceOrInsert(e)
	}
}

func (ms *multiset) remove(e *mentry) {
	e.in = false
	delete(ms.m, e.key)
	if ms.t != nil {
		ms.t.Delete(e)
	}
}

// min returns the smallest live entry, or nil.
func (ms *multiset) min() *mentry {
	if e, ok := ms.t.Min(); !ok || e.n > 0 {
		return e
	}
	var found *mentry
	ms.t.Ascend(func(e *mentry) bool {
		if e.n > 0 {
			found = e
		}
		return found == nil
	})
	return found
}

// max returns the largest live entry, or nil.
func (ms *multiset) max() *mentry {
	if e, ok := ms.t.Max(); !ok || e.n > 0 {
		return e
	}
	var found *mentry
	ms.t.Descend(func(e *mentry) bool {
		if e.n > 0 {
			found = e
		}
		return found == nil
	})
	return found
}

// ascend calls fn with every live entry in key order.
func (ms *multiset) ascend(fn func(e *mentry)) {
	ms.t.Ascend(func(e *mentry) bool {
		if e.n > 0 {
			fn(e)
		}
		return true
	})
}
