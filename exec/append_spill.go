package exec

import (
	"encoding/binary"
	"unsafe"
)

// A spilled append-only join (appendJoin.sp) keeps its rows in the store,
// as of the last checkpoint, and in memory only the join keys it has read
// since (residency, spill_keys.go), as plain joins do: a key is resident (both
// sides' buckets of that key in memory, exactly as an in-memory
// appendJoin holds them) or not (its rows are the store's: tag 1 or 2,
// the join key, then an 8-byte sequence number). Every update makes its
// key resident before the probe reads it and marks it dirty, since it
// appends a row; a checkpoint's Flushed makes keys clean, and clean keys
// are evicted least recently used first past the cache bound (after each
// committed Step and after Flushed). The store plus the resident keys is
// always the whole state.
//
// Stored rows never change, so a key's store rows are exactly what a
// load reads back; the sequence numbers continue from the one logged
// under tag 0 (appendSeqKey), which sorts first, so a restore that stops
// early to spill still knows where they stand.

// appendKeyBytes estimates a resident key's fixed heap bytes (two buckets,
// their map entries, the residency record).
const appendKeyBytes = int64(2*unsafe.Sizeof(appendBucket{})+unsafe.Sizeof(jres{})) + 3*mapEntryOverhead

// appendSeqKey is the tag of the logged sequence number (8 bytes, big
// endian: the next row's), written by every Step that stores rows.
const appendSeqKey = 0

func (o *appendJoin) spillSize() (int64, bool) {
	if o.sp != nil || len(o.undo) > 0 || !o.seqLogged {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

// spillTo drops every stored row, reading them from r under prefix from
// then on. The store must hold exactly o's state (right after a
// checkpoint).
func (o *appendJoin) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if o.sp != nil || len(o.undo) > 0 || !o.seqLogged {
		return false
	}
	for i := range o.sides {
		o.sides[i].buckets = make(map[string]*appendBucket)
	}
	rs := newResidency(r, prefix, cache)
	o.sp = &rs
	return true
}

func (o *appendJoin) spilledStats() (bool, int64, int64, int64) { return o.sp.stats() }

func (o *appendJoin) flushedState() { o.sp.flushed(o) }

// restoreSized restores one logged record; a restore may stop and spill
// once the sequence number is known.
func (o *appendJoin) restoreSized(key, value []byte) (int64, bool, error) {
	if err := o.restore(key, value); err != nil {
		return 0, false, err
	}
	return int64(len(value)) + 2, o.seqLogged, nil
}

// forget drops what a partial restore loaded (it is about to spill).
func (o *appendJoin) forget() { o.undo = o.undo[:0] }

// loadKey loads both sides' stored rows of join key key, returning their
// estimated bytes.
func (o *appendJoin) loadKey(key []byte) (int64, error) {
	n := appendKeyBytes + 2*int64(len(key))
	for side := range 2 {
		var b *appendBucket
		err := o.sp.scanKey(byte(side+1), key, func(k, v []byte) error {
			if len(k) != 1+len(key)+8 { // tag, join key, sequence number
				return nil // a longer join key with this one as a prefix
			}
			if b == nil {
				b = &appendBucket{}
				o.sides[side].buckets[string(key)] = b
			}
			b.recs = binary.AppendUvarint(b.recs, uint64(len(v)))
			b.recs = append(b.recs, v...)
			n += int64(len(v)) + 2
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// evictKey drops both sides' rows of a clean resident key.
func (o *appendJoin) evictKey(key string) {
	delete(o.sides[0].buckets, key)
	delete(o.sides[1].buckets, key)
}
