package exec

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unsafe"
)

// A spilled append-only join (appendJoin.sp) keeps its rows in the store,
// as of the last checkpoint, and in memory only the join keys it has read
// since, as joinSpill does for plain joins: a key is resident (both
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
type appendSpill struct {
	r StateReader
	// prefix is the node's state key prefix (relative to the dataflow).
	prefix []byte
	res    map[string]*jres
	// bytes estimates the resident keys' heap bytes; cache bounds them.
	bytes, cache     int64
	clock            uint64
	sbuf             []byte
	loads, evictions int64
}

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
	o.sp = &appendSpill{r: r, prefix: append([]byte(nil), prefix...), res: make(map[string]*jres), cache: cache}
	return true
}

func (o *appendJoin) spilledStats() (bool, int64, int64, int64) {
	if o.sp == nil {
		return false, 0, 0, 0
	}
	return true, o.sp.bytes, o.sp.loads, o.sp.evictions
}

func (o *appendJoin) flushedState() {
	if o.sp == nil {
		return
	}
	for _, jr := range o.sp.res {
		jr.dirty = false
	}
	o.sp.trim(o)
}

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

// ensure makes the key in o.kbuf resident, loading both sides' rows of it
// from the store if need be, and marks it dirty (the caller appends).
func (sp *appendSpill) ensure(o *appendJoin) error {
	jr := sp.res[string(o.kbuf)]
	if jr == nil {
		jr = &jres{bytes: appendKeyBytes + 2*int64(len(o.kbuf))}
		for side := range 2 {
			sp.sbuf = append(append(sp.sbuf[:0], sp.prefix...), byte(side+1))
			sp.sbuf = append(sp.sbuf, o.kbuf...)
			want := len(sp.sbuf) + 8
			var b *appendBucket
			err := sp.r.Scan(sp.sbuf, func(k, v []byte) error {
				if len(k) != want {
					return nil // a longer join key with this one as a prefix
				}
				if b == nil {
					b = &appendBucket{}
					o.sides[side].buckets[string(o.kbuf)] = b
				}
				b.recs = binary.AppendUvarint(b.recs, uint64(len(v)))
				b.recs = append(b.recs, v...)
				jr.bytes += int64(len(v)) + 2
				return nil
			})
			if err != nil {
				return err
			}
		}
		sp.res[string(o.kbuf)] = jr
		sp.bytes += jr.bytes
		sp.loads++
	}
	sp.clock++
	jr.used, jr.dirty = sp.clock, true
	return nil
}

// grew accounts a record of n bytes appended to the resident key in
// o.kbuf.
func (sp *appendSpill) grew(o *appendJoin, n int) {
	if jr := sp.res[string(o.kbuf)]; jr != nil {
		jr.bytes += int64(n)
		sp.bytes += int64(n)
	}
}

// trim evicts clean keys, least recently used first, when the resident
// bytes pass the cache bound, down to three quarters of it.
func (sp *appendSpill) trim(o *appendJoin) {
	if sp.bytes <= sp.cache {
		return
	}
	type cand struct {
		key  string
		used uint64
	}
	var clean []cand
	for k, jr := range sp.res {
		if !jr.dirty {
			clean = append(clean, cand{k, jr.used})
		}
	}
	slices.SortFunc(clean, func(a, b cand) int { return cmp.Compare(a.used, b.used) })
	target := sp.cache / 4 * 3
	for _, c := range clean {
		if sp.bytes <= target {
			break
		}
		delete(o.sides[0].buckets, c.key)
		delete(o.sides[1].buckets, c.key)
		sp.bytes -= sp.res[c.key].bytes
		delete(sp.res, c.key)
		sp.evictions++
	}
}
