package exec

import (
	"hash/maphash"
	"math/bits"
)

// entryTable holds a multiset's entries by key once it outgrows its sorted
// slice: an open-addressing hash table (linear probing, deletion by
// backward shift, so no tombstones) whose slots hold each entry's key hash
// beside its pointer.
//
// Why not a Go map: max(v) over a table looks up every row's value in its
// group's multiset, a thousand groups of a thousand entries each, so
// nearly every lookup misses the cache. A map keyed by the inline key
// reads a group's control word and then, on a hit, a slot on another
// cache line, and inserting a new value probes again; here a slot's hash
// is compared in the line the probe reads, an entry is loaded only when
// its hash matches (the caller loads it anyway for its count), and a new
// value goes into the free slot the failed lookup just read. Growth
// rehashes from the stored hashes without loading an entry, and the table
// grows by one slice of 16-byte slots (a map's growth allocated ~2.3× as
// many bytes for the same entries).
type entryTable struct {
	slots []eslot // len a power of two, at most 3/4 full; nil when empty
	n     int
}

// eslot is a slot of an entryTable: e nil when free.
type eslot struct {
	h uint64
	e *mentry
}

// entrySeed seeds the hash of entry keys (one per process, as Go maps
// are seeded per map: the table's iteration order is no promise).
var entrySeed = maphash.MakeSeed()

// newEntryTable returns a table sized for n entries.
func newEntryTable(n int) *entryTable {
	t := &entryTable{}
	t.resize(tableSize(n))
	return t
}

// tableSize is the number of slots that keeps n entries at most 3/4 full.
func tableSize(n int) int {
	return max(8, 1<<bits.Len(uint(n*4/3)))
}

// get returns the entry of key, or nil.
func (t *entryTable) get(key []byte) *mentry {
	if t.n == 0 {
		return nil
	}
	h := maphash.Bytes(entrySeed, key)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			return nil
		}
		if s.h == h && s.e.key == string(key) {
			return s.e
		}
	}
}

// put adds e, whose key must not be in t.
func (t *entryTable) put(e *mentry) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.resize(2 * len(t.slots))
	}
	t.place(eslot{h: maphash.String(entrySeed, e.key), e: e})
	t.n++
}

// place puts s into the first free slot from its hash's home.
func (t *entryTable) place(s eslot) {
	mask := uint64(len(t.slots) - 1)
	i := s.h & mask
	for t.slots[i].e != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// resize rehashes every entry into size slots.
func (t *entryTable) resize(size int) {
	old := t.slots
	t.slots = make([]eslot, size)
	for _, s := range old {
		if s.e != nil {
			t.place(s)
		}
	}
}

// del removes e, if it is in t, shifting back the entries of its probe
// run that would no longer be found past the freed slot.
func (t *entryTable) del(e *mentry) {
	if t.n == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	i := maphash.String(entrySeed, e.key) & mask
	for t.slots[i].e != e {
		if t.slots[i].e == nil {
			return
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.slots[j].e != nil; j = (j + 1) & mask {
		// The entry at j may move to i unless its home lies cyclically
		// in (i, j]: then it is found before reaching i's free slot.
		if home := t.slots[j].h & mask; (j-home)&mask < (j-i)&mask {
			continue
		}
		t.slots[i] = t.slots[j]
		i = j
	}
	t.slots[i] = eslot{}
	t.n--
}

// each calls fn with every entry, in no particular order; fn must not add
// or remove entries.
func (t *entryTable) each(fn func(*mentry)) {
	for _, s := range t.slots {
		if s.e != nil {
			fn(s.e)
		}
	}
}
