package sql

import (
	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// arbiter is one unique key that ON CONFLICT tests: the key (primary
// for the primary key), the rows this statement wrote or removed by key
// (nil: removed), and a lookup of the rows the transaction saw before the
// statement.
type arbiter struct {
	uk      uniqueKey
	primary bool
	rows    map[string]repr.Row
	base    func(key string) repr.Row
}

// lookup returns the live row with key, or nil.
func (a *arbiter) lookup(key string) repr.Row {
	if r, ok := a.rows[key]; ok {
		return r
	}
	return a.base(key)
}

// present stands for a live row when only its existence matters (DO
// NOTHING).
var present = repr.Row{}

// newArbiter builds the lookup of one arbiter key: existence by key
// counts for DO NOTHING, the row by the primary key's collection for a
// primary key, else a map built by one scan of the table.
func (e *Engine) newArbiter(obj *Object, k uniqueKey, primary bool, ws *writeSet, doUpdate bool) (*arbiter, error) {
	a := &arbiter{uk: k, primary: primary, rows: map[string]repr.Row{}}
	ctx := &expr.Ctx{}
	switch {
	case !doUpdate && primary:
		var live liveKey
		e.readLocked(func() {
			live = e.liveKeyOf(obj, obj.PrimaryKey, ws)
		})
		a.base = func(key string) repr.Row {
			e.mu.RLock()
			defer e.mu.RUnlock()
			if live([]byte(key)) {
				return present
			}
			return nil
		}
	case !doUpdate:
		var counts *keyIndex
		e.readLocked(func() {
			counts = e.uniqueCounts(obj.ID, k)
		})
		delta, err := k.key.deltaCounts(ctx, ws.pending(obj.ID))
		if err != nil {
			return nil, err
		}
		a.base = func(key string) repr.Row {
			e.mu.RLock()
			defer e.mu.RUnlock()
			if counts.count(key, delta) > 0 {
				return present
			}
			return nil
		}
	case primary:
		a.base = e.primaryLookup(obj, ws)
	default:
		all := map[string]repr.Row{}
		for _, u := range e.liveRows(obj.rel, ws) {
			key, ok, err := k.key.unique(ctx, u.Row)
			if err != nil {
				return nil, err
			}
			if ok {
				all[key] = u.Row
			}
		}
		a.base = func(key string) repr.Row { return all[key] }
	}
	return a, nil
}

// primaryLookup returns the live row of obj by primary key as the
// transaction sees it (ws's pending changes over the collection).
func (e *Engine) primaryLookup(obj *Object, ws *writeSet) func(key string) repr.Row {
	cols := obj.PrimaryKey
	pend := map[string][]repr.Update{}
	for _, u := range ws.pending(obj.ID) {
		k, _ := keyOf(u.Row, cols)
		pend[k] = append(pend[k], u)
	}
	var coll *storage.Collection
	e.readLocked(func() {
		coll = e.colls[obj.ID]
	})
	return func(key string) repr.Row {
		var r repr.Row
		var n int64
		var ok bool
		e.readLocked(func() {
			r, n, ok = coll.Get([]byte(key))
		})
		us := pend[key]
		if ok {
			us = append([]repr.Update{{Row: r, Diff: n}}, us...)
		}
		for _, u := range exec.Consolidate(us) {
			if u.Diff > 0 {
				return u.Row
			}
		}
		return nil
	}
}

// candidate is a unique key ON CONFLICT may use as an arbiter.
type candidate struct {
	uk      uniqueKey
	primary bool
}

// arbiterKeys resolves the conflict target of ON CONFLICT to unique keys
// of the table as PostgreSQL's infer_arbiter_indexes does: every unique
// key (the primary key, UNIQUE constraints and indexes) whose key parts
// are, as a set, the target's columns and expressions and whose
// predicate (a partial index's) follows from the target's WHERE; the
// constraint named by ON CONSTRAINT; or, with no target (DO NOTHING),
// every unique key. uniques are the table's UNIQUE constraints and
// indexes (Catalog.uniqueKeys).
func arbiterKeys(obj *Object, uniques []uniqueKey, oc *planner.OnConflict) ([]candidate, error) {
	var keys []candidate
	if obj.PrimaryKey != nil {
		keys = append(keys, candidate{uk: uniqueKey{name: obj.pkeyName(), key: colsKey(obj, obj.PrimaryKey, false)}, primary: true})
	}
	for _, k := range uniques {
		keys = append(keys, candidate{uk: k})
	}
	switch {
	case oc.Constraint != "":
		for _, k := range obj.Constraints {
			if k.Name == oc.Constraint && k.Kind != "unique" {
				return nil, repr.Errorf(repr.CodeWrongObjectType, "constraint in ON CONFLICT clause has no associated index")
			}
		}
		for _, k := range keys {
			if k.uk.name == oc.Constraint && k.uk.index == 0 {
				return []candidate{k}, nil
			}
		}
		return nil, repr.Errorf(repr.CodeUndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", oc.Constraint, obj.Name)
	case len(oc.Exprs) > 0:
		return inferArbiters(keys, oc)
	}
	return keys, nil
}

// inferArbiters returns the keys matching an inference target (see
// arbiterKeys): 42P10 when none does.
func inferArbiters(keys []candidate, oc *planner.OnConflict) ([]candidate, error) {
	want := map[string]bool{}
	for _, x := range oc.Exprs {
		want[termOf(expr.Fold(x))] = true
	}
	conj := map[string]bool{}
	if oc.InferWhere != nil {
		conjuncts(expr.Fold(oc.InferWhere), conj)
	}
	var out []candidate
	for _, k := range keys {
		terms := k.uk.key.terms()
		same := len(terms) > 0
		got := map[string]bool{}
		for _, t := range terms {
			same, got[t] = same && want[t], true
		}
		if same && len(got) == len(want) && k.uk.key.impliedBy(conj) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, repr.Errorf("42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	return out, nil
}

// upsertRows executes INSERT ... ON CONFLICT: each proposed row, in
// order, is inserted unless it conflicts on an arbiter key with a live
// row (or one this statement inserted); then DO NOTHING skips it and DO
// UPDATE replaces the existing row by SET (over the existing and the
// proposed row) when WHERE holds. A row that this statement inserted or
// updated cannot be updated again (21000). It returns the inserted and
// updated rows.
func (e *Engine) upsertRows(ins *planner.Insert, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, error) {
	rows, ok, err := valuesRows(ins.Source, ctx)
	if !ok {
		rows, err = e.runQuery(ins.Source, ctx, ws.reader())
	}
	if err != nil {
		return nil, err
	}
	obj := e.objectOf(ins.Table)
	oc := ins.OnConflict
	var uniques []uniqueKey
	e.readLocked(func() {
		uniques = e.cat.uniqueKeys(obj)
	})
	keys, err := arbiterKeys(obj, uniques, oc)
	if err != nil {
		return nil, err
	}
	arbs := make([]*arbiter, len(keys))
	for i, k := range keys {
		// At REPEATABLE READ a conflicting row must be checked against the
		// snapshot, so even DO NOTHING looks the rows up.
		if arbs[i], err = e.newArbiter(obj, k.uk, k.primary, ws, oc.DoUpdate || snapshotOf(ws) != nil); err != nil {
			return nil, err
		}
	}
	id := uint64(ins.Table.ID)
	mark := ws.mark()
	touched := map[string]bool{} // rows this statement wrote, by full encoding
	var out []repr.Row
	for _, r := range rows {
		if err := checkNotNull(ins.Table, r); err != nil {
			return nil, err
		}
		existing, err := conflicting(arbs, ctx, r)
		if err != nil {
			return nil, err
		}
		if existing != nil {
			if err := e.checkVisible(id, existing, ws); err != nil {
				return nil, err
			}
		}
		if existing == nil {
			ws.add(id, r, 1)
			index(arbs, ctx, r, true)
			touched[rowKey(r)] = true
			out = append(out, r)
			continue
		}
		if !oc.DoUpdate {
			continue
		}
		if touched[rowKey(existing)] {
			return nil, repr.Errorf(repr.CodeCardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
				WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
		}
		both := append(append(repr.Row(nil), existing...), r...)
		if oc.Where != nil {
			ok, err := isTrue(oc.Where, ctx, both)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		nr := make(repr.Row, len(oc.Set))
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
		index(arbs, ctx, existing, false)
		if x, err := conflicting(arbs, ctx, nr); err != nil || x != nil {
			if err == nil {
				err = keyConflict(obj, arbs, ctx, nr)
			}
			return nil, err
		}
		index(arbs, ctx, nr, true)
		touched[rowKey(nr)] = true
		out = append(out, nr)
	}
	return out, e.checkPrimaryKey(obj, ws, mark)
}

// conflicting returns the live row that r conflicts with on an arbiter
// key, or nil.
func conflicting(arbs []*arbiter, ctx *expr.Ctx, r repr.Row) (repr.Row, error) {
	for _, a := range arbs {
		k, ok, err := a.uk.key.unique(ctx, r)
		if err != nil {
			return nil, err
		}
		if ok {
			if x := a.lookup(k); x != nil {
				return x, nil
			}
		}
	}
	return nil, nil
}

// index adds r to (or removes it from) the arbiters' rows (r's keys were
// computed before, by conflicting, so they evaluate).
func index(arbs []*arbiter, ctx *expr.Ctx, r repr.Row, add bool) {
	for _, a := range arbs {
		if k, ok, _ := a.uk.key.unique(ctx, r); ok {
			if add {
				a.rows[k] = r
			} else {
				a.rows[k] = nil
			}
		}
	}
}

func rowKey(r repr.Row) string { return string(repr.AppendRow(nil, r)) }

// keyConflict reports an updated row that collides with another on an
// arbiter key: a unique violation naming that key's constraint or index.
func keyConflict(obj *Object, arbs []*arbiter, ctx *expr.Ctx, r repr.Row) error {
	for _, a := range arbs {
		k, ok, _ := a.uk.key.unique(ctx, r)
		if !ok || a.lookup(k) == nil {
			continue
		}
		if a.primary {
			return duplicateKey(obj, r)
		}
		return uniqueViolation(obj, a.uk.name, a.uk.key, r)
	}
	return duplicateKey(obj, r)
}

// checkPrimaryKey checks that the rows a statement added to ws (since
// mark) leave no primary key live twice (upserts write ws without the
// usual insert-time probes).
func (e *Engine) checkPrimaryKey(obj *Object, ws *writeSet, mark wsMark) error {
	var rows []repr.Row
	for _, u := range ws.since(mark, obj.ID) {
		if u.Diff > 0 {
			rows = append(rows, u.Row)
		}
	}
	return e.checkPrimaryKeyRows(obj, ws, rows)
}

// checkPrimaryKeyRows checks that new rows (in ws) leave no primary key
// live twice.
func (e *Engine) checkPrimaryKeyRows(obj *Object, ws *writeSet, rows []repr.Row) error {
	if obj.PrimaryKey == nil {
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	ks := &keySet{coll: e.colls[obj.ID], cols: obj.PrimaryKey, overlay: map[string]int64{}}
	for _, u := range ws.pending(obj.ID) {
		ks.overlay[string(ks.key(u.Row))] += u.Diff
	}
	for _, r := range rows {
		k := ks.key(r)
		n := ks.overlay[string(k)]
		if _, c, ok := ks.coll.Get(k); ok {
			n += c
		}
		if n > 1 {
			return duplicateKey(obj, r)
		}
	}
	return nil
}
