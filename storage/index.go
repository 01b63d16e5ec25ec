package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/eddydb/eddy/repr"
	"github.com/google/btree"
)

// An index (CREATE INDEX) is a secondary arrangement of a collection: the
// collection's distinct keys ordered by an index key computed from each
// row (IndexKey: the key encoding of some columns, or of expressions over
// the row), holding only the rows the key function accepts (a partial
// index). Each index entry is
//
//	key(row) ++ the collection key of row
//
// so entries are unique even where index keys repeat, and a lookup
// goes from an index entry to the collection's entry (row and count) by
// its collection key. An index is mirrored durably under RowKey(index id,
// entry key) with the value uvarint(len of the index-columns part), and
// it changes with its collection: every Apply, Clear and Rollback
// maintains every index of the collection in memory and logs the entries'
// changes to the same batch as the rows, so an index is always equal to
// the one that would be built from the collection's contents (the
// invariant CheckIndexes verifies). Memory: one B-tree item (40 bytes)
// and the entry's key bytes per distinct collection key.
type index struct {
	id   uint64
	key  IndexKey
	tree *btree.BTreeG[ixEntry]
}

// IndexKey appends the index key of row to dst (the key encoding of its
// index columns or expressions, repr.AppendKey) and reports whether the
// row has an entry at all (false: a partial index's predicate does not
// hold). It must be a pure function of the row: the same row always gets
// the same answer, so removing a row finds the entry its insertion made
// (an evaluation error must therefore map to a fixed answer, not be
// retried). It may reuse nothing of row after returning.
type IndexKey func(dst []byte, row repr.Row) ([]byte, bool)

// ColsKey is the IndexKey of an index on columns cols: every row has an
// entry, keyed by repr.AppendColsKey.
func ColsKey(cols []int) IndexKey {
	cols = append([]int(nil), cols...)
	return func(dst []byte, row repr.Row) ([]byte, bool) {
		return repr.AppendColsKey(dst, row, cols), true
	}
}

// ixEntry is one index entry: key is the index columns' encoding (its
// first n bytes) followed by the collection key; pfx and pfx2 are key's
// first 12 bytes, big-endian, zero-padded (as entry's). In the overlay
// of a spilled collection (spill.go), n == ixTombstone marks a removed
// entry.
type ixEntry struct {
	key  []byte
	pfx  uint64
	pfx2 uint32
	n    int32
}

// ixTombstone is the n of an index overlay entry that hides a stored one.
const ixTombstone = -1

func newIxEntry(key []byte, n int) ixEntry {
	p, p2 := keyPrefix(key)
	return ixEntry{key: key, pfx: p, pfx2: p2, n: int32(n)}
}

func ixLess(a, b ixEntry) bool {
	if a.pfx != b.pfx {
		return a.pfx < b.pfx
	}
	if a.pfx2 != b.pfx2 {
		return a.pfx2 < b.pfx2
	}
	return bytes.Compare(a.key, b.key) < 0
}

// ErrNoIndex is returned for an index id the collection does not have.
var ErrNoIndex = errors.New("storage: no such index")

// findIndex returns the collection's index with the given id, or nil.
func (c *Collection) findIndex(id uint64) *index {
	for _, ix := range c.indexes {
		if ix.id == id {
			return ix
		}
	}
	return nil
}

// AddIndex builds the index id on cols from the collection's current
// contents, logging its entries to b if b is not nil. It replaces an
// index with the same id. Callers hold exclusive access; it is not undone
// by Rollback (the caller drops the index again on failure).
func (c *Collection) AddIndex(id uint64, cols []int, b *Batch) {
	c.AddIndexKey(id, ColsKey(cols), b)
}

// AddIndexKey is AddIndex for an index keyed by key.
func (c *Collection) AddIndexKey(id uint64, key IndexKey, b *Batch) {
	c.DropIndex(id, nil)
	ix := &index{id: id, key: key, tree: btree.NewG(btreeDegree, ixLess)}
	c.indexes = append(c.indexes, ix)
	c.ascend(nil, nil, func(e entry) bool {
		c.indexOne(ix, e.row(), e.key(), true, b)
		return true
	})
}

