package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddydb/eddy/repr"
)

// Collection holds the live rows of a table or view in memory, ordered by
// an encoded key, mirrored durably under RowKey(id, key).
//
// With keyCols nil the collection is a multiset: the key is the whole row
// (repr.AppendRowKeyExact: equal rows that print differently, 2 and 2.00,
// are kept apart, as PostgreSQL keeps each row as written) and each entry
// has a multiplicity count > 0. With
// keyCols non-nil (a primary key) the key is repr.AppendColsKey(row,
// keyCols) and every count is 1.
//
// A Collection has no lock: reads (Get, Scan, ScanPrefix, Len) may run
// concurrently with each other; anything that mutates needs exclusive
// access (the caller's sync.RWMutex).
//
// Memory: one B-tree item per distinct key, holding its count and one
// byte slice with the encoded key followed by the row's value (see
// entry). Rows are kept encoded, not as repr.Row, so the contents hold
// no pointers the garbage collector must trace (a Datum row costs a
// slice, a string or decimal pointer per column and 48 bytes per column);
// readers get freshly decoded rows they may keep. In a multiset whose row
// decodes from its key (repr.DecodeRowKey: no float or interval column,
// no numeric NaN, infinity or -0) the value is only the key's hints (the
// columns' families and the numerics' exponents), so the row is stored
// once, in memory and in Pebble (see value.go).
type Collection struct {
	id      uint64
	keyCols []int
	tree    *entryTree

	recording bool
	undo      []entry // prior state of each key touched since Begin; count 0 = absent

	kvBuf, rowKeyBuf, valBuf []byte // scratch for Apply (writers are exclusive)
	klen                     int    // length of the key at the start of kvBuf
	// hints, when > 0, says that kvBuf[hints-1:klen] is AppendKeyHints of
	// the row Apply is storing (the end of its exact key): fresh copies
	// them into the keyed form and clears it.
	hints int

	// indexes are the collection's secondary arrangements (index.go),
	// maintained by every change; ixBuf and ixKeyBuf are their scratch.
	indexes         []*index
	ixBuf, ixKeyBuf []byte

	// sp is non-nil when the collection is spilled (spill.go): tree then
	// holds only the changes since the last checkpoint.
	sp *spillState

	// dirty and dirtyLong hold the keys whose writes FlushDirty owes
	// (dirty.go), the short ones inline.
	dirty     map[dirtyKey]struct{}
	dirtyLong map[string]struct{}

	// memo remembers shared prefix scans while ShareScans is on
	// (prefixmemo.go); nil when off. spareMemo is the emptied memo
	// kept from the last time sharing was on, for the next.
	memo, spareMemo *scanMemo
}

// entry is one distinct key. Entries are values in the tree (one pointer
// per row, to bytes the collector does not scan), so a probe for Get
// costs no allocation.
//
// Invariant: kv[:klen] is the key and kv[klen:] the row's value: either
// keyedForm followed by the key's hints (repr.AppendKeyHints;
// only in a multiset, whose key is the whole row) or repr.AppendRow of
// the row (which never starts with keyedForm unless the row is empty, and
// then both forms mean the empty row). The value is empty in probes and
// in undo records of absent keys. pfx and pfx2 are the key's first 12
// bytes, big-endian, zero-padded (keyPrefix).
type entry struct {
	kv    []byte
	pfx   uint64
	pfx2  uint32
	klen  uint32
	count int64
}

// newEntry returns the entry for kv whose first klen bytes are the key.
func newEntry(kv []byte, klen int, count int64) entry {
	p, p2 := keyPrefix(kv[:klen])
	return entry{kv: kv, pfx: p, pfx2: p2, klen: uint32(klen), count: count}
}

