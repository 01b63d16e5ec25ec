package storage

import (
	"bytes"
	"sync"

	"github.com/eddydb/eddy/repr"
)

// Shared prefix scans. A commit steps every view over the same unchanged
// tables, and views that join a change with the same table look up the
// same keys: in TPC-H a new lineitem's order is looked up by eight views,
// each with a B-tree descent of its own (most of the ~0.6 µs of a lookup
// is the descent's cache misses, not the rows it reads). While sharing is
// on (ShareScans), ScanPrefixColsShared remembers the entries each prefix
// found, so the second and later lookups of a key cost a map probe; the
// rows are still decoded per caller, with the caller's ColDecoder.
//
// Invariant: the memo holds exactly the entries a scan of the current
// tree would visit: every change of c's entries (Apply, Clear, Replace,
// Rollback, Load, Spill, Flushed) empties it first (forgetScans). It is
// never used for a spilled collection, whose entries merge the store's.

// memoEntries bounds a memo (about 3 MiB of entries, besides the prefix
// strings): past it, new prefixes are scanned without being remembered,
// so that one huge commit (an INSERT ... SELECT joined by views) does not
// hold a copy of the looked-up tables' entries outside the memory budget.
var memoEntries = 1 << 16

// scanMemo is the memo of one collection's shared prefix scans. Lookups
// of parallel shards of one Step run concurrently, hence the mutex; the
// entries are appended, never rewritten, so a reader may walk a span
// after releasing it.
type scanMemo struct {
	mu      sync.Mutex
	spans   map[string][2]int
	entries []entry
	scratch []entry
}

// ShareScans turns sharing of prefix scans on or off (see above). Off, it
// drops the memo. The caller has exclusive access to c.
func (c *Collection) ShareScans(on bool) {
	switch {
	case !on:
		c.memo = nil
	case c.memo == nil:
		c.memo = &scanMemo{spans: map[string][2]int{}}
	}
}

// SharesScans reports whether sharing of prefix scans is on.
func (c *Collection) SharesScans() bool { return c.memo != nil }

// forgetScans empties the memo of shared scans (c's entries change).
func (c *Collection) forgetScans() {
	if m := c.memo; m != nil && len(m.spans) > 0 {
		clear(m.spans)
		clear(m.entries)
		m.entries = m.entries[:0]
	}
}

// ScanPrefixColsShared is ScanPrefixCols, sharing the entries found with
// the earlier scans of the same prefix since c last changed while
// ShareScans is on. Concurrent calls are safe.
func (c *Collection) ScanPrefixColsShared(prefix []byte, d *repr.ColDecoder, fn func(row repr.Row, count int64) bool) {
	m := c.memo
	if m == nil || c.sp != nil {
		c.ScanPrefixCols(prefix, d, fn)
		return
	}
	m.mu.Lock()
	span, ok := m.spans[string(prefix)]
	if !ok && len(m.entries) >= memoEntries {
		m.mu.Unlock()
		c.ScanPrefixCols(prefix, d, fn)
		return
	}
	if !ok {
		found := m.scratch[:0]
		c.tree.AscendGreaterOrEqual(probe(prefix), func(e entry) bool {
			if !bytes.HasPrefix(e.key(), prefix) {
				return false
			}
			found = append(found, e)
			return true
		})
		span = [2]int{len(m.entries), len(m.entries) + len(found)}
		m.entries = append(m.entries, found...)
		m.spans[string(prefix)] = span
		clear(found)
		m.scratch = found[:0]
	}
	es := m.entries[span[0]:span[1]:span[1]]
	m.mu.Unlock()
	for _, e := range es {
		if !fn(e.decodeCols(d), e.count) {
			return
		}
	}
}
