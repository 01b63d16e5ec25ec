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

// markDirty adds key to c's dirty keys, once.
func (c *Collection) markDirty(key []byte) {
	if c.dirty == nil {
		c.dirty = make(map[string]struct{})
	}
	if _, ok := c.dirty[string(key)]; !ok {
		c.dirty[string(key)] = struct{}{}
	}
}

// Dirty returns the number of keys whose writes FlushDirty owes.
func (c *Collection) Dirty() int { return len(c.dirty) }

// FlushDirty writes every dirty key's current row (or its deletion) to b
// and forgets them.
func (c *Collection) FlushDirty(b *Batch) {
	for k := range c.dirty {
		e, ok := c.tree.Get(probe([]byte(k)))
		if !ok {
			e = probe([]byte(k)) // count 0: log deletes the key
		}
		c.log(b, e)
	}
	clear(c.dirty)
}
