package sql

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// keyIndex counts a table's committed rows by the encoding of some of its
// columns (rows with a NULL among them are not counted: NULLs never
// conflict or reference). UNIQUE constraints, foreign keys to a key other
// than the primary key, and the referencing side of foreign keys use one,
// so a statement's constraint checks cost O(its changes) instead of a
// scan. An index is built on first use by one scan of the table and then
// maintained by every commit that changes the table (noteCommitted);
// changes made another way (a connector's batch, ALTER TABLE, DROP) drop
// it, to be rebuilt when next needed. It costs one map entry per distinct
// key.
//
// When the table has an index (CREATE INDEX) whose leading columns are
// the key's, the counts are read from that arrangement instead (coll, ix:
// a prefix scan per key), and no map is kept: a UNIQUE index is enforced
// by its own arrangement.
//
// With nullsEqual (a UNIQUE NULLS NOT DISTINCT constraint) rows with
// NULLs are counted too, NULL equal to NULL.
type keyIndex struct {
	counts     map[string]int64
	coll       *storage.Collection
	ix         uint64
	cols       []int
	nullsEqual bool
}

// keyOf returns row's key in the index (ok false: not counted).
func (ix *keyIndex) keyOf(row repr.Row) (string, bool) {
	if ix.nullsEqual {
		return string(repr.AppendColsKey(nil, row, ix.cols)), true
	}
	return keyOf(row, ix.cols)
}

// indexName identifies an index: table and columns.
func indexName(table uint64, cols []int) string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(table, 10))
	for _, c := range cols {
		b.WriteByte('/')
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}

// keyIndex returns the index of table on cols, building it if needed.
// The caller holds e.mu (shared or exclusive).
func (e *Engine) keyIndex(table uint64, cols []int) *keyIndex {
	return e.keyIndexNulls(table, cols, false)
}

// keyIndexNulls is keyIndex that, with nullsEqual, also counts keys with
// NULLs (an arrangement's counts always include them).
func (e *Engine) keyIndexNulls(table uint64, cols []int, nullsEqual bool) *keyIndex {
	if c, id, ok := e.arrangementOn(table, cols); ok {
		return &keyIndex{coll: c, ix: id}
	}
	name := indexName(table, cols)
	if nullsEqual {
		name += "/nulls"
	}
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	if ix := e.indexes[name]; ix != nil {
		return ix
	}
	ix := &keyIndex{counts: map[string]int64{}, cols: cols, nullsEqual: nullsEqual}
	for _, u := range e.snapshot(table, 0) {
		if k, ok := ix.keyOf(u.Row); ok {
			ix.counts[k] += u.Diff
		}
	}
	if e.indexes == nil {
		e.indexes = map[string]*keyIndex{}
	}
	e.indexes[name] = ix
	return ix
}

// count returns the committed rows with key plus delta's.
func (ix *keyIndex) count(key string, delta map[string]int64) int64 {
	if ix.coll == nil {
		return ix.counts[key] + delta[key]
	}
	n := delta[key]
	k := []byte(key)
	_ = ix.coll.ScanIndex(ix.ix, k, storage.KeyPrefixEnd(k), func(_ repr.Row, c int64) bool {
		n += c
		return true
	})
	return n
}

// deltaCounts counts changes by the key of cols.
func deltaCounts(changes []repr.Update, cols []int) map[string]int64 {
	out := map[string]int64{}
	for _, u := range changes {
		if k, ok := keyOf(u.Row, cols); ok {
			out[k] += u.Diff
		}
	}
	return out
}

// noteCommitted applies a committed write set to the indexes of its
// tables. The caller holds e.mu exclusively.
func (e *Engine) noteCommitted(ws *writeSet) {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	if len(e.indexes) == 0 {
		return
	}
	for _, id := range ws.order {
		prefix := strconv.FormatUint(id, 10) + "/"
		for name, ix := range e.indexes {
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			for _, u := range ws.changes[id] {
				if k, ok := ix.keyOf(u.Row); ok {
					if ix.counts[k] += u.Diff; ix.counts[k] == 0 {
						delete(ix.counts, k)
					}
				}
			}
		}
	}
}

// dropIndexes forgets the indexes of a table whose rows changed outside
// a write set (or whose shape or constraints changed).
func (e *Engine) dropIndexes(table uint64) {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	prefix := strconv.FormatUint(table, 10) + "/"
	for name := range e.indexes {
		if strings.HasPrefix(name, prefix) {
			delete(e.indexes, name)
		}
	}
}
