package sql

import (
	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// arbiter is one unique key that ON CONFLICT tests: its columns, the
// rows this statement wrote or removed by key (nil: removed), and a
// lookup of the rows the transaction saw before the statement.
type arbiter struct {
	cols []int
	rows map[string]types.Row
	base func(key string) types.Row
}

// lookup returns the live row with key, or nil.
func (a *arbiter) lookup(key string) types.Row {
	if r, ok := a.rows[key]; ok {
		return r
	}
	return a.base(key)
}

// present stands for a live row when only its existence matters (DO
// NOTHING).
var present = types.Row{}

// newArbiter builds the lookup of one arbiter key: existence by key index
// for DO NOTHING, the row by the primary key's collection for a primary
// key, else a map built by one scan of the table.
func (e *Engine) newArbiter(obj *Object, cols []int, ws *writeSet, doUpdate bool) *arbiter {
	a := &arbiter{cols: cols, rows: map[string]types.Row{}}
	switch {
	case !doUpdate:
		e.mu.RLock()
		live := e.liveKeyOf(obj, cols, ws)
		e.mu.RUnlock()
		a.base = func(key string) types.Row {
			e.mu.RLock()
			defer e.mu.RUnlock()
			if live([]byte(key)) {
				return present
			}
			return nil
		}
	case samePrefix(cols, obj.PrimaryKey):
		pend := map[string][]exec.Update{}
		for _, u := range ws.pending(obj.ID) {
			k, _ := keyOf(u.Row, cols)
			pend[k] = append(pend[k], u)
		}
		e.mu.RLock()
		coll := e.colls[obj.ID]
		e.mu.RUnlock()
		a.base = func(key string) types.Row {
			e.mu.RLock()
			r, n, ok := coll.Get([]byte(key))
			e.mu.RUnlock()
			us := pend[key]
			if ok {
				us = append([]exec.Update{{Row: r, Diff: n}}, us...)
			}
			for _, u := range exec.Consolidate(us) {
				if u.Diff > 0 {
					return u.Row
				}
			}
			return nil
		}
	default:
		all := map[string]types.Row{}
		for _, u := range e.liveRows(obj.rel, ws) {
			if k, ok := keyOf(u.Row, cols); ok {
				all[k] = u.Row
			}
		}
		a.base = func(key string) types.Row { return all[key] }
	}
	return a
}

// arbiters resolves the conflict target of ON CONFLICT to unique keys of
// the table: the primary key or a UNIQUE constraint whose columns are the
// target's (as a set), the constraint named by ON CONSTRAINT, or, with no
// target (DO NOTHING), every unique key. uniques are the table's UNIQUE
// constraints and indexes (Catalog.uniqueKeys).
func arbiterKeys(obj *Object, uniques []Constraint, oc *planner.OnConflict) ([][]int, error) {
	keys := [][]int{}
	if obj.PrimaryKey != nil {
		keys = append(keys, obj.PrimaryKey)
	}
	for _, k := range uniques {
		keys = append(keys, k.Cols)
	}
	switch {
	case oc.Constraint != "":
		if oc.Constraint == obj.Name+"_pkey" && obj.PrimaryKey != nil {
			return [][]int{obj.PrimaryKey}, nil
		}
		for _, k := range obj.Constraints {
			if k.Name == oc.Constraint && k.Kind == "unique" {
				return [][]int{k.Cols}, nil
			}
			if k.Name == oc.Constraint {
				return nil, pgerr.New(pgerr.CodeWrongObjectType, "constraint in ON CONFLICT clause has no associated index")
			}
		}
		return nil, pgerr.New(pgerr.CodeUndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", oc.Constraint, obj.Name)
	case len(oc.Cols) > 0:
		for _, k := range keys {
			if sameSet(k, oc.Cols) {
				return [][]int{k}, nil
			}
		}
		return nil, pgerr.New("42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	return keys, nil
}

// upsertRows executes INSERT ... ON CONFLICT: each proposed row, in
// order, is inserted unless it conflicts on an arbiter key with a live
// row (or one this statement inserted); then DO NOTHING skips it and DO
// UPDATE replaces the existing row by SET (over the existing and the
// proposed row) when WHERE holds. A row that this statement inserted or
// updated cannot be updated again (21000). It returns the inserted and
// updated rows.
func (e *Engine) upsertRows(ins *planner.Insert, ctx *scalar.Ctx, ws *writeSet) ([]types.Row, error) {
	rows, ok, err := valuesRows(ins.Source, ctx)
	if !ok {
		rows, err = e.runQuery(ins.Source, ctx, ws)
	}
	if err != nil {
		return nil, err
	}
	obj := e.objectOf(ins.Table)
	oc := ins.OnConflict
	e.mu.RLock()
	uniques := e.cat.uniqueKeys(obj)
	e.mu.RUnlock()
	keys, err := arbiterKeys(obj, uniques, oc)
	if err != nil {
		return nil, err
	}
	arbs := make([]*arbiter, len(keys))
	for i, k := range keys {
		arbs[i] = e.newArbiter(obj, k, ws, oc.DoUpdate)
	}
	id := uint64(ins.Table.ID)
	mark := ws.mark()
	touched := map[string]bool{} // rows this statement wrote, by full encoding
	var out []types.Row
	for _, r := range rows {
		if err := checkNotNull(ins.Table, r); err != nil {
			return nil, err
		}
		existing := conflicting(arbs, r)
		if existing == nil {
			ws.add(id, r, 1)
			index(arbs, r, true)
			touched[rowKey(r)] = true
			out = append(out, r)
			continue
		}
		if !oc.DoUpdate {
			continue
		}
		if touched[rowKey(existing)] {
			return nil, pgerr.New(pgerr.CodeCardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
				WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
		}
		both := append(append(types.Row(nil), existing...), r...)
		if oc.Where != nil {
			ok, err := isTrue(oc.Where, ctx, both)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		nr := make(types.Row, len(oc.Set))
		for j, x := range oc.Set {
			if nr[j], err = x.Eval(ctx, both); err != nil {
				return nil, err
			}
		}
		if err := checkNotNull(ins.Table, nr); err != nil {
			return nil, err
		}
		ws.add(id, existing, -1)
		ws.add(id, nr, 1)
		index(arbs, existing, false)
		if conflicting(arbs, nr) != nil {
			return nil, e.keyConflict(obj, arbs, nr)
		}
		index(arbs, nr, true)
		touched[rowKey(nr)] = true
		out = append(out, nr)
	}
	return out, e.checkPrimaryKey(obj, ws, mark)
}

// conflicting returns the live row that r conflicts with on an arbiter
// key, or nil.
func conflicting(arbs []*arbiter, r types.Row) types.Row {
	for _, a := range arbs {
		if k, ok := keyOf(r, a.cols); ok {
			if x := a.lookup(k); x != nil {
				return x
			}
		}
	}
	return nil
}

// index adds r to (or removes it from) the arbiters' rows.
func index(arbs []*arbiter, r types.Row, add bool) {
	for _, a := range arbs {
		if k, ok := keyOf(r, a.cols); ok {
			if add {
				a.rows[k] = r
			} else {
				a.rows[k] = nil
			}
		}
	}
}

func rowKey(r types.Row) string { return string(types.AppendRow(nil, r)) }

// keyConflict reports an updated row that collides with another on an
// arbiter key: a unique violation naming that key's constraint.
func (e *Engine) keyConflict(obj *Object, arbs []*arbiter, r types.Row) error {
	for _, a := range arbs {
		k, ok := keyOf(r, a.cols)
		if !ok || a.lookup(k) == nil {
			continue
		}
		if sameSet(a.cols, obj.PrimaryKey) {
			return duplicateKey(obj, r)
		}
		for _, c := range obj.Constraints {
			if c.Kind == "unique" && sameSet(c.Cols, a.cols) {
				return uniqueViolation(obj, c.Name, c.Cols, r)
			}
		}
	}
	return duplicateKey(obj, r)
}

// checkPrimaryKey checks that the rows a statement added to ws (since
// mark) leave no primary key live twice (upserts write ws without the
// usual insert-time probes).
func (e *Engine) checkPrimaryKey(obj *Object, ws *writeSet, mark wsMark) error {
	if obj.PrimaryKey == nil {
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	ks := &keySet{coll: e.colls[obj.ID], cols: obj.PrimaryKey, overlay: map[string]int64{}}
	for _, u := range ws.pending(obj.ID) {
		ks.overlay[string(ks.key(u.Row))] += u.Diff
	}
	for _, u := range ws.since(mark, obj.ID) {
		if u.Diff <= 0 {
			continue
		}
		k := ks.key(u.Row)
		n := ks.overlay[string(k)]
		if _, c, ok := ks.coll.Get(k); ok {
			n += c
		}
		if n > 1 {
			return duplicateKey(obj, u.Row)
		}
	}
	return nil
}
