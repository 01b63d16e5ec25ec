package storage

import "github.com/eddydb/eddy/repr"

// Deferred writes of keyed collections. A materialized view keyed by its
// group key takes one Replace per touched group per commit; with 1,000
// groups and 1,000-row commits every commit rewrote every group's row
// into the checkpoint batch, which sorted all but the last away
// (BENCHMARKS.md, write path). ReplaceDeferred marks the key dirty
// instead, and FlushDirty writes each dirty key's current row (or its
// deletion) once, at the checkpoint.
//
// Invariants: dirty holds the keys changed by ReplaceDeferred since the
// last FlushDirty, each once; the writes they stand for are the current
// contents, so a rolled-back change only costs a rewrite; a collection
// with dirty keys does not spill (Spill waits for the flush, which every
// checkpoint does before it commits).

// ReplaceDeferred is Replace whose write of the key is left to the next
// FlushDirty, when c is in memory and has no indexes (else it is logged
// to b as by Replace). The caller promises to call FlushDirty with the
// batch b is committed with (or one committed after it), before anything
// reads c's keys from the store.
func (c *Collection) ReplaceDeferred(old, nu repr.Row, b *Batch) error {
	if !c.defersWrites() {
		return c.Replace(old, nu, b)
	}
	if err := c.Replace(old, nu, nil); err != nil {
		return err
	}
	c.markDirty(c.kvBuf[:c.klen])
	return nil
}

// defersWrites reports whether ReplaceDeferred leaves its writes to
// FlushDirty: c is keyed, in memory and has no indexes.
func (c *Collection) defersWrites() bool {
	return c.sp == nil && len(c.indexes) == 0 && c.keyCols != nil
}

// dirtyKey is a key of up to len(dirtyKey)-1 bytes held inline as a map
// key: the bytes, zero-padded, then the length. A view replaces every
// touched group's key at every commit and marks it dirty each time, almost
// always finding it dirty already: a string key made each lookup compare
// against key bytes held apart from the map (a cache miss per group per
// commit); an inline key compares within the map's slot.
type dirtyKey [24]byte

// markDirty adds key to c's dirty keys, once.
func (c *Collection) markDirty(key []byte) {
	if len(key) < len(dirtyKey{}) {
		if c.dirty == nil {
			c.dirty = make(map[dirtyKey]struct{})
		}
		var k dirtyKey
		copy(k[:], key)
		k[len(k)-1] = byte(len(key))
		c.dirty[k] = struct{}{}
		return
	}
	if c.dirtyLong == nil {
		c.dirtyLong = make(map[string]struct{})
	}
	if _, ok := c.dirtyLong[string(key)]; !ok {
		c.dirtyLong[string(key)] = struct{}{}
	}
}

// Dirty returns the number of keys whose writes FlushDirty owes.
func (c *Collection) Dirty() int { return len(c.dirty) + len(c.dirtyLong) }

// FlushDirty writes every dirty key's current row (or its deletion) to b
// and forgets them.
func (c *Collection) FlushDirty(b *Batch) {
	for k := range c.dirty {
		c.flushKey(b, k[:k[len(k)-1]])
	}
	for k := range c.dirtyLong {
		c.flushKey(b, []byte(k))
	}
	clear(c.dirty)
	clear(c.dirtyLong)
}

// flushKey writes key's current row (or its deletion) to b.
func (c *Collection) flushKey(b *Batch, key []byte) {
	e, ok := c.tree.Get(probe(key))
	if !ok {
		e = probe(key) // count 0: log deletes the key
	}
	c.log(b, e)
}