// LoadIndex loads the index id on cols from the store. It fails if the
// stored entries do not decode or are not exactly the entries of the
// collection's contents (the caller may then rebuild it with AddIndex);
// on failure the collection has no index id.
func (c *Collection) LoadIndex(db *DB, id uint64, cols []int) error {
	return c.LoadIndexKey(db, id, ColsKey(cols))
}

// LoadIndexKey is LoadIndex for an index keyed by key.
func (c *Collection) LoadIndexKey(db *DB, id uint64, key IndexKey) error {
	c.DropIndex(id, nil)
	ix := &index{id: id, key: key, tree: btree.NewG(btreeDegree, ixLess)}
	if c.sp == nil { // else the entries stay in the store, where checkIndex reads them
		if err := loadIndexTree(db, ix); err != nil {
			return err
		}
	}
	c.indexes = append(c.indexes, ix)
	if err := c.checkIndex(ix); err != nil {
		c.DropIndex(id, nil)
		return err
	}
	return nil
}

// DropIndex removes the index id, logging the deletion of its entries to
// b if b is not nil. Dropping an absent index does nothing.
func (c *Collection) DropIndex(id uint64, b *Batch) {
	for i, ix := range c.indexes {
		if ix.id == id {
			c.indexes = append(c.indexes[:i:i], c.indexes[i+1:]...)
			break
		}
	}
	if b != nil {
		b.DeletePrefix(RowPrefix(id))
	}
}

// Indexes returns the ids of the collection's indexes.
func (c *Collection) Indexes() []uint64 {
	out := make([]uint64, len(c.indexes))
	for i, ix := range c.indexes {
		out[i] = ix.id
	}
	return out
}

// ScanIndex calls fn, in index order, for the collection's entries (those
// the index holds) whose index entry key k has from <= k < to (to nil: no upper bound) until fn
// returns false. Bounds are index-column encodings (repr.AppendKey of
// leading values): from = enc(v) starts at the first entry whose leading
// columns are >= v, to = the end of a prefix (KeyPrefixEnd) stops after
// the last entry starting with it. It returns ErrNoIndex for an unknown
// id. fn must not mutate c.
func (c *Collection) ScanIndex(id uint64, from, to []byte, fn func(row repr.Row, count int64) bool) error {
	return c.ScanIndexCols(id, from, to, nil, fn)
}

// ScanIndexCols is ScanIndex decoding rows with d (see decodeCols): when
// d is not nil, fn's row is valid only until fn returns and holds NULL
// in columns d does not need.
func (c *Collection) ScanIndexCols(id uint64, from, to []byte, d *repr.ColDecoder, fn func(row repr.Row, count int64) bool) error {
	ix := c.findIndex(id)
	if ix == nil {
		return ErrNoIndex
	}
	c.ixAscend(ix, from, to, func(key []byte, n int) bool {
		e, ok := c.lookup(key[n:])
		if !ok {
			panic(fmt.Sprintf("storage: index %d names a key absent from collection %d", id, c.id))
		}
		return fn(e.decodeCols(d), e.count)
	})
	return nil
}

// KeyPrefixEnd returns the smallest key greater than every key that
// starts with prefix (nil: no such key), the exclusive end of a prefix
// scan.
func KeyPrefixEnd(prefix []byte) []byte { return prefixEnd(prefix) }

// indexRow adds (add) or removes the entries of row, whose collection key
// is key, in every index, logging them to b if b is not nil.
func (c *Collection) indexRow(row repr.Row, key []byte, add bool, b *Batch) {
	for _, ix := range c.indexes {
		c.indexOne(ix, row, key, add, b)
	}
}

