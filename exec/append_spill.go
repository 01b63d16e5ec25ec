package exec

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/eddydb/eddy/storage"
)

// A spilled append-only join (appendJoin.sp) keeps its rows in the store,
// as of the last checkpoint, and in memory only what it has read or
// written since. Residency (spill_keys.go) is by side and join key (the
// tagged key: tag 1 or 2, then the join key): a resident side key holds
// that side's whole bucket of the key, exactly as an in-memory appendJoin
// holds it; the store's rows of a side key are under its tag, the join
// key, then an 8-byte sequence number.
//
// A probe reads only the other side's rows, and a stored row is read only
// by the other side's probes, so an update makes resident only the other
// side's key (clean: it reads it). Its own row goes to its side's bucket:
// appended and marked dirty if that side key is resident, else appended
// to a tail, a bucket holding only the rows stored since the last
// checkpoint (not resident, not in the store yet). A later load of that
// side key (a probe from the other side) puts the store's rows in front of
// the tail and makes it resident and dirty; a checkpoint's Flushed drops
// the tails (the store now has their rows) and makes resident keys clean;
// clean keys are evicted least recently used first past the cache bound
// (after each committed Step and after Flushed). The store plus the
// resident keys and the tails is always the whole state. So an input
// whose keys the other side rarely matches (q20's bids of auctions of
// other categories) never reads its own rows back.
//
// Each side keeps a resident key filter (storage.KeyFilter, about 2 bytes
// per join key) of the join keys the store may hold rows of: built from
// the state when it spills, added to whenever a bucket is created. A
// probe of a side key the filter rules out reads nothing and makes
// nothing resident (its tail, if any, is all its rows), so the probes
// that find nothing (q20's bids of auctions of other categories, and
// auctions probing for bids not yet made) cost a hash, not a seek.
//
// Stored rows never change, so a key's store rows are exactly what a
// load reads back; the sequence numbers continue from the one logged
// under tag 0 (appendSeqKey), which sorts first, so a restore that stops
// early to spill still knows where they stand.

// appendKeyBytes estimates a resident side key's fixed heap bytes (a
// bucket, its map entry, the residency record).
const appendKeyBytes = int64(unsafe.Sizeof(appendBucket{})+unsafe.Sizeof(jres{})) + 2*mapEntryOverhead

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
	rs := newResidency(r, prefix, cache)
	o.filters = o.keyFilters(&rs)
	for i := range o.sides {
		o.sides[i].buckets = make(map[string]*appendBucket)
	}
	o.sp, o.tails, o.tailBytes, o.partial = &rs, nil, 0, false
	return true
}

func (o *appendJoin) spilledStats() (bool, int64, int64, int64) {
	sp, b, l, e := o.sp.stats()
	return sp, b + o.tailBytes + o.filters[0].Bytes() + o.filters[1].Bytes(), l, e
}

// flushedState drops the tails that did not become resident (the
// checkpoint wrote their rows), then lets the residency evict.
func (o *appendJoin) flushedState() {
	if o.sp == nil {
		return
	}
	for _, t := range o.tails {
		if !o.sp.resident(t) {
			delete(o.sides[t[0]-1].buckets, t[1:])
		}
	}
	o.tails, o.tailBytes = o.tails[:0], 0
	o.sp.flushed(o)
}

// restoreSized restores one logged record; a restore may stop and spill
// once the sequence number is known.
func (o *appendJoin) restoreSized(key, value []byte) (int64, bool, error) {
	if err := o.restore(key, value); err != nil {
		return 0, false, err
	}
	return int64(len(value)) + 2, o.seqLogged, nil
}

// forget drops what a partial restore loaded (it is about to spill),
// noting that the rows in memory are only part of the state.
func (o *appendJoin) forget() { o.undo, o.partial = o.undo[:0], true }

