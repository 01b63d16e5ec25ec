package storage

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Reusable iterators for spilled collections. Opening a Pebble iterator
// (and closing it) costs more than most of the reads a spilled collection
// or a spilled join's state makes: a point lookup by a delta join or a
// DELETE reads one or two entries. So a DB keeps at most one idle
// iterator per key range owner (a key prefix: a collection's or an
// index's rows, a dataflow's state), and a read takes it, repositions it with
// SetBounds (which Pebble makes cheap when the bounds move forward: the
// loaded blocks are reused, as for CockroachDB's scans) and puts it back.
//
// An iterator sees the store as of its creation, so every commit makes
// the open ones stale: Commit closes the idle iterators and bumps an
// epoch, and an iterator taken before that is closed when it is put back.
// An iterator thus never outlives the checkpoint after which a spilled
// collection drops its overlay (it would miss the rows the checkpoint
// wrote), nor pins obsolete tables past the next commit (or ReleaseIdle,
// which the server's ticker calls every second). Close and
// CloseSnapshot close the idle iterators before the store: Pebble refuses
// to close with iterators open. Reads run concurrently (take and put are
// under a mutex; a taken iterator belongs to one reader), and a read
// nested in another of the same owner opens its own.
type iterCache struct {
	mu     sync.Mutex
	epoch  uint64
	closed bool
	idle   map[string]*ownerIter // by owner prefix
}

// ownerIter is an iterator over the keys of one owner (those that start
// with pfx), taken from (or created for) a DB's iterCache.
type ownerIter struct {
	it     *pebble.Iterator
	pfx    []byte // the owner's key prefix
	end    []byte // the end of the owner's keys
	epoch  uint64
	lo, hi []byte // scratch for the bounds (SetBounds copies them)
}

// takeIter returns an iterator for collection or index id's rows (under
// RowPrefix(id)); see takePrefixIter.
func (db *DB) takeIter(id uint64) *ownerIter {
	var a [9]byte
	return db.takePrefixIter(appendID(append(a[:0], kindRow), id))
}

// takePrefixIter returns an iterator for the keys under pfx: the idle
// one, or a new one. The caller gives it back with putIter.
func (db *DB) takePrefixIter(pfx []byte) *ownerIter {
	c := &db.iters
	c.mu.Lock()
	oi := c.idle[string(pfx)]
	if oi != nil {
		delete(c.idle, string(pfx))
	}
	epoch := c.epoch
	c.mu.Unlock()
	if oi != nil {
		return oi
	}
	it, err := db.reader().NewIter(nil)
	if err != nil {
		panic(fmt.Sprintf("storage: reading %s: %v", PrettyKey(pfx), err))
	}
	pfx = bytes.Clone(pfx)
	return &ownerIter{it: it, pfx: pfx, end: prefixEnd(pfx), epoch: epoch}
}

// putIter makes oi idle again, or closes it if a commit made it stale,
// the store is closing or owner already has an idle iterator.
func (db *DB) putIter(oi *ownerIter) {
	c := &db.iters
	c.mu.Lock()
	if oi.epoch == c.epoch && !c.closed && c.idle[string(oi.pfx)] == nil {
		if c.idle == nil {
			c.idle = map[string]*ownerIter{}
		}
		c.idle[string(oi.pfx)] = oi
		oi = nil
	}
	c.mu.Unlock()
	if oi != nil {
		oi.close()
	}
}

// ReleaseIdle closes the idle iterators of spilled reads, as a commit
// does. An idle iterator pins the store's files as of its creation (those
// a compaction has since replaced stay on disk), so a server calls it
// from time to time when it may go long without a commit.
func (db *DB) ReleaseIdle() { db.releaseIters(false) }

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
		oi.broken(err)
	}
}

// broken panics with a read error: a broken store (see baseGet).
func (oi *ownerIter) broken(err error) {
	panic(fmt.Sprintf("storage: reading %s: %v", PrettyKey(oi.pfx), err))
}

// seek positions oi on the first of owner's keys k with from <= k < to
// (to nil: the end of owner's keys) and reports whether there is one.
func (oi *ownerIter) seek(from, to []byte) bool {
	oi.setBounds(from, to)
	return oi.valid(oi.it.First())
}

// setBounds limits oi to owner's keys k with from <= k < to (to nil: the
// end of owner's keys).
func (oi *ownerIter) setBounds(from, to []byte) {
	oi.lo = append(append(oi.lo[:0], oi.pfx...), from...)
	hi := oi.end // nil if no key follows the owner's
	if to != nil {
		oi.hi = append(append(oi.hi[:0], oi.pfx...), to...)
		hi = oi.hi
	}
	oi.it.SetBounds(oi.lo, hi)
}

// scan calls fn in key order for owner's keys that start with rel
// (without the owner's prefix) and their values, valid during the call,
// until fn returns an error, which it returns as is (a read error
// wrapped).
func (oi *ownerIter) scan(rel []byte, fn func(key, value []byte) error) error {
	return oi.scanFrom(rel, rel, fn)
}

// scanFrom is scan over the keys that start with rel and are at or
// after from.
func (oi *ownerIter) scanFrom(rel, from []byte, fn func(key, value []byte) error) error {
	if bytes.Compare(from, rel) < 0 {
		from = rel
	}
	oi.setBounds(from, prefixEnd(rel))
	for ok := oi.it.First(); ok; ok = oi.it.Next() {
		v, err := oi.it.ValueAndErr()
		if err != nil {
			return oi.readErr(rel, err)
		}
		if err := fn(oi.key(), v); err != nil {
			return err
		}
	}
	if err := oi.it.Error(); err != nil {
		return oi.readErr(rel, err)
	}
	return nil
}

// readErr wraps a read error of the scan of rel.
func (oi *ownerIter) readErr(rel []byte, err error) error {
	return fmt.Errorf("storage: scan %s: %w", PrettyKey(append(oi.pfx[:len(oi.pfx):len(oi.pfx)], rel...)), err)
}

// get returns the value of owner's key (valid until oi moves or is put
// back) and whether it exists.
func (oi *ownerIter) get(key []byte) ([]byte, bool) {
	oi.lo = append(append(oi.lo[:0], oi.pfx...), key...)
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
func (oi *ownerIter) key() []byte { return oi.it.Key()[len(oi.pfx):] }

// value returns the current value; an error is a broken store.
func (oi *ownerIter) value() []byte {
	v, err := oi.it.ValueAndErr()
	if err != nil {
		oi.broken(err)
	}
	return v
}

// valid returns ok, panicking if the iterator stopped on an error.
func (oi *ownerIter) valid(ok bool) bool {
	if !ok {
		if err := oi.it.Error(); err != nil {
			oi.broken(err)
		}
	}
	return ok
}