// keyPrefix returns the first 12 bytes of key, big-endian, zero-padded:
// 8 and 4 bytes. Twelve, not eight, because the key encoding of an
// integer is a tag byte and eight bytes whose high ones are equal for
// most values: an 8-byte prefix leaves the last byte of every integer
// key to a bytes.Compare of memory outside the tree's nodes.
func keyPrefix(key []byte) (uint64, uint32) {
	var p [12]byte
	copy(p[:], key)
	return binary.BigEndian.Uint64(p[:8]), binary.BigEndian.Uint32(p[8:])
}

// probe returns an entry that compares as key.
func probe(key []byte) entry { return newEntry(key, len(key), 0) }

// withCount returns e with its count replaced.
func (e entry) withCount(n int64) entry {
	e.count = n
	return e
}

func (e entry) key() []byte { return e.kv[:e.klen] }

// keyOnly returns the probe of e's key (probe(e.key())), reusing e's
// prefixes instead of reading the key again.
func (e entry) keyOnly() entry {
	e.kv, e.count = e.kv[:e.klen:e.klen], 0
	return e
}

// row decodes the stored row. The bytes were encoded in this process or
// checked by Load, so an error is memory corruption.
func (e entry) row() repr.Row {
	r, err := decodeEntryRow(e.kv[:e.klen], e.kv[e.klen:])
	if err != nil {
		panic(fmt.Sprintf("storage: stored row does not decode: %v", err))
	}
	return r
}

// decodeEntryRow decodes a row from its key and an entry value.
func decodeEntryRow(key, val []byte) (repr.Row, error) {
	if len(val) > 0 && val[0] == keyedForm {
		return repr.DecodeRowKeyExact(key, val[1:])
	}
	return repr.DecodeRow(val)
}

// entryLess orders entries by key. Zero-padded big-endian prefixes order
// like the keys they start (a shorter key that differs only by its end is
// a prefix, hence smaller), so most comparisons in a B-tree descent are
// decided without reading the keys' bytes, which live elsewhere in memory.
func entryLess(a, b entry) bool {
	if a.pfx != b.pfx {
		return a.pfx < b.pfx
	}
	if a.pfx2 != b.pfx2 {
		return a.pfx2 < b.pfx2
	}
	return bytes.Compare(a.key(), b.key()) < 0
}

// Errors that Apply wraps when it refuses a change, so that callers can
// turn them into constraint errors without looking the key up first.
var (
	// ErrDuplicateKey: an insertion under a primary key already present.
	ErrDuplicateKey = errors.New("duplicate primary key")
	// ErrRowMismatch: a retraction of a row that is absent, differs from
	// the stored row, or has fewer copies than retracted.
	ErrRowMismatch = errors.New("retracted row is absent or different")
)

// btreeDegree trades node size against depth. Entries carry their key's
// 12-byte prefix, so a search within a node mostly reads the node itself:
// 64 (up to 127 entries of 48 bytes) measured faster than 32 for views
// of millions of rows (q1 at 10M events).
const btreeDegree = 64

// NewCollection returns an empty collection with the given id; keyCols
// nil makes it a multiset of whole rows.
func NewCollection(id uint64, keyCols []int) *Collection {
	return &Collection{id: id, keyCols: keyCols, tree: newEntryTree()}
}

// ID returns the collection id.
func (c *Collection) ID() uint64 { return c.id }

// KeyCols returns the primary key columns, or nil for a multiset.
func (c *Collection) KeyCols() []int { return c.keyCols }

// Key appends the encoded key of row to buf.
func (c *Collection) Key(buf []byte, row repr.Row) []byte {
	if c.keyCols == nil {
		return repr.AppendRowKeyExact(buf, row)
	}
	return repr.AppendColsKey(buf, row, c.keyCols)
}

// Load replaces the contents of c with the rows stored under RowPrefix(id).
// On error c is left empty. It drops c's indexes (load them afterwards
// with LoadIndex).
func (c *Collection) Load(db *DB) error { return c.LoadSpillable(db, -1) }