// loadKey loads the stored rows of side key tkey (tag, join key) in front
// of its tail, if any, returning their estimated bytes.
func (o *appendJoin) loadKey(tkey []byte) (int64, error) {
	side, key := int(tkey[0]-1), tkey[1:]
	n := appendKeyBytes + 2*int64(len(key))
	var recs []byte
	err := o.sp.scanKey(tkey[0], key, func(k, v []byte) error {
		if len(k) != 1+len(key)+8 { // tag, join key, sequence number
			return nil // a longer join key with this one as a prefix
		}
		recs = binary.AppendUvarint(recs, uint64(len(v)))
		recs = append(recs, v...)
		n += int64(len(v)) + 2
		return nil
	})
	if err != nil {
		return 0, err
	}
	b := o.sides[side].buckets[string(key)]
	if b == nil {
		if len(recs) > 0 {
			o.sides[side].buckets[string(key)] = &appendBucket{recs: recs}
		}
		return n, nil
	}
	// A tail: its rows follow the store's, and the pending Step's undo
	// records of it shift by as much (one that created it now truncates
	// to the store's rows).
	o.tailBytes -= int64(len(b.recs))
	n += int64(len(b.recs))
	b.recs = append(recs, b.recs...)
	for i := range o.undo {
		if u := &o.undo[i]; u.b == b {
			u.n = max(u.n, 0) + len(recs)
		}
	}
	return n, nil
}

// evictKey drops the bucket of clean resident side key tkey.
func (o *appendJoin) evictKey(tkey string) {
	delete(o.sides[tkey[0]-1].buckets, tkey[1:])
}

// sideKey returns side's tagged key of the join key in o.kbuf (in o.tbuf).
func (o *appendJoin) sideKey(side int) []byte {
	o.tbuf = append(append(o.tbuf[:0], byte(side+1)), o.kbuf...)
	return o.tbuf
}

// readSide makes side's key of the join key in o.kbuf resident for a
// probe, loading it if need be (dirty if it held a tail: rows the store
// does not have yet), unless side's key filter rules out stored rows of
// it: then the bucket in memory (a tail, or none) holds all its rows and
// the key stays as it is, read from nowhere.
func (o *appendJoin) readSide(side int) error {
	tk := o.sideKey(side)
	if _, ok := o.sp.res[string(tk)]; ok {
		o.sp.touch(tk, false)
		return nil
	}
	if !o.filters[side].MayContain(o.kbuf) {
		return nil
	}
	_, tail := o.sides[side].buckets[string(o.kbuf)]
	return o.sp.use(o, tk, tail)
}

// grewSide accounts n bytes appended to side's bucket of the join key in
// o.kbuf: a resident key's (now dirty), or a tail's.
func (o *appendJoin) grewSide(side int, n int64) {
	tk := o.sideKey(side)
	if _, ok := o.sp.res[string(tk)]; ok {
		o.sp.grew(tk, n)
		o.sp.touch(tk, true)
		return
	}
	o.tailBytes += n
}

// newBucket records the bucket just created for side's key of the join
// key in o.kbuf: in side's key filter (the next checkpoint stores its
// rows) unless the filter has it already (a key whose tails come and go
// with every checkpoint, a hot auction's bids, would fill it with
// copies), and as a tail unless that key is resident.
func (o *appendJoin) newBucket(side int) {
	if f := o.filters[side]; f != nil && !f.MayContain(o.kbuf) {
		f.Add(o.kbuf)
	}
	tk := o.sideKey(side)
	if _, ok := o.sp.res[string(tk)]; !ok {
		o.tails = append(o.tails, string(tk))
	}
}

// keyFilters returns, per side, a key filter holding every join key of
// the state: from the buckets if they hold all of it, else (a restore
// that stopped early, o.partial) from the store, through rs; nil filters,
// which rule nothing out, if that scan fails.
func (o *appendJoin) keyFilters(rs *residency) [2]*storage.KeyFilter {
	var fs [2]*storage.KeyFilter
	for side := range fs {
		if !o.partial {
			fs[side] = storage.NewKeyFilter(2 * len(o.sides[side].buckets))
			for k := range o.sides[side].buckets {
				fs[side].Add([]byte(k))
			}
			continue
		}
		f, last, seen := storage.NewKeyFilter(0), []byte(nil), false
		err := rs.scanKey(byte(side+1), nil, func(k, _ []byte) error {
			if len(k) < 9 {
				return errCorrupt // not tag, join key, sequence number
			}
			if jk := k[1 : len(k)-8]; !seen || !bytes.Equal(jk, last) {
				f.Add(jk)
				last, seen = append(last[:0], jk...), true
			}
			return nil
		})
		if err != nil {
			return [2]*storage.KeyFilter{}
		}
		fs[side] = f
	}
	return fs
}
