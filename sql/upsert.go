package sql

import (
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// arbiter is one unique key that ON CONFLICT tests: its columns and the
// live rows by key (as the transaction sees them, updated as the
// statement proceeds).
type arbiter struct {
	cols []int
	rows map[string]types.Row
}

// arbiters resolves the conflict target of ON CONFLICT to unique keys of
// the table: the primary key or a UNIQUE constraint whose columns are the
// target's (as a set), the constraint named by ON CONSTRAINT, or, with no
// target (DO NOTHING), every unique key.
func arbiterKeys(obj *Object, oc *planner.OnConflict) ([][]int, error) {
	keys := [][]int{}
	if obj.PrimaryKey != nil {
		keys = append(keys, obj.PrimaryKey)
	}
	for _, k := range obj.Constraints {
		if k.Kind == "unique" {
			keys = append(keys, k.Cols)
		}
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
	keys, err := arbiterKeys(obj, oc)
	if err != nil {
		return nil, err
	}
	arbs := make([]*arbiter, len(keys))
	for i, k := range keys {
		arbs[i] = &arbiter{cols: k, rows: map[string]types.Row{}}
	}
	for _, u := range e.liveRows(ins.Table, ws) {
		for _, a := range arbs {
			if k, ok := keyOf(u.Row, a.cols); ok {
				a.rows[k] = u.Row
			}
		}
	}
	id := uint64(ins.Table.ID)
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
	return out, e.checkPrimaryKey(obj, ins.Table, ws)
}

// conflicting returns the live row that r conflicts with on an arbiter
// key, or nil.
func conflicting(arbs []*arbiter, r types.Row) types.Row {
	for _, a := range arbs {
		if k, ok := keyOf(r, a.cols); ok {
			if x := a.rows[k]; x != nil {
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
				delete(a.rows, k)
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
		if !ok || a.rows[k] == nil {
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

// checkPrimaryKey checks that no primary key is live twice after a
// statement that wrote ws without the usual insert-time probes.
func (e *Engine) checkPrimaryKey(obj *Object, t *planner.Relation, ws *writeSet) error {
	if obj.PrimaryKey == nil {
		return nil
	}
	counts := map[string]int64{}
	for _, u := range e.liveRows(t, ws) {
		k, _ := keyOf(u.Row, obj.PrimaryKey)
		counts[k] += u.Diff
		if counts[k] > 1 {
			return duplicateKey(obj, u.Row)
		}
	}
	return nil
}
