package sql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/storage"
)

// Automatic indexes. A join of a new materialized view that must keep a
// private arrangement of a base relation (a table or materialized view
// read whole, through an MFP that filters nothing) because no index or
// own key order serves its key gets one: an index on the relation by
// those columns (IndexDef.Implicit), created with the view in its batch
// and shared by every later view and ad hoc join that needs it. An index
// entry is the key and the row's collection key (~60 bytes), against
// ~150-200 bytes for a private arrangement of the row, and one index
// serves every view joining on that key (TPC-H: lineitem by l_partkey or
// l_suppkey in several queries). A side that filters is left private: its
// arrangement holds only the rows that pass, often fewer than an index of
// the whole relation. The index is dropped with the last view that reads
// it; users see it (named rel_cols_auto_idx) and may drop it with CASCADE.

// autoIndex is an index a new view's join needs on relation rel.
type autoIndex struct {
	rel  *Object
	cols []int
}

// autoIndexes returns the indexes to create so that every inner join of
// plan whose larger side (sideSize.larger) is a base relation read
// without a filter can share that side. The caller holds e.mu.
func (e *Engine) autoIndexes(cat *Catalog, plan *dataflow.Plan) []autoIndex {
	if disableSharedJoins || hasLoop(plan) {
		return nil
	}
	var out []autoIndex
	for _, n := range plan.Nodes {
		j, ok := n.Op.(dataflow.Join)
		if !ok || j.Kind != dataflow.InnerJoin || j.AppendOnly || j.Shared != nil || len(j.LeftKey) == 0 {
			continue
		}
		keys := [2][]int{j.LeftKey, j.RightKey}
		var size [2]sideSize
		var shareable [2]bool
		for side := range 2 {
			_, _, rows, ok := e.sharedIndex(cat, plan, n.Inputs[side], keys[side], nil)
			shareable[side] = ok
			size[side] = sideSize{rows: rows, unique: e.uniqueKey(cat, plan, n.Inputs[side], keys[side])}
			if rel, ok := e.autoIndexTarget(cat, plan, n.Inputs[side]); ok && rows == 0 {
				size[side].rows = int(e.collectionSize(rel.ID))
			}
		}
		big := 0
		if size[1].larger(size[0]) {
			big = 1
		}
		if shareable[big] {
			continue
		}
		rel, ok := e.autoIndexTarget(cat, plan, n.Inputs[big])
		if !ok {
			continue
		}
		_, cols, _ := sourceKey(plan, n.Inputs[big], keys[big])
		if slices.Contains(cols, -1) {
			continue // a computed key: no column index serves it
		}
		if !slices.ContainsFunc(out, func(a autoIndex) bool { return a.rel == rel && slices.Equal(a.cols, cols) }) {
			out = append(out, autoIndex{rel: rel, cols: cols})
		}
	}
	return out
}

// autoIndexTarget returns the relation join input node in reads whole:
// a Source of a table or materialized view without a watermark, or an
// MFP over one that filters nothing.
func (e *Engine) autoIndexTarget(cat *Catalog, plan *dataflow.Plan, in int) (*Object, bool) {
	node := plan.Nodes[in]
	if m, isMFP := node.Op.(dataflow.MFP); isMFP {
		if len(m.Filter) > 0 {
			return nil, false
		}
		node = plan.Nodes[node.Inputs[0]]
	}
	src, ok := node.Op.(dataflow.Source)
	if !ok || isSystemRelation(uint64(src.Collection)) {
		return nil, false
	}
	obj := cat.byID[uint64(src.Collection)]
	if obj == nil || e.colls[obj.ID] == nil || obj.Source != nil && obj.Source.Watermark != nil {
		return nil, false
	}
	return obj, true
}

