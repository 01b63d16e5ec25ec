package sql

import (
	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// liveRows returns a table's rows as the transaction sees them for a
// constraint or TRUNCATE: the latest committed contents (not a
// snapshot's: PostgreSQL's constraint checks and TRUNCATE act on the
// latest rows too) with ws's pending changes applied, consolidated.
func (e *Engine) liveRows(t *planner.Relation, ws *writeSet) []repr.Update {
	id := uint64(t.ID)
	var rows []repr.Update
	e.readLocked(func() {
		rows = e.snapshot(id, 0)
	})
	pend := ws.pending(id)
	if len(pend) == 0 {
		return rows
	}
	return exec.Consolidate(append(rows, pend...))
}

// visibleRows returns a table's rows as a statement of the transaction
// reads them: the committed contents (the block's snapshot's, at
// REPEATABLE READ or SERIALIZABLE) with ws's pending changes applied,
// consolidated.
func (e *Engine) visibleRows(t *planner.Relation, ws *writeSet) ([]repr.Update, error) {
	id := uint64(t.ID)
	var rows []repr.Update
	var err error
	e.readLocked(func() {
		rows, err = e.snapshotRows(id, 0, ws)
	})
	pend := ws.pending(id)
	if len(pend) == 0 || err != nil {
		return rows, err
	}
	return exec.Consolidate(append(rows, pend...)), nil
}

// visibleRowsWhere returns the rows of t as a statement of ws reads them
// (visibleRows) that pass filter. Without pending changes to t, the rows
// are read from an O(1) snapshot taken under the lock and filtered as
// they are read after it, so only the matching rows are copied (an
// UPDATE or DELETE of a few rows of a large table holds those).
func (e *Engine) visibleRowsWhere(t *planner.Relation, ws *writeSet, filter expr.Expr, ctx *expr.Ctx) ([]repr.Update, error) {
	id := uint64(t.ID)
	if len(ws.pending(id)) > 0 || disableFeedSnapshots {
		return e.visibleRows(t, ws) // the filter must not see rows the block deleted
	}
	var store *storage.DB
	var c *storage.Collection
	var err error
	e.readLocked(func() {
		c, err = e.readColl(id, ws)
		if err == nil && c != nil && snapshotOf(ws) == nil {
			c = e.snapshotColl(c, &store)
		}
	})
	defer func() { _ = store.CloseSnapshot() }()
	if c == nil || err != nil {
		return nil, err
	}
	var rows []repr.Update
	c.Scan(func(r repr.Row, n int64) bool {
		var ok bool
		if ok, err = isTrue(filter, ctx, r); ok {
			rows = append(rows, repr.Update{Row: r, Diff: n})
		}
		return err == nil
	})
	return rows, err
}

// liveRowsWhere returns the rows of t as the transaction's statement sees
// them (visibleRows) that filter may accept: when filter fixes or bounds
// leading columns of t's primary key or of one of its indexes by
// constants or parameters (see pointread.go), only the committed rows in
// those key ranges are read, in O(log n + matches), plus every pending
// change (which the caller's filter sifts, as it sifts the rows).
// Otherwise all visible rows.
func (e *Engine) liveRowsWhere(t *planner.Relation, ws *writeSet, filter expr.Expr, ctx *expr.Ctx) ([]repr.Update, error) {
	id := uint64(t.ID)
	if filter == nil || disablePointReads {
		return e.visibleRows(t, ws)
	}
	ts := make([]repr.T, len(t.Columns))
	for i, c := range t.Columns {
		ts[i] = c.Type
	}
	p := predicates([]expr.Expr{filter}, ts)
	if p.empty() {
		return e.visibleRowsWhere(t, ws, filter, ctx)
	}
	var rows []repr.Update
	var ok bool
	var err error
	e.readLocked(func() {
		rows, ok, err = e.pointSnapshot(pointInput{coll: repr.CollectionID(id), ncols: len(ts), p: p}, ctx, 0, ws)
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		return e.visibleRowsWhere(t, ws, filter, ctx)
	}
	pointReadCount.Add(1)
	pend := ws.pending(id)
	if len(pend) == 0 {
		return rows, nil
	}
	return exec.Consolidate(append(rows, pend...)), nil
}

// liveKeys returns the primary keys present as the transaction sees them
// (committed contents plus ws's pending changes), or nil for a table
// without a primary key. It costs O(pending changes), not O(table).
// Probing it (has) needs e.mu read-locked by the caller.
func (e *Engine) liveKeys(t *planner.Relation, ws *writeSet) *keySet {
	if t.PrimaryKey == nil {
		return nil
	}
	var c *storage.Collection
	e.readLocked(func() {
		c = e.colls[uint64(t.ID)]
	})
	ks := &keySet{coll: c, cols: t.PrimaryKey, overlay: map[string]int64{}}
	for _, u := range ws.pending(uint64(t.ID)) {
		ks.overlay[string(repr.AppendColsKey(nil, u.Row, t.PrimaryKey))] += u.Diff
	}
	return ks
}

// keySet answers whether a primary key is live: committed, plus the
// overlay of changes not yet committed.
type keySet struct {
	coll    *storage.Collection
	cols    []int
	overlay map[string]int64
	buf     []byte
}

// key encodes row's primary key into the set's scratch buffer (valid
// until the next call).
func (k *keySet) key(row repr.Row) []byte {
	k.buf = repr.AppendColsKey(k.buf[:0], row, k.cols)
	return k.buf
}

// has reports whether key is live. The engine's read lock must be held
// (the committed collection is read).
func (k *keySet) has(key []byte) bool {
	n := k.overlay[string(key)]
	if k.coll != nil {
		if _, c, ok := k.coll.Get(key); ok {
			n += c
		}
	}
	return n > 0
}

func (k *keySet) add(key []byte, diff int64) { k.overlay[string(key)] += diff }

// checkUpdatedKeys rejects an UPDATE whose new rows would duplicate a
// primary key among themselves or with rows it does not update.
func (e *Engine) checkUpdatedKeys(t *planner.Relation, olds, news []repr.Row, ws *writeSet) error {
	if t.PrimaryKey == nil || len(news) == 0 {
		return nil
	}
	keys := e.liveKeys(t, ws)
	for _, r := range olds {
		keys.add(keys.key(r), -1)
	}
	if dup := e.firstDuplicate(keys, news); dup != nil {
		return duplicateKey(e.objectOf(t), dup)
	}
	return nil
}

// firstDuplicate adds the keys of rows to keys in order and returns the
// first row whose key was already live, or nil. It takes the engine's
// read lock once for all rows.
func (e *Engine) firstDuplicate(keys *keySet, rows []repr.Row) repr.Row {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, r := range rows {
		k := keys.key(r)
		if keys.has(k) {
			return r
		}
		keys.add(k, 1)
	}
	return nil
}

// objectOf returns the catalog object of a planner relation.
func (e *Engine) objectOf(t *planner.Relation) *Object {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if o := e.cat.byID[uint64(t.ID)]; o != nil {
		return o
	}
	return &Object{Name: t.Name}
}
