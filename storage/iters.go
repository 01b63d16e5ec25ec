package storage

import (
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Reusable iterators for spilled collections. Opening a Pebble iterator
// (and closing it) costs more than most of the reads a spilled collection
// makes: a point lookup by a delta join or a DELETE reads one or two
// entries. So a DB keeps at most one idle iterator per key range owner (a
// collection's or an index's id), and a read takes it, repositions it with
// SetBounds (which Pebble makes cheap when the bounds move forward: the
// loaded blocks are reused, as for CockroachDB's scans) and puts it back.
//
// An iterator sees the store as of its creation, so every commit makes
// the open ones stale: Commit closes the idle iterators and bumps an
// epoch, and an iterator taken before that is closed when it is put back.
// An iterator thus never outlives the checkpoint after which a spilled
// collection drops its overlay (it would miss the rows the checkpoint
// wrote), nor pins obsolete tables past the next commit. Close and
// CloseSnapshot close the idle iterators before the store: Pebble refuses
// to close with iterators open. Reads run concurrently (take and put are
// under a mutex; a taken iterator belongs to one reader), and a read
// nested in another of the same owner opens its own.
type iterCache struct {
	mu     sync.Mutex
	epoch  uint64
	closed bool
	idle   map[uint64]*ownerIter
}

// ownerIter is an iterator over the keys of one owner, taken from (or
// created for) a DB's iterCache.
type ownerIter struct {
	it     *pebble.Iterator
	owner  uint64
	epoch  uint64
	lo, hi []byte // scratch for the bounds (SetBounds copies them)
	end    []byte // the end of owner's keys
	npfx   int    // the length of owner's key prefix
}

// takeIter returns an iterator for owner's keys: the idle one, or a new
// one. The caller gives it back with putIter.
func (db *DB) takeIter(owner uint64) *ownerIter {
	c := &db.iters
	c.mu.Lock()
	oi := c.idle[owner]
	if oi != nil {
		delete(c.idle, owner)
	}
	epoch := c.epoch
	c.mu.Unlock()
	if oi != nil {
		return oi
	}
	it, err := db.reader().NewIter(nil)
	if err != nil {
		panic(fmt.Sprintf("storage: reading spilled collection %d: %v", owner, err))
	}
	pfx := RowPrefix(owner)
	return &ownerIter{it: it, owner: owner, epoch: epoch, end: prefixEnd(pfx), npfx: len(pfx)}
}

// putIter makes oi idle again, or closes it if a commit made it stale,
// the store is closing or owner already has an idle iterator.
func (db *DB) putIter(oi *ownerIter) {
	c := &db.iters
	c.mu.Lock()
	if oi.epoch == c.epoch && !c.closed && c.idle[oi.owner] == nil {
		if c.idle == nil {
			c.idle = map[uint64]*ownerIter{}
		}
		c.idle[oi.owner] = oi
		oi = nil
	}
	c.mu.Unlock()
	if oi != nil {
		oi.close()
	}
}

// releaseIters closes the idle iterators and makes the taken ones stale;
// with closing, no iterator is kept idle from then on.
func (db *DB) releaseIters(closing bool) {
	c := &db.iters
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.closed = c.closed || closing
	for _, oi := range c.idle {
		oi.close()
	}
	clear(c.idle)
}

// close closes oi's iterator; an error is a broken store (see baseGet).
func (oi *ownerIter) close() {
	if err := oi.it.Close(); err != nil {
		panic(fmt.Sprintf("storage: reading spilled collection %d: %v", oi.owner, err))
	}
}

// seek positions oi on the first of owner's keys k with from <= k < to
// (to nil: the end of owner's keys) and reports whether there is one.
func (oi *ownerIter) seek(from, to []byte) bool {
	oi.lo = AppendRowKey(oi.lo[:0], oi.owner, from)
	if to == nil {
		oi.hi = append(oi.hi[:0], oi.end...)
	} else {
		oi.hi = AppendRowKey(oi.hi[:0], oi.owner, to)
	}
	oi.it.SetBounds(oi.lo, oi.hi)
	return oi.valid(oi.it.First())
}

// get returns the value of owner's key (valid until oi moves or is put
// back) and whether it exists.
func (oi *ownerIter) get(key []byte) ([]byte, bool) {
	oi.lo = AppendRowKey(oi.lo[:0], oi.owner, key)
	oi.hi = append(append(oi.hi[:0], oi.lo...), 0) // the key's immediate successor
	oi.it.SetBounds(oi.lo, oi.hi)
	if !oi.valid(oi.it.First()) {
		return nil, false
	}
	return oi.value(), true
}

// next advances oi and reports whether it is on a key.
func (oi *ownerIter) next() bool { return oi.valid(oi.it.Next()) }

// key returns the current key without the owner's prefix.
func (oi *ownerIter) key() []byte { return oi.it.Key()[oi.npfx:] }

// value returns the current value; an error is a broken store.
func (oi *ownerIter) value() []byte {
	v, err := oi.it.ValueAndErr()
	if err != nil {
		panic(fmt.Sprintf("storage: reading spilled collection %d: %v", oi.owner, err))
	}
	return v
}

// valid returns ok, panicking if the iterator stopped on an error.
func (oi *ownerIter) valid(ok bool) bool {
	if !ok {
		if err := oi.it.Error(); err != nil {
			panic(fmt.Sprintf("storage: reading spilled collection %d: %v", oi.owner, err))
		}
	}
	return ok
}