// indexOne adds or removes one row's entry in ix (none if ix's key
// function rejects the row).
func (c *Collection) indexOne(ix *index, row repr.Row, key []byte, add bool, b *Batch) {
	var ok bool
	if c.ixBuf, ok = ix.key(c.ixBuf[:0], row); !ok {
		return
	}
	n := len(c.ixBuf)
	c.ixBuf = append(c.ixBuf, key...)
	switch {
	case add:
		ix.tree.ReplaceOrInsert(newIxEntry(bytes.Clone(c.ixBuf), n))
	case c.sp != nil: // a tombstone hides the stored entry
		ix.tree.ReplaceOrInsert(newIxEntry(bytes.Clone(c.ixBuf), ixTombstone))
	default:
		ix.tree.Delete(newIxEntry(c.ixBuf, n))
	}
	if b == nil {
		return
	}
	c.ixKeyBuf = AppendRowKey(c.ixKeyBuf[:0], ix.id, c.ixBuf)
	if add {
		var v [binary.MaxVarintLen64]byte // Set copies it
		b.Set(c.ixKeyBuf, binary.AppendUvarint(v[:0], uint64(n)))
	} else {
		b.Delete(c.ixKeyBuf)
	}
}

// CheckIndexes verifies that every index holds exactly the entries built
// from the collection's contents (tests and LoadIndex use it).
func (c *Collection) CheckIndexes() error {
	for _, ix := range c.indexes {
		if err := c.checkIndex(ix); err != nil {
			return err
		}
	}
	return nil
}

// checkIndex verifies one index against the collection's contents.
func (c *Collection) checkIndex(ix *index) error {
	var err error
	entries := 0
	c.ascend(nil, nil, func(e entry) bool {
		k, ok := ix.key(nil, e.row())
		if !ok {
			return true
		}
		entries++
		if !c.ixLookup(ix, append(k, e.key()...)) {
			err = fmt.Errorf("storage: index %d lacks the entry of key %q of collection %d", ix.id, e.key(), c.id)
		}
		return err == nil
	})
	if n := c.ixLen(ix); err == nil && entries != n {
		err = fmt.Errorf("storage: index %d has %d entries for %d indexed keys of collection %d", ix.id, n, entries, c.id)
	}
	return err
}

// loadIndexTree reads ix's stored entries into its tree.
func loadIndexTree(db *DB, ix *index) error {
	n := len(RowPrefix(ix.id))
	return db.Scan(RowPrefix(ix.id), func(key, value []byte) error {
		split, k := binary.Uvarint(value)
		if k <= 0 || int(split) > len(key)-n {
			return fmt.Errorf("storage: index %d at %s: %w", ix.id, PrettyKey(key), errBadValue)
		}
		ix.tree.ReplaceOrInsert(newIxEntry(bytes.Clone(key[n:]), int(split)))
		return nil
	})
}

// IndexSet is a collection's list of indexes at one moment (Indexes
// saves it, RestoreIndexes puts it back), for undoing CREATE and DROP
// INDEX without rebuilding: valid only while the collection's rows do not
// change in between, since a saved index is not maintained.
type IndexSet struct{ ixs []*index }

// SaveIndexes returns the collection's current indexes.
func (c *Collection) SaveIndexes() IndexSet { return IndexSet{slices.Clone(c.indexes)} }

// RestoreIndexes makes s the collection's indexes again.
func (c *Collection) RestoreIndexes(s IndexSet) { c.indexes = slices.Clone(s.ixs) }

// Same reports whether s and o hold the same indexes.
func (s IndexSet) Same(o IndexSet) bool { return slices.Equal(s.ixs, o.ixs) }

// EntryKey appends to dst the key row has in the access path index of c
// (0: the collection's own key order, as ScanRange compares; else the
// index entry key ScanIndex compares), and reports whether row has an
// entry there (a partial index may hold none). It returns ErrNoIndex for
// an unknown index.
func (c *Collection) EntryKey(dst []byte, index uint64, row repr.Row) ([]byte, bool, error) {
	if index == 0 {
		return c.Key(dst, row), true, nil
	}
	ix := c.findIndex(index)
	if ix == nil {
		return dst, false, ErrNoIndex
	}
	dst, ok := ix.key(dst, row)
	if !ok {
		return dst, false, nil
	}
	return c.Key(dst, row), true, nil
}
