package exec

import (
	"bytes"
	"hash/maphash"
	"unsafe"
)

// keyTab interns the join keys of a spilled side's close index
// (nameHeap) without a pointer per key or per name: the keys' bytes sit
// end to end in one slab, a key's id indexes spans, and an
// open-addressing table of ids (slots) finds a key's id by its hash. The
// collector scans none of it (no pointers in spans or slots, one in
// the slab), where a string per name made every cycle scan every open
// row's name (2M names in q7 under 256 MiB).
//
// The slab is append-only: bytes once written never change, so a string
// viewing them (str) stays valid for as long as it is held, across
// growth and across a rebuild (which starts a new slab and leaves the
// old one to the collector). Ids are stable until rebuild, which only
// the index's owner calls, between Steps.
type keyTab struct {
	seed  maphash.Seed
	slab  []byte
	spans []keySpan
	slots []uint32 // id+1 of the key hashed here; 0 empty; power-of-two length
}

// keySpan locates a key in the slab.
type keySpan struct{ off, n uint32 }

// intern returns key's id, adding key if it is new.
func (t *keyTab) intern(key string) uint32 {
	if len(t.slots) == 0 {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint32, 64)
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, key) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return t.insert(i, key)
		}
		if sp := t.spans[s-1]; string(t.slab[sp.off:sp.off+sp.n]) == key {
			return s - 1
		}
	}
}

// find returns key's id, false if t does not hold it.
func (t *keyTab) find(key string) (uint32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, key) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if sp := t.spans[s-1]; string(t.slab[sp.off:sp.off+sp.n]) == key {
			return s - 1, true
		}
	}
}

// insert adds key, absent, in empty slot i.
func (t *keyTab) insert(i uint64, key string) uint32 {
	id := uint32(len(t.spans))
	t.spans = append(t.spans, keySpan{uint32(len(t.slab)), uint32(len(key))})
	t.slab = append(t.slab, key...)
	t.slots[i] = id + 1
	if 4*len(t.spans) > 3*len(t.slots) {
		t.grow()
	}
	return id
}

// grow doubles the slots, rehashing every key.
func (t *keyTab) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id := range t.spans {
		i := maphash.Bytes(t.seed, t.bytes(uint32(id))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(id) + 1
	}
}

// bytes returns key id's bytes (not to be modified).
func (t *keyTab) bytes(id uint32) []byte {
	sp := t.spans[id]
	return t.slab[sp.off : sp.off+sp.n : sp.off+sp.n]
}

// str returns key id as a string viewing the slab (valid for as long as
// it is held: the slab's bytes never change).
func (t *keyTab) str(id uint32) string {
	b := t.bytes(id)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// compare orders keys a and b as their bytes.
func (t *keyTab) compare(a, b uint32) int {
	if a == b {
		return 0
	}
	return bytes.Compare(t.bytes(a), t.bytes(b))
}

// len is the number of keys t holds.
func (t *keyTab) len() int { return len(t.spans) }
