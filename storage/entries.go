package storage

import (
	"bytes"
	"fmt"

	"github.com/eddydb/eddy/repr"
)

// Entry is one entry of an in-memory collection as a scan found it: its
// row's key and value bytes, shared with the collection's tree (never
// copied), and its count. It stays valid while the collection does not
// change (no Apply, Clear or Rollback of it), which is what lets a caller
// remember a lookup's entries and replay them (sql's lookup cache).
type Entry struct{ e entry }

// Count returns the entry's multiplicity.
func (x Entry) Count() int64 { return x.e.count }

// DecodeCols decodes the entry's row as ScanPrefixCols does with d: when
// d is not nil the row is d's scratch and holds NULL in the columns d does
// not need.
func (x Entry) DecodeCols(d *repr.ColDecoder) repr.Row { return x.e.decodeCols(d) }

// PrefixEntries appends to dst the entries ScanPrefixCols(prefix, ...)
// visits, in key order, and reports true. A spilled collection appends
// nothing and reports false: its entries are read from the store into
// buffers that the scan reuses, so they cannot be kept.
func (c *Collection) PrefixEntries(prefix []byte, dst []Entry) ([]Entry, bool) {
	if c.sp != nil {
		return dst, false
	}
	c.tree.AscendGreaterOrEqual(probe(prefix), func(e entry) bool {
		if !bytes.HasPrefix(e.key(), prefix) {
			return false
		}
		dst = append(dst, Entry{e})
		return true
	})
	return dst, true
}

// IndexEntries appends to dst the entries ScanIndexCols(id, from, to,
// ...) visits, in index order, and reports true; a spilled collection
// appends nothing and reports false (see PrefixEntries).
func (c *Collection) IndexEntries(id uint64, from, to []byte, dst []Entry) ([]Entry, bool, error) {
	ix := c.findIndex(id)
	if ix == nil {
		return dst, false, ErrNoIndex
	}
	if c.sp != nil {
		return dst, false, nil
	}
	c.ixAscend(ix, from, to, func(key []byte, n int) bool {
		e, ok := c.lookup(key[n:])
		if !ok {
			panic(fmt.Sprintf("storage: index %d names a key absent from collection %d", id, c.id))
		}
		dst = append(dst, Entry{e})
		return true
	})
	return dst, true, nil
}