// createAutoIndexes creates the indexes of specs, logging them to b; it
// returns the new index objects (in the catalog and their collections
// already). On error nothing is left: undoAutoIndexes is called for the
// ones made. The caller holds e.mu and has checkpointed.
func (e *Engine) createAutoIndexes(specs []autoIndex, b *storage.Batch) ([]*Object, error) {
	var made []*Object
	for _, a := range specs {
		names := []string{}
		for _, c := range a.cols {
			names = append(names, a.rel.Columns[c].Name)
		}
		obj := &Object{Kind: relIndex, Schema: a.rel.Schema, Name: e.chooseIndexName(a.rel, append(names, "auto")),
			Index: &IndexDef{Table: a.rel.ID, Cols: slices.Clone(a.cols), Method: "btree", Implicit: true}}
		key, err := compileIndexKey(e.cat, a.rel, obj.Index)
		if err != nil {
			e.undoAutoIndexes(made)
			return nil, err
		}
		obj.ID = e.allocID(b)
		if err := e.persistObject(obj, b); err != nil {
			e.undoAutoIndexes(made)
			return nil, err
		}
		if err := e.cat.add(obj); err != nil {
			e.undoAutoIndexes(made)
			return nil, err
		}
		e.colls[a.rel.ID].AddIndexKey(obj.ID, key.storageKey(), b)
		made = append(made, obj)
	}
	return made, nil
}

// describeAutoIndexes prints, for EXPLAIN of a materialized view, the
// automatic indexes creating it would add. The caller holds e.mu.
func (e *Engine) describeAutoIndexes(plan *dataflow.Plan) string {
	var sb strings.Builder
	for _, a := range e.viewAutos(e.cat, plan) {
		var names []string
		for _, c := range a.cols {
			names = append(names, a.rel.Columns[c].Name)
		}
		fmt.Fprintf(&sb, "automatic index on %s (%s), shared\n", a.rel.Name, strings.Join(names, ", "))
	}
	if sb.Len() == 0 {
		return ""
	}
	return "Creates:\n" + sb.String()
}

// viewAutoIndexes creates, logging to b, the automatic indexes the
// dataflow of the new materialized view obj needs (autoIndexes).
func (e *Engine) viewAutoIndexes(obj *Object, b *storage.Batch) ([]*Object, error) {
	text, err := e.planView(obj)
	if err != nil {
		return nil, err
	}
	plan, err := dataflow.Parse(text)
	if err != nil {
		return nil, err
	}
	return e.createAutoIndexes(e.viewAutos(e.cat, plan), b)
}

// viewAutos returns the automatic indexes a new view's plan needs: those
// of its delta joins (deltajoin.go), then those of its binary joins.
func (e *Engine) viewAutos(cat *Catalog, plan *dataflow.Plan) []autoIndex {
	plan, _, autos := e.deltaJoins(cat, plan, nil)
	for _, a := range e.autoIndexes(cat, plan) {
		if !containsAuto(autos, a) {
			autos = append(autos, a)
		}
	}
	return autos
}

// undoAutoIndexes removes indexes createAutoIndexes made (their batch is
// discarded by the caller).
func (e *Engine) undoAutoIndexes(made []*Object) {
	for _, o := range made {
		e.cat.remove(o)
		if c := e.colls[o.Index.Table]; c != nil {
			c.DropIndex(o.ID, nil)
		}
	}
}

// orphanedAutoIndexes returns the automatic indexes that victims read
// and nothing outside victims still reads: they go with the last view
// that needed them.
func (e *Engine) orphanedAutoIndexes(victims []*Object) []*Object {
	gone := map[uint64]bool{}
	for _, v := range victims {
		gone[v.ID] = true
	}
	var out []*Object
	for _, v := range victims {
		for _, id := range v.Deps {
			ix := e.cat.byID[id]
			if ix == nil || ix.Index == nil || !ix.Index.Implicit || gone[id] {
				continue
			}
			if !slices.ContainsFunc(e.cat.dependents(id), func(d *Object) bool { return !gone[d.ID] }) {
				gone[id] = true
				out = append(out, ix)
			}
		}
	}
	return out
}
