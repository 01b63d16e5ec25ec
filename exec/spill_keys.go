package exec

import (
	"cmp"
	"slices"
)

// residency is the bookkeeping every spilled operator shares (the join's
// join keys, the reduce's groups): which keys of its state are resident
// in memory, whether each is dirty, and how recently each was used. A key
// is resident (its state held in memory exactly as an operator that never
// spilled would hold it) or not (its state is the store's, under the
// node's prefix, as of the last checkpoint). A Step makes a key resident
// (use) before anything reads it and marks it dirty when it may change
// it; dirty keys stay until Flushed, which the engine calls right after a
// checkpoint has written them; clean keys are a cache of the store,
// evicted least recently used first past the cache bound. So the store
// plus the resident keys is always the whole state, and no key is ever
// both stale in memory and read from the store. A key whose state a Step
// deleted stays resident (and empty) until the checkpoint deletes it from
// the store too.
//
// The store is read through a StateReader during Steps. That is I/O in
// an operator, but a deterministic one: the store holds what the Steps
// logged up to the checkpoint, whatever the timing.
type residency struct {
	r StateReader
	// prefix is the node's state key prefix (relative to the dataflow).
	prefix []byte
	res    map[string]*jres
	// bytes estimates the resident keys' heap bytes; cache bounds them
	// (clean keys past it are evicted).
	bytes, cache int64
	clock        uint64
	sbuf         []byte
	// loads and evictions count keys read from the store and evicted.
	loads, evictions int64
}

// keyStore is an operator whose state spills by key: it loads a key's
// state from the store, returning its estimated heap bytes, and drops a
// clean resident key's state.
type keyStore interface {
	loadKey(key []byte) (int64, error)
	evictKey(key string)
}

// jres is one resident key.
type jres struct {
	bytes int64
	used  uint64
	dirty bool
}

// newResidency returns the bookkeeping of an operator spilled to the
// store read through r under prefix, caching up to cache bytes.
func newResidency(r StateReader, prefix []byte, cache int64) residency {
	return residency{r: r, prefix: append([]byte(nil), prefix...), res: make(map[string]*jres), cache: cache}
}

// use makes key resident, loading it through o if need be, and marks it
// dirty if the Step is about to change it (not when it only reads it).
func (rs *residency) use(o keyStore, key []byte, dirty bool) error {
	jr := rs.res[string(key)]
	if jr == nil {
		n, err := o.loadKey(key)
		if err != nil {
			return err
		}
		jr = &jres{bytes: n}
		rs.res[string(key)] = jr
		rs.bytes += n
		rs.loads++
	}
	rs.touch(key, dirty)
	return nil
}

// resident reports whether key is resident.
func (rs *residency) resident(key string) bool { return rs.res[key] != nil }

// markAbsent makes key resident, dirty, as absent without loading it: the
// pending Step deletes its state from the store unread.
func (rs *residency) markAbsent(key []byte) {
	n := int64(len(key)) + bucketBytes
	rs.clock++
	rs.res[string(key)] = &jres{bytes: n, used: rs.clock, dirty: true}
	rs.bytes += n
}

// unmark forgets resident key key (a rolled-back markAbsent: the store
// holds its state again).
func (rs *residency) unmark(key string) {
	if jr := rs.res[key]; jr != nil {
		rs.bytes -= jr.bytes
		delete(rs.res, key)
	}
}

// touch marks resident key key used now, and dirty if dirty (it does
// nothing if key is not resident).
func (rs *residency) touch(key []byte, dirty bool) {
	if jr := rs.res[string(key)]; jr != nil {
		rs.clock++
		jr.used, jr.dirty = rs.clock, jr.dirty || dirty
	}
}

// stats reports the spiller's spilledStats: spilled, the resident bytes,
// and the keys loaded and evicted so far (nil: in memory).
func (rs *residency) stats() (bool, int64, int64, int64) {
	if rs == nil {
		return false, 0, 0, 0
	}
	return true, rs.bytes, rs.loads, rs.evictions
}

// grew accounts n more bytes to resident key key.
func (rs *residency) grew(key []byte, n int64) {
	if jr := rs.res[string(key)]; jr != nil {
		jr.bytes += n
		rs.bytes += n
	}
}

// flushed marks every resident key clean (a checkpoint has written them
// all) and evicts past the cache; it does nothing on a nil residency (an
// operator that has not spilled).
func (rs *residency) flushed(o keyStore) {
	if rs != nil {
		rs.markClean()
		rs.trim(o)
	}
}

// markClean marks every resident key clean: a checkpoint has written
// them all.
func (rs *residency) markClean() {
	for _, jr := range rs.res {
		jr.dirty = false
	}
}

// trim evicts clean keys, least recently used first, when the resident
// bytes pass the cache bound, down to three quarters of it (so that a
// Step's few new keys do not evict at every Step). It must not run while
// a Step is pending.
func (rs *residency) trim(o keyStore) {
	if rs.bytes <= rs.cache {
		return
	}
	type cand struct {
		key  string
		used uint64
	}
	var clean []cand
	for k, jr := range rs.res {
		if !jr.dirty {
			clean = append(clean, cand{k, jr.used})
		}
	}
	slices.SortFunc(clean, func(a, b cand) int { return cmp.Compare(a.used, b.used) })
	target := rs.cache / 4 * 3
	for _, c := range clean {
		if rs.bytes <= target {
			break
		}
		o.evictKey(c.key)
		rs.bytes -= rs.res[c.key].bytes
		delete(rs.res, c.key)
		rs.evictions++
	}
}

// scanKey appends tag and key to the node's prefix in rs.sbuf and scans
// the store under it, handing fn each key relative to the node.
func (rs *residency) scanKey(tag byte, key []byte, fn func(rel, value []byte) error) error {
	rs.sbuf = append(append(append(rs.sbuf[:0], rs.prefix...), tag), key...)
	return rs.scanBuf(fn)
}

// scanFrom scans the store under the node's prefix, tag and key[:n],
// from tag and key on, in key order, handing fn each key relative to the
// node.
func (rs *residency) scanFrom(tag byte, key []byte, n int, fn func(rel, value []byte) error) error {
	rs.sbuf = append(append(append(rs.sbuf[:0], rs.prefix...), tag), key...)
	return rs.r.ScanFrom(rs.sbuf[:len(rs.prefix)+1+n], rs.sbuf, func(k, v []byte) error { return fn(k[len(rs.prefix):], v) })
}

// scanPrefix is scanKey for state logged without a tag.
func (rs *residency) scanPrefix(key []byte, fn func(rel, value []byte) error) error {
	rs.sbuf = append(append(rs.sbuf[:0], rs.prefix...), key...)
	return rs.scanBuf(fn)
}

// scanBuf scans the store under rs.sbuf, handing fn each key relative to
// the node.
func (rs *residency) scanBuf(fn func(rel, value []byte) error) error {
	n := len(rs.prefix)
	return rs.r.Scan(rs.sbuf, func(k, v []byte) error { return fn(k[n:], v) })
}