// LoadSpillable is Load keeping at most keep bytes of entries in memory
// (MemBytes' estimate; keep < 0: no bound): past it, c is spilled (spill.go)
// and the rest of the scan only checks and counts the stored entries.
func (c *Collection) LoadSpillable(db *DB, keep int64) error {
	c.forgetScans()
	c.tree.Clear()
	c.indexes, c.sp = nil, nil
	c.undo, c.recording = nil, false
	n := len(RowPrefix(c.id))
	var held int64
	err := db.Scan(RowPrefix(c.id), func(key, value []byte) error {
		row, count, val, err := decodeStored(key[n:], value)
		if err != nil {
			return fmt.Errorf("storage: loading collection %d at %s: %w", c.id, PrettyKey(key), err)
		}
		if len(val) > 0 && val[0] == keyedForm && len(row) > 0 && c.keyCols != nil {
			return fmt.Errorf("storage: loading collection %d at %s: %w (a row stored as its key under a primary key)", c.id, PrettyKey(key), errBadValue)
		}
		if err := c.checkLoaded(key[n:], row, count); err != nil {
			return fmt.Errorf("storage: loading collection %d at %s: %w", c.id, PrettyKey(key), err)
		}
		if c.sp != nil {
			c.sp.n++
			c.sp.filter.Add(key[n:])
			return nil
		}
		kv := make([]byte, 0, len(key)-n+len(val))
		kv = append(append(kv, key[n:]...), val...)
		c.tree.ReplaceOrInsert(newEntry(kv, len(key)-n, count))
		if held += int64(len(kv)) + 56; keep >= 0 && held > keep {
			c.Spill(db)
		}
		return nil
	})
	if err != nil {
		c.tree.Clear()
		c.sp = nil
	}
	return err
}

// checkLoaded verifies that a stored entry is one this collection could
// have written: its key is the row's key under c's key columns (catching a
// catalog whose key columns disagree with the data), and a primary key
// entry has count 1.
func (c *Collection) checkLoaded(key []byte, row repr.Row, count int64) error {
	for _, col := range c.keyCols {
		if col < 0 || col >= len(row) {
			return fmt.Errorf("key column %d out of range for a row of %d columns", col, len(row))
		}
	}
	if c.kvBuf = c.Key(c.kvBuf[:0], row); !bytes.Equal(c.kvBuf, key) {
		return fmt.Errorf("stored key does not match its row's key")
	}
	if c.keyCols != nil && count != 1 {
		return fmt.Errorf("count %d under a primary key", count)
	}
	return nil
}

// Clear removes every entry (TRUNCATE), logging one DeletePrefix to b if b
// is not nil. Since Begin, it is undone by Rollback like Apply.
func (c *Collection) Clear(b *Batch) {
	c.forgetScans()
	if c.sp != nil {
		c.clearSpilled(b)
		return
	}
	if c.recording {
		c.tree.Ascend(func(e entry) bool {
			c.undo = append(c.undo, e)
			return true
		})
	}
	c.tree.Clear()
	for _, ix := range c.indexes {
		ix.tree.Clear(false)
		if b != nil {
			b.DeletePrefix(RowPrefix(ix.id))
		}
	}
	if b != nil {
		b.DeletePrefix(RowPrefix(c.id))
	}
}

