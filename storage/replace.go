package storage

import (
	"bytes"
	"fmt"

	"github.com/eddydb/eddy/repr"
)

// Replace changes the row stored under a primary key from old to nu (both
// with the same key): Apply(old, -1) then Apply(nu, +1) in one B-tree
// descent and, if b is not nil, one Set of the key in b (never a delete
// followed by a set). It is how a view keyed by its group key
// (sql's Object.RowKey) takes an aggregate's retraction and insertion of
// one group. A refused change (old absent or different, keys differing,
// a multiset) returns an error wrapping ErrRowMismatch and changes nothing.
// Since Begin, it is undone by Rollback like Apply.
func (c *Collection) Replace(old, nu repr.Row, b *Batch) error {
	if c.keyCols == nil {
		return fmt.Errorf("storage: Replace on a multiset of collection %d", c.id)
	}
	if !c.SameKey(old, nu) { // leaves old's key in kvBuf
		return fmt.Errorf("storage: collection %d: %w (replacement changes the key)", c.id, ErrRowMismatch)
	}
	return c.replaceKeyed(old, nu, b)
}

// ReplacePair is Replace of old by nu (ReplaceDeferred when deferred) if
// both have the same key in c; if not, it reports false and changes
// nothing. Each row's key is encoded once: a caller that checked SameKey
// and then called Replace encoded both keys twice (a view keyed by its
// group key takes one pair per touched group per commit).
func (c *Collection) ReplacePair(old, nu repr.Row, b *Batch, deferred bool) (bool, error) {
	if c.keyCols == nil {
		return false, nil
	}
	if !c.SameKey(old, nu) {
		return false, nil
	}
	if !deferred || !c.defersWrites() {
		return true, c.replaceKeyed(old, nu, b)
	}
	if err := c.replaceKeyed(old, nu, nil); err != nil {
		return true, err
	}
	c.markDirty(c.kvBuf[:c.klen])
	return true, nil
}

// replaceKeyed is Replace once old's key is in c.kvBuf and nu's key is
// known to equal it.
func (c *Collection) replaceKeyed(old, nu repr.Row, b *Batch) error {
	c.forgetScans()
	c.klen = len(c.kvBuf)
	if c.sp != nil {
		return c.replaceTwice(old, nu, b)
	}
	fresh := c.fresh(nu, 1)
	prev, found := c.tree.ReplaceOrInsert(fresh)
	if !found || !c.sameRow(prev, old) {
		if found {
			c.tree.ReplaceOrInsert(prev)
		} else {
			c.tree.Delete(fresh)
		}
		return fmt.Errorf("storage: collection %d: %w (replaced row absent or different)", c.id, ErrRowMismatch)
	}
	if c.recording {
		c.undo = append(c.undo, prev)
	}
	if len(c.indexes) > 0 {
		c.indexRow(prev.row(), prev.key(), false, b)
		c.indexRow(nu, fresh.key(), true, b)
	}
	if b != nil {
		c.log(b, fresh)
	}
	return nil
}

// replaceTwice is Replace on a spilled collection: a retraction and an
// insertion (the overlay and the batch keep the last state of the key).
func (c *Collection) replaceTwice(old, nu repr.Row, b *Batch) error {
	if err := c.Apply(old, -1, b); err != nil {
		return err
	}
	return c.Apply(nu, 1, b)
}

// SameKey reports whether rows a and b have the same key in c, leaving
// a's key encoding in c.kvBuf and b's in c.valBuf.
func (c *Collection) SameKey(a, b repr.Row) bool {
	c.kvBuf = c.Key(c.kvBuf[:0], a)
	c.valBuf = c.Key(c.valBuf[:0], b)
	return bytes.Equal(c.kvBuf, c.valBuf)
}
