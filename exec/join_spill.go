package exec

import (
	"cmp"
	"errors"
	"slices"
	"unsafe"
)

// A spilled join (joinOp.sp) keeps its arrangements in the store, as of
// the last checkpoint, and in memory only the join keys it has read
// since: a join key is resident (both sides' rows of that key arranged
// in memory, exactly as an in-memory join would hold them) or not (its
// rows are the store's, under the node's prefix, tag 3 or 4 and the join
// key: one prefix scan each). A Step's lookup makes the key it touches
// resident (ensure) before anything reads it, so the join's code runs
// unchanged over resident keys.
//
// A resident key is dirty once a Step touches it (its rows may differ
// from the store until the next checkpoint writes them) and clean again
// after Flushed, which the engine calls right after a checkpoint: clean
// keys are a cache of the store, evicted least recently used first when
// the resident bytes pass the cache bound (after each committed Step and
// after Flushed); dirty keys stay until the checkpoint. So the store plus
// the resident keys is always the whole arrangement, and no key is ever
// both stale in memory and read from the store.
//
// The store is read through a StateReader during Steps. That is I/O in
// an operator, but a deterministic one: the store holds what the Steps
// logged up to the checkpoint, whatever the timing.
type joinSpill struct {
	r StateReader
	// prefix is the node's state key prefix (relative to the dataflow).
	prefix []byte
	res    map[string]*jres
	// bytes estimates the resident keys' heap bytes; cache bounds them
	// (clean keys past it are evicted).
	bytes, cache int64
	clock        uint64
	sbuf         []byte
	// skip marks a side that keeps no rows (a shared join's shared side,
	// read from an index): loading a key does not scan it.
	skip [2]bool
	// loads and evictions count keys read from the store and evicted.
	loads, evictions int64
}

// jres is one resident join key.
type jres struct {
	bytes int64
	used  uint64
	dirty bool
}

// jrowBytes, bucketBytes estimate an arranged row's fixed heap bytes
// (its entry, its id in a bucket, its share of the rows map) and a
// resident key's (bucket, two map entries, jres).
const (
	jrowBytes   = int64(unsafe.Sizeof(jrow{})) + 4 + 24
	bucketBytes = int64(unsafe.Sizeof(jbucket{})+unsafe.Sizeof(jres{})) + 2*mapEntryOverhead
)

// jrowCost estimates the heap bytes of an arranged row encoded in n bytes.
func jrowCost(n int) int64 { return int64(n) + jrowBytes }

// errStopScan ends a StateReader scan early without an error.
var errStopScan = errors.New("stop scan")

// spill makes o spilled: it drops every arranged row, reading them from r
// (under prefix, the node's state key prefix) from then on, and caches up
// to cache bytes of clean keys. The store must hold exactly o's state
// (right after a checkpoint), and no Step may be pending. It reports
// false, doing nothing, when o is spilled already or not keyed.
func (o *joinOp) spill(r StateReader, prefix []byte, cache int64) bool {
	if o.sp != nil || !o.keyed || len(o.touched) > 0 {
		return false
	}
	for i := range o.sides {
		o.sides[i] = newJoinSide(o.sides[i].keyCols)
		o.sides[i].nulls = make(map[string]*jbucket)
	}
	o.sp = &joinSpill{r: r, prefix: append([]byte(nil), prefix...), res: make(map[string]*jres), cache: cache}
	return true
}

// ensure makes join key key resident on both sides, loading it from the
// store if need be, and marks it dirty if the Step is about to change it
// (not when it only reads it).
func (sp *joinSpill) ensure(o *joinOp, key []byte, dirty bool) error {
	jr := sp.res[string(key)]
	if jr == nil {
		var err error
		if jr, err = sp.load(o, key); err != nil {
			return err
		}
	}
	sp.clock++
	jr.used, jr.dirty = sp.clock, jr.dirty || dirty
	return nil
}

// load arranges the stored rows of join key key of both sides and
// records the key as resident.
func (sp *joinSpill) load(o *joinOp, key []byte) (*jres, error) {
	jr := &jres{bytes: bucketBytes + 2*int64(len(key))}
	for side := range 2 {
		if sp.skip[side] {
			continue
		}
		sp.sbuf = append(append(append(sp.sbuf[:0], sp.prefix...), o.tag(side)), key...)
		skip := len(sp.sbuf)
		err := sp.r.Scan(sp.sbuf, func(k, v []byte) error {
			row, n, matches, err := o.decodeLogged(side, v)
			if err != nil {
				return err
			}
			jr.bytes += o.arrange(side, row, key, k[skip:], n, matches)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sp.res[string(key)] = jr
	sp.bytes += jr.bytes
	sp.loads++
	return jr, nil
}

// grew accounts a row of n encoded bytes added to resident key key.
func (sp *joinSpill) grew(key []byte, n int) {
	if jr := sp.res[string(key)]; jr != nil {
		jr.bytes += jrowCost(n)
		sp.bytes += jrowCost(n)
	}
}

// flushed marks every resident key clean (a checkpoint has written them
// all) and evicts past the cache bound.
func (sp *joinSpill) flushed(o *joinOp) {
	for _, jr := range sp.res {
		jr.dirty = false
	}
	sp.trim(o)
}

// trim evicts clean keys, least recently used first, when the resident
// bytes pass the cache bound, down to three quarters of it (so that a
// Step's few new keys do not evict at every Step).
func (sp *joinSpill) trim(o *joinOp) {
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
		sp.evict(o, c.key)
	}
	o.sides[0].release()
	o.sides[1].release()
}

// evict drops the rows of a clean resident key from both sides.
func (sp *joinSpill) evict(o *joinOp, key string) {
	for i := range o.sides {
		js := &o.sides[i]
		for _, m := range [2]map[string]*jbucket{js.buckets, js.nulls} {
			b := m[key]
			for b != nil && len(b.rows) > 0 {
				js.unlink(js.at(b.rows[len(b.rows)-1]))
			}
		}
	}
	sp.bytes -= sp.res[key].bytes
	delete(sp.res, key)
	sp.evictions++
}

// The spiller methods of plain joins (spill.go). A join spills only when
// it logs its state by join key (keyed).

func (o *joinOp) spillSize() (int64, bool) {
	if !o.keyed || o.sp != nil {
		return 0, false
	}
	_, b := o.stateSize()
	return b, true
}

func (o *joinOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	return o.spill(r, prefix, cache)
}

func (o *joinOp) spilledStats() (bool, int64, int64, int64) {
	if o.sp == nil {
		return false, 0, 0, 0
	}
	return true, o.sp.bytes, o.sp.loads, o.sp.evictions
}

func (o *joinOp) flushedState() {
	if o.sp != nil {
		o.sp.flushed(o)
	}
}

func (o *joinOp) restoreSized(key, value []byte) (int64, bool, error) {
	n, err := o.restoreRow(key, value)
	return n, o.keyed, err
}

// A shared join spills its private side only: its shared side is an
// index, which a spilled key's load does not scan.

func (o *sharedJoin) spillSize() (int64, bool) { return o.j.spillSize() }

func (o *sharedJoin) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if !o.j.spill(r, prefix, cache) {
		return false
	}
	o.j.sp.skip[o.side] = true
	return true
}

func (o *sharedJoin) spilledStats() (bool, int64, int64, int64) { return o.j.spilledStats() }
func (o *sharedJoin) flushedState()                             { o.j.flushedState() }
func (o *sharedJoin) forget()                                   { o.j.forget() }

func (o *sharedJoin) restoreSized(key, value []byte) (int64, bool, error) {
	return o.j.restoreSized(key, value)
}