// Apply changes the multiplicity of row by diff in memory and, if b is not
// nil, logs the new state of its key to b. A multiset count may not go
// negative; under a primary key diff must be +1 for an absent key or -1 for
// the identical stored row (apply an UPDATE's retraction before its
// insertion). A refused change returns an error and changes nothing.
func (c *Collection) Apply(row repr.Row, diff int64, b *Batch) error {
	if diff == 0 {
		return nil
	}
	c.forgetScans()
	c.hints = 0
	if c.keyCols == nil {
		var at int
		c.kvBuf, at = repr.AppendRowKeyExactHints(c.kvBuf[:0], row)
		c.hints = at + 1
	} else {
		c.kvBuf = c.Key(c.kvBuf[:0], row)
	}
	c.klen = len(c.kvBuf)
	if c.sp != nil {
		return c.applySpilled(row, diff, b)
	}
	if diff == 1 || diff > 0 && c.keyCols == nil {
		return c.insert(row, diff, b)
	}
	old, found := c.tree.Get(probe(c.kvBuf))
	next, err := c.next(old, found, row, diff)
	if err != nil {
		return err
	}
	if c.recording {
		c.undo = append(c.undo, c.undoEntry(old, found))
	}
	if next.count == 0 {
		c.tree.Delete(old)
		if len(c.indexes) > 0 {
			c.indexRow(c.retractedRow(old, row), old.key(), false, b)
		}
	} else {
		if !found {
			next = c.fresh(row, next.count)
			c.indexRow(row, next.key(), true, b)
		}
		c.tree.ReplaceOrInsert(next)
	}
	if b != nil {
		c.log(b, next)
	}
	return nil
}

// fresh returns a new entry for row (whose key is in c.kvBuf[:c.klen])
// with count n, in one allocation.
func (c *Collection) fresh(row repr.Row, n int64) entry {
	if h := c.hints - 1; h >= 0 && h <= c.klen && c.keyCols == nil && len(row) > 0 {
		c.kvBuf = append(append(c.kvBuf[:c.klen], keyedForm), c.kvBuf[h:c.klen]...)
	} else {
		c.kvBuf = c.appendRowValue(c.kvBuf[:c.klen], row)
	}
	c.hints = 0
	return newEntry(bytes.Clone(c.kvBuf), c.klen, n)
}

// appendRowValue appends row's entry value: the keyed form when c is a
// multiset and the row decodes from its key, else repr.AppendRow.
func (c *Collection) appendRowValue(buf []byte, row repr.Row) []byte {
	if c.keyCols == nil && len(row) > 0 {
		if out, ok := repr.AppendKeyHints(append(buf, keyedForm), row); ok {
			return out
		}
	}
	return repr.AppendRow(buf, row)
}

// insert is Apply for diff > 0 (1 under a primary key; key in
// c.kvBuf[:c.klen]). The common case, a key not yet present, costs one
// B-tree descent: the new entry goes in at once, and only if the key turns
// out to be present is the old entry combined with the change (or put
// back, if the change is refused).
func (c *Collection) insert(row repr.Row, diff int64, b *Batch) error {
	fresh := c.fresh(row, diff)
	old, found := c.tree.ReplaceOrInsert(fresh)
	next := fresh
	if found {
		var err error
		if next, err = c.next(old, true, row, diff); err != nil {
			c.tree.ReplaceOrInsert(old)
			return err
		}
		c.tree.ReplaceOrInsert(next)
	} else if len(c.indexes) > 0 {
		c.indexRow(row, fresh.key(), true, b)
	}
	if c.recording {
		if found {
			c.undo = append(c.undo, old)
		} else { // absent before: the fresh entry's key (never mutated) says which
			c.undo = append(c.undo, fresh.keyOnly())
		}
	}
	if b != nil {
		c.log(b, next)
	}
	return nil
}

// next computes the entry that Apply stores for the key in c.kvBuf
// (count 0: delete), or an error if the change is refused. A new key's
// entry carries only its count; Apply encodes it.
func (c *Collection) next(old entry, found bool, row repr.Row, diff int64) (entry, error) {
	if c.keyCols != nil {
		return c.nextKeyed(old, found, row, diff)
	}
	count := old.count + diff
	switch {
	case count < 0:
		return entry{}, fmt.Errorf("storage: collection %d: %w (count would go from %d to %d)",
			c.id, ErrRowMismatch, old.count, count)
	case diff > 0 && count < old.count:
		return entry{}, fmt.Errorf("storage: collection %d: count of row overflows (%d + %d)", c.id, old.count, diff)
	case found:
		return old.withCount(count), nil
	}
	return entry{count: count}, nil
}

