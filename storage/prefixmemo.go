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

// memoChunk is the number of entries of a memo's chunk (a prefix that
// finds more gets a chunk of its own size); memoKeep the most entries a
// memo's chunks may hold, and prefixes its map, for the memo to be kept
// (emptied) when sharing stops, for the collection's next commit.
const (
	memoChunk = 512
	memoKeep  = 1 << 14
)

// scanMemo is the memo of one collection's shared prefix scans. Lookups
// of parallel shards of one Step run concurrently, hence the mutex. The
// entries found live in chunks that are appended to, never moved or
// rewritten while the memo is in use, so a reader may walk a span after
// releasing the mutex. A growing single slice would copy every entry
// found so far each time it doubled: in a 1% TPC-H refresh batch that
// copy was 8% of the whole batch's CPU.
type scanMemo struct {
	mu    sync.Mutex
	spans map[string][]entry
	// chunks are the chunks filled or being filled (the last), spare
	// those emptied by forget for reuse; n counts the entries held.
	chunks, spare [][]entry
	n             int
	scratch       []entry
}

// ShareScans turns sharing of prefix scans on or off (see above). Off, it
// empties the memo, keeping it for the next time sharing is on unless it
// grew large. The caller has exclusive access to c.
func (c *Collection) ShareScans(on bool) {
	switch {
	case !on && c.memo != nil:
		if c.memo.small() {
			c.memo.forget()
			c.spareMemo = c.memo
		}
		c.memo = nil
	case on && c.memo == nil && c.spareMemo != nil:
		c.memo, c.spareMemo = c.spareMemo, nil
	case on && c.memo == nil:
		c.memo = &scanMemo{spans: map[string][]entry{}}
	}
}

// SharesScans reports whether sharing of prefix scans is on.
func (c *Collection) SharesScans() bool { return c.memo != nil }

// forgetScans empties the memo of shared scans (c's entries change).
func (c *Collection) forgetScans() {
	if m := c.memo; m != nil && len(m.spans) > 0 {
		m.forget()
	}
}

// forget empties m, clearing its chunks (they hold no entry alive) and
// keeping them for reuse.
func (m *scanMemo) forget() {
	clear(m.spans)
	for _, ch := range m.chunks {
		clear(ch)
		m.spare = append(m.spare, ch[:0])
	}
	clear(m.chunks)
	m.chunks, m.n = m.chunks[:0], 0
}

// small reports whether m is small enough to keep (memoKeep): its
// chunks, its map and its scratch.
func (m *scanMemo) small() bool {
	held := 0
	for _, ch := range m.chunks {
		held += cap(ch)
	}
	for _, ch := range m.spare {
		held += cap(ch)
	}
	return held <= memoKeep && len(m.spans) <= memoKeep && cap(m.scratch) <= memoKeep
}

// remember copies found into m's chunks and returns the copy, capped.
func (m *scanMemo) remember(found []entry) []entry {
	if len(found) == 0 {
		return nil
	}
	k := len(m.chunks) - 1
	if k < 0 || cap(m.chunks[k])-len(m.chunks[k]) < len(found) {
		m.chunks = append(m.chunks, m.chunk(len(found)))
		k++
	}
	ch := m.chunks[k]
	l := len(ch)
	ch = append(ch, found...)
	m.chunks[k] = ch
	m.n += len(found)
	return ch[l:len(ch):len(ch)]
}

// chunk returns an empty chunk for at least n entries: a spare one if it
// is large enough, else a new one.
func (m *scanMemo) chunk(n int) []entry {
	if k := len(m.spare) - 1; k >= 0 && cap(m.spare[k]) >= n {
		ch := m.spare[k]
		m.spare[k] = nil
		m.spare = m.spare[:k]
		return ch
	}
	return make([]entry, 0, max(n, memoChunk))
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
	es, ok := m.spans[string(prefix)]
	if !ok && m.n >= memoEntries {
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
		es = m.remember(found)
		m.spans[string(prefix)] = es
		clear(found)
		m.scratch = found[:0]
	}
	m.mu.Unlock()
	for _, e := range es {
		if !fn(e.decodeCols(d), e.count) {
			return
		}
	}
}
