package sql

import (
	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/types"
	"github.com/eddydb/eddy/storage"
)

// liveRows returns a table's rows as the transaction sees them: the
// committed contents with ws's pending changes applied, consolidated.
func (e *Engine) liveRows(t *planner.Relation, ws *writeSet) []exec.Update {
	id := uint64(t.ID)
	e.mu.RLock()
	rows := e.snapshot(id, 0)
	e.mu.RUnlock()
	pend := ws.pending(id)
	if len(pend) == 0 {
		return rows
	}
	return exec.Consolidate(append(rows, pend...))
}

// liveKeys returns the primary keys present as the transaction sees them
// (committed contents plus ws's pending changes), or nil for a table
// without a primary key. It costs O(pending changes), not O(table).
func (e *Engine) liveKeys(t *planner.Relation, ws *writeSet) *keySet {
	if t.PrimaryKey == nil {
		return nil
	}
	e.mu.RLock()
	c := e.colls[uint64(t.ID)]
	e.mu.RUnlock()
	ks := &keySet{e: e, coll: c, overlay: map[string]int64{}}
	for _, u := range ws.pending(uint64(t.ID)) {
		ks.overlay[string(types.AppendColsKey(nil, u.Row, t.PrimaryKey))] += u.Diff
	}
	return ks
}

// keySet answers whether a primary key is live: committed, plus the
// overlay of changes not yet committed.
type keySet struct {
	e       *Engine
	coll    *storage.Collection
	overlay map[string]int64
}

func (k *keySet) has(key string) bool {
	n := k.overlay[key]
	if k.coll != nil {
		k.e.mu.RLock()
		_, c, ok := k.coll.Get([]byte(key))
		k.e.mu.RUnlock()
		if ok {
			n += c
		}
	}
	return n > 0
}

func (k *keySet) add(key string, diff int64) { k.overlay[key] += diff }

// checkUpdatedKeys rejects an UPDATE whose new rows would duplicate a
// primary key among themselves or with rows it does not update.
func (e *Engine) checkUpdatedKeys(t *planner.Relation, olds, news []types.Row, ws *writeSet) error {
	if t.PrimaryKey == nil || len(news) == 0 {
		return nil
	}
	keys := e.liveKeys(t, ws)
	for _, r := range olds {
		keys.add(string(types.AppendColsKey(nil, r, t.PrimaryKey)), -1)
	}
	for _, r := range news {
		k := string(types.AppendColsKey(nil, r, t.PrimaryKey))
		if keys.has(k) {
			return duplicateKey(e.objectOf(t), r)
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