// nextKeyed is next under a primary key.
func (c *Collection) nextKeyed(old entry, found bool, row repr.Row, diff int64) (entry, error) {
	switch {
	case diff == 1 && !found:
		return entry{count: 1}, nil
	case diff == -1 && found && c.sameRow(old, row):
		return old.withCount(0), nil
	case diff == 1:
		return entry{}, fmt.Errorf("storage: collection %d: %w", c.id, ErrDuplicateKey)
	case diff == -1 && found:
		return entry{}, fmt.Errorf("storage: collection %d: %w (differs from the stored row)", c.id, ErrRowMismatch)
	case diff == -1:
		return entry{}, fmt.Errorf("storage: collection %d: %w (absent)", c.id, ErrRowMismatch)
	}
	return entry{}, fmt.Errorf("storage: collection %d: diff %d under a primary key", c.id, diff)
}

// sameRow reports whether row equals e's stored row (CompareRows, so a
// numeric 1.0 equals a stored 1.00), comparing encodings first.
func (c *Collection) sameRow(e entry, row repr.Row) bool {
	c.valBuf = repr.AppendRow(c.valBuf[:0], row)
	if bytes.Equal(c.valBuf, e.kv[e.klen:]) {
		return true
	}
	return repr.CompareRows(e.row(), row) == 0
}

// retractedRow returns the stored row of old, which Apply deletes because
// row retracted it, for removing its index entries. The stored row, not
// the argument: they compare equal but may encode differently (1.0 and
// 1.00, see sameRow), and the index holds the stored form's key. When
// the argument encodes to exactly the stored bytes (a DELETE hands back
// the row it read, so almost always) it is that row, and the decode is
// saved: a deleted row's decode was a third of Apply's cost in a TPC-H
// refresh's DELETE.
func (c *Collection) retractedRow(old entry, row repr.Row) repr.Row {
	if c.keyCols != nil {
		c.valBuf = repr.AppendRow(c.valBuf[:0], row)
		if bytes.Equal(c.valBuf, old.kv[old.klen:]) {
			return row
		}
	}
	return old.row()
}

// undoEntry returns the record that restores old (or absence) on Rollback.
func (c *Collection) undoEntry(old entry, found bool) entry {
	if found {
		return old
	}
	return probe(bytes.Clone(c.kvBuf[:c.klen]))
}

// log writes the new state of an entry's key to b: its value, or a delete.
func (c *Collection) log(b *Batch, e entry) {
	c.rowKeyBuf = AppendRowKey(c.rowKeyBuf[:0], c.id, e.kv[:e.klen])
	if e.count == 0 {
		b.Delete(c.rowKeyBuf)
		return
	}
	c.valBuf = appendEntryValue(c.valBuf[:0], e.kv[e.klen:], e.count)
	b.Set(c.rowKeyBuf, c.valBuf)
}

// Get returns the row stored under the encoded key and its count.
func (c *Collection) Get(key []byte) (repr.Row, int64, bool) {
	e, ok := c.tree.Get(probe(key))
	if c.sp != nil {
		e, ok = c.lookup(key)
	}
	if !ok {
		return nil, 0, false
	}
	return e.row(), e.count, true
}

// Scan calls fn for every entry in key order until fn returns false.
// fn must not mutate c.
func (c *Collection) Scan(fn func(row repr.Row, count int64) bool) {
	if c.sp != nil {
		c.ascend(nil, nil, func(e entry) bool { return fn(e.row(), e.count) })
		return
	}
	c.tree.Ascend(func(e entry) bool { return fn(e.row(), e.count) })
}

// ScanPrefix calls fn in key order for the entries whose key starts with
// prefix (a point lookup by leading key columns: prefix =
// repr.AppendKey of their values) until fn returns false.
func (c *Collection) ScanPrefix(prefix []byte, fn func(row repr.Row, count int64) bool) {
	c.ScanPrefixCols(prefix, nil, fn)
}

