package storage

import (
	"hash/maphash"
	"unsafe"
)

// KeyFilter is a resident filter of the keys a store may hold: a
// blocked Bloom filter (Putze, Sanders and Singler, "Cache-, Hash- and
// Space-Efficient Bloom Filters", 2007; the split-block form of Impala and
// Parquet) over 64-bit hashes of the encoded keys. A key it rejects is
// certainly absent from the store. A spilled collection keeps one of its
// keys, so inserting a new key (every row of an append-only view) needs no
// store read; exec's spilled append-only joins keep one per side of their
// join keys, so a probe of a key the other side never stored reads
// nothing. A key it accepts is read as before (false positives cost a
// read, never a wrong answer).
//
// Invariant (kept by Collection, spill.go, and by every other owner): every
// key under the owner's prefix in the store, and every live key of its
// overlay, has been added. Keys are added and never removed: a deleted or
// rolled-back key stays a false positive until the filter is rebuilt from
// the store (a collection's Flushed, once the adds outnumber the live
// keys, see needsRebuild). The filter lives only in memory: a restart
// rebuilds it from the same scan that loads the collection (LoadSpillable),
// so a crash can never leave it missing a key the store has.
//
// It grows by layers, so a growing collection never stops to rescan the
// store: when the newest layer has taken its capacity, a new one twice as
// large as all the others together is added, and a lookup asks each
// layer (a handful: the total capacity triples each time). Each layer is
// sized at filterBits bits per key, a false-positive rate near 0.13% at
// capacity; the layers' rates add up, to under 1% for a filter that grew
// from 4096 keys to 10 million.
type KeyFilter struct {
	layers []filterLayer
	// adds counts the keys added since the filter was built.
	adds int
}

// filterLayer is one Bloom filter: blocks of 256 bits, one per hash (its
// high bits pick the block), in which the hash sets one bit in each of the
// eight 32-bit words.
type filterLayer struct {
	blocks   [][8]uint32
	n, limit int // keys added, and the capacity at filterBits per key
}

// filterBits is the filter's bits per key at capacity.
const filterBits = 16

// minFilterKeys is the smallest layer's capacity (a variable for tests,
// which shrink it to grow and rebuild filters all the time).
var minFilterKeys = 4096

// filterSalts are odd multipliers that spread a hash's low 32 bits to one
// bit position per block word.
var filterSalts = [8]uint32{
	0x9e3779b1, 0x85ebca77, 0xc2b2ae3d, 0x27d4eb2f,
	0x165667b1, 0xd3a2646d, 0xfd7046c5, 0xb55a4f09,
}

// filterSeed seeds the key hashes. A filter lives only in the process
// that built it, so a per-process seed is enough.
var filterSeed = maphash.MakeSeed()

// filterHash returns the hash under which key is added and looked up.
func filterHash(key []byte) uint64 { return maphash.Bytes(filterSeed, key) }

// NewKeyFilter returns an empty filter with room for n keys (at least
// minFilterKeys) in its first layer.
func NewKeyFilter(n int) *KeyFilter {
	f := &KeyFilter{}
	f.grow(max(n, minFilterKeys))
	return f
}

// grow adds a layer with capacity for n keys.
func (f *KeyFilter) grow(n int) {
	blocks := (n*filterBits + 255) / 256
	f.layers = append(f.layers, filterLayer{blocks: make([][8]uint32, blocks), limit: n})
}

// Add records key as possibly present.
func (f *KeyFilter) Add(key []byte) {
	l := &f.layers[len(f.layers)-1]
	if l.n >= l.limit {
		total := 0
		for _, l := range f.layers {
			total += l.limit
		}
		f.grow(2 * total)
		l = &f.layers[len(f.layers)-1]
	}
	l.set(filterHash(key))
	l.n++
	f.adds++
}

// MayContain reports whether key may have been added; false means it
// certainly was not. A nil filter (a snapshot's, which must not share the
// filter its collection keeps adding to) may contain every key.
func (f *KeyFilter) MayContain(key []byte) bool {
	if f == nil {
		return true
	}
	h := filterHash(key)
	for i := len(f.layers) - 1; i >= 0; i-- {
		if f.layers[i].has(h) {
			return true
		}
	}
	return false
}

// needsRebuild reports whether the filter has taken so many more keys
// than the n the collection holds (deleted ones, rolled-back ones) that
// rebuilding it from the store would shrink it by half or more.
func (f *KeyFilter) needsRebuild(n int) bool {
	return f.adds > 2*max(n, minFilterKeys)
}

// Bytes returns the filter's heap bytes.
func (f *KeyFilter) Bytes() int64 {
	if f == nil {
		return 0
	}
	var total int64
	for _, l := range f.layers {
		total += int64(len(l.blocks)) * int64(unsafe.Sizeof(l.blocks[0]))
	}
	return total
}

// block returns the block that hash h uses: its high 32 bits scaled to
// the number of blocks (Lemire's multiply-shift range reduction).
func (l *filterLayer) block(h uint64) *[8]uint32 {
	return &l.blocks[(h>>32)*uint64(len(l.blocks))>>32]
}

func (l *filterLayer) set(h uint64) {
	b := l.block(h)
	for i, s := range filterSalts {
		b[i] |= 1 << ((uint32(h) * s) >> 27)
	}
}

func (l *filterLayer) has(h uint64) bool {
	b := l.block(h)
	for i, s := range filterSalts {
		if b[i]&(1<<((uint32(h)*s)>>27)) == 0 {
			return false
		}
	}
	return true
}