// decodeCols returns e's row decoded by d (repr.ColDecoder: d's scratch
// row, only the columns it needs), or a fresh row of every column when d
// is nil or the row is kept as its key (a multiset's keyed form, whose
// columns cannot be skipped by length).
func (e entry) decodeCols(d *repr.ColDecoder) repr.Row {
	val := e.kv[e.klen:]
	if d == nil || len(val) == 0 || val[0] == keyedForm {
		return e.row()
	}
	r, err := d.Decode(val)
	if err != nil {
		panic(fmt.Sprintf("storage: stored row does not decode: %v", err))
	}
	return r
}

// ScanPrefixCols is ScanPrefix decoding rows with d (see decodeCols):
// when d is not nil, fn's row is valid only until fn returns and holds
// NULL in columns d does not need.
func (c *Collection) ScanPrefixCols(prefix []byte, d *repr.ColDecoder, fn func(row repr.Row, count int64) bool) {
	if c.sp != nil {
		c.ascend(prefix, prefixEnd(prefix), func(e entry) bool { return fn(e.decodeCols(d), e.count) })
		return
	}
	c.tree.AscendGreaterOrEqual(probe(prefix), func(e entry) bool {
		return bytes.HasPrefix(e.key(), prefix) && fn(e.decodeCols(d), e.count)
	})
}

// ScanRange calls fn in key order for the entries whose key k has from <=
// k < to (to nil: no upper bound) until fn returns false.
func (c *Collection) ScanRange(from, to []byte, fn func(row repr.Row, count int64) bool) {
	if c.sp != nil {
		c.ascend(from, to, func(e entry) bool { return fn(e.row(), e.count) })
		return
	}
	c.tree.AscendGreaterOrEqual(probe(from), func(e entry) bool {
		return (to == nil || bytes.Compare(e.key(), to) < 0) && fn(e.row(), e.count)
	})
}

// ScanChunk calls fn in key order for at most n entries whose key is at
// least from (nil: from the first) and returns the key to resume from, or
// nil once the scan reached the end. It lets a reader step through a
// snapshot (Snapshot) in pieces, holding one piece at a time.
func (c *Collection) ScanChunk(from []byte, n int, fn func(row repr.Row, count int64)) (next []byte) {
	c.ascend(from, nil, func(e entry) bool {
		if n == 0 {
			next = append([]byte(nil), e.key()...)
			return false
		}
		n--
		fn(e.row(), e.count)
		return true
	})
	return next
}

// Len returns the number of distinct entries.
func (c *Collection) Len() int {
	if c.sp != nil {
		return c.sp.n
	}
	return c.tree.Len()
}

// Begin starts recording in-memory changes so that Rollback can undo them.
// A Begin while already recording does nothing: Rollback still returns to
// the state at the first Begin (so a transaction that reaches the same
// collection twice cannot lose its earlier changes' undo record).
func (c *Collection) Begin() {
	if !c.recording {
		c.recording = true
		c.undo = c.undo[:0]
		if c.sp != nil {
			c.sp.beginN = c.sp.n
		}
	}
}

// Rollback undoes every in-memory change since Begin and stops recording.
// It does not touch batches: the caller discards the batch it logged to.
func (c *Collection) Rollback() {
	c.forgetScans()
	if c.sp != nil {
		c.rollbackSpilled()
		c.Commit()
		return
	}
	for i := len(c.undo) - 1; i >= 0; i-- {
		e := c.undo[i]
		if len(c.indexes) > 0 {
			if cur, ok := c.tree.Get(e); ok {
				c.indexRow(cur.row(), cur.key(), false, nil)
			}
		}
		if e.count == 0 {
			c.tree.Delete(e)
		} else {
			c.tree.ReplaceOrInsert(e)
			c.indexRow(e.row(), e.key(), true, nil)
		}
	}
	c.Commit()
}

// Commit keeps the changes since Begin and stops recording.
func (c *Collection) Commit() {
	clear(c.undo)
	c.undo, c.recording = c.undo[:0], false
}
