package sql

import (
	"strings"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Constraint enforcement at the end of a statement, as PostgreSQL checks
// non-deferred constraints: over the statement's changes (ws since a mark)
// against the rows the transaction sees (committed contents plus ws).
// CHECK costs one evaluation per new row; UNIQUE and FOREIGN KEY cost a
// scan of the tables involved, and only tables that have such constraints
// (or are referenced by one) pay it. ON DELETE CASCADE and SET NULL add
// their changes to ws, which are checked in turn.
//
// The checks run outside the engine's write lock, so two concurrent
// transactions can each pass a UNIQUE or FOREIGN KEY check that their
// combination violates (the primary key alone is re-checked at commit).

// checkStatement checks the changes made to ws since m. deleting says
// that the statement deletes rows (DELETE), so a referenced row's removal
// runs the foreign keys' ON DELETE actions; otherwise (UPDATE) it is an
// error while referenced.
func (e *Engine) checkStatement(ws *writeSet, m wsMark, ctx *expr.Ctx, deleting bool) error {
	done := wsMark{}
	for id, n := range m {
		done[id] = n
	}
	for progress := true; progress; {
		progress = false
		for _, id := range append([]uint64(nil), ws.order...) {
			changes := ws.changes[id][done[id]:]
			if len(changes) == 0 {
				continue
			}
			done[id], progress = len(ws.changes[id]), true
			var obj *Object
			var refs []fkRef
			e.readLocked(func() {
				obj = e.cat.byID[id]
				refs = e.referencing(id)
			})
			if obj == nil {
				continue
			}
			if err := e.checkTable(obj, refs, changes, ws, ctx, deleting); err != nil {
				return err
			}
		}
	}
	return nil
}

// fkRef is a foreign key of table child referencing another table.
type fkRef struct {
	child *Object
	k     *Constraint
}

// referencing returns the foreign keys that reference table id. The
// caller holds e.mu.
func (e *Engine) referencing(id uint64) []fkRef {
	c := e.cat
	c.refsMu.Lock()
	defer c.refsMu.Unlock()
	if c.refsVersion != c.version || c.refs == nil {
		c.refs = map[uint64][]fkRef{}
		for _, o := range c.objects() {
			for i := range o.Constraints {
				if k := &o.Constraints[i]; k.Kind == "foreign" {
					c.refs[k.RefTable] = append(c.refs[k.RefTable], fkRef{o, k})
				}
			}
		}
		c.refsVersion = c.version
	}
	return c.refs[id]
}

// checkTable checks one table's changes.
func (e *Engine) checkTable(obj *Object, refs []fkRef, changes []repr.Update, ws *writeSet, ctx *expr.Ctx, deleting bool) error {
	var unique, computed bool
	e.readLocked(func() {
		unique = len(e.cat.uniqueKeys(obj)) > 0
		computed = len(e.cat.exprIndexes(obj)) > 0
	})
	if len(obj.Constraints) == 0 && len(refs) == 0 && !unique && !computed {
		return nil
	}
	var ins, del []repr.Row
	// Net changes: a row written and replaced in the same statement (by
	// two foreign keys' actions) is not checked.
	for _, u := range exec.Consolidate(append([]repr.Update(nil), changes...)) {
		if u.Diff > 0 {
			ins = append(ins, u.Row)
		} else if u.Diff < 0 {
			del = append(del, u.Row)
		}
	}
	if len(ins) > 0 {
		if err := e.checkChecks(obj, ins, ctx); err != nil {
			return err
		}
		if err := e.checkIndexExprs(obj, ins); err != nil {
			return err
		}
		if unique { // PostgreSQL's primary key index is checked first
			if err := e.checkPrimaryKeyRows(obj, ws, ins); err != nil {
				return err
			}
		}
		if err := e.checkUnique(obj, ins, ws); err != nil {
			return err
		}
		if err := e.checkForeignKeys(obj, ins, ws); err != nil {
			return err
		}
	}
	if len(del) > 0 && len(refs) > 0 {
		return e.checkReferenced(obj, refs, del, updatePairs(changes), ws, deleting)
	}
	return nil
}

// updatePairs maps each row an UPDATE retracted (by its full encoding) to
// the row that replaced it: an UPDATE statement writes all retractions,
// then the new rows in the same order; ON CONFLICT DO UPDATE writes each
// retraction right before its new row.
func updatePairs(changes []repr.Update) map[string]repr.Row {
	out := map[string]repr.Row{}
	n := 0
	for n < len(changes) && changes[n].Diff < 0 {
		n++
	}
	if 2*n == len(changes) {
		for i := 0; i < n; i++ {
			if changes[n+i].Diff <= 0 {
				return out
			}
			out[rowKey(changes[i].Row)] = changes[n+i].Row
		}
		return out
	}
	for i := 0; i+1 < len(changes); i++ {
		if changes[i].Diff < 0 && changes[i+1].Diff > 0 {
			out[rowKey(changes[i].Row)] = changes[i+1].Row
		}
	}
	return out
}

// checkChecks evaluates the CHECK constraints over new rows: 23514 when
// one is false (NULL passes).
func (e *Engine) checkChecks(obj *Object, rows []repr.Row, ctx *expr.Ctx) error {
	for i, x := range obj.checks {
		if x == nil {
			continue
		}
		for _, r := range rows {
			d, err := x.Eval(ctx, r)
			if err != nil {
				return err
			}
			if !d.IsNull() && !d.Bool() {
				return repr.Errorf("23514", "new row for relation \"%s\" violates check constraint \"%s\"", obj.Name, obj.Constraints[i].Name).
					WithDetail("Failing row contains (%s).", formatRow(obj, r))
			}
		}
	}
	return nil
}

// formatRow prints a row as PostgreSQL's constraint errors do.
func formatRow(obj *Object, r repr.Row) string {
	vals := make([]string, len(r))
	for i, d := range r {
		if d.IsNull() {
			vals[i] = "null"
		} else if i < len(obj.Columns) {
			vals[i] = repr.FormatText(d, obj.Columns[i].Type, nil)
		}
	}
	return strings.Join(vals, ", ")
}

// keyOf encodes row's cols, or returns false when one is NULL (NULLs are
// distinct: such a row never conflicts or references).
func keyOf(row repr.Row, cols []int) (string, bool) {
	for _, c := range cols {
		if row[c].IsNull() {
			return "", false
		}
	}
	return string(repr.AppendColsKey(nil, row, cols)), true
}

// liveKey answers whether a key of table obj's cols is live as the
// transaction sees it: by the primary key's collection when cols are the
// primary key, else by a key index; both plus ws's pending changes.
type liveKey func(key []byte) bool

// liveKeyOf returns a liveKey for obj's cols. The caller holds e.mu
// shared while using it.
func (e *Engine) liveKeyOf(obj *Object, cols []int, ws *writeSet) liveKey {
	if samePrefix(cols, obj.PrimaryKey) {
		ks := &keySet{coll: e.colls[obj.ID], cols: obj.PrimaryKey, overlay: map[string]int64{}}
		for _, u := range ws.pending(obj.ID) {
			ks.overlay[string(ks.key(u.Row))] += u.Diff
		}
		return ks.has
	}
	ix := e.keyIndex(obj.ID, cols)
	delta := deltaCounts(ws.pending(obj.ID), cols)
	return func(key []byte) bool { return ix.count(string(key), delta) > 0 }
}

// samePrefix reports whether a and b are the same columns in the same
// order.
func samePrefix(a, b []int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkUnique checks the UNIQUE constraints for new rows: 23505.
func (e *Engine) checkUnique(obj *Object, rows []repr.Row, ws *writeSet) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.checkUniqueLocked(obj, rows, ws, false)
}

// checkUniqueLocked is checkUnique with e.mu held; atCommit includes
// the deferred constraints. UNIQUE indexes are checked as UNIQUE
// constraints (Catalog.uniqueKeys), counted by their own arrangements.
func (e *Engine) checkUniqueLocked(obj *Object, rows []repr.Row, ws *writeSet, atCommit bool) error {
	ctx := &expr.Ctx{}
	for _, k := range e.cat.uniqueKeys(obj) {
		if k.deferred && !atCommit {
			continue
		}
		ix := e.uniqueCounts(obj.ID, k)
		delta, err := k.key.deltaCounts(ctx, ws.pending(obj.ID))
		if err != nil {
			return err
		}
		for _, r := range rows {
			key, ok, err := k.key.unique(ctx, r)
			if err != nil {
				return err
			}
			if ok && ix.count(key, delta) > 1 {
				return uniqueViolation(obj, k.name, k.key, r)
			}
		}
	}
	return nil
}

// uniqueCounts returns the key counts of a unique key of table: a UNIQUE
// index's own arrangement, else a key index on the constraint's columns.
// The caller holds e.mu.
func (e *Engine) uniqueCounts(table uint64, k uniqueKey) *keyIndex {
	if k.index != 0 {
		return &keyIndex{coll: e.colls[table], ix: k.index}
	}
	return e.keyIndexNulls(table, k.key.cols, k.key.nullsEqual)
}

// deltaCounts counts changes by the unique key (rows that cannot
// conflict are not counted).
func (k *indexKey) deltaCounts(ctx *expr.Ctx, changes []repr.Update) (map[string]int64, error) {
	out := map[string]int64{}
	for _, u := range changes {
		key, ok, err := k.unique(ctx, u.Row)
		if err != nil {
			return nil, err
		}
		if ok {
			out[key] += u.Diff
		}
	}
	return out, nil
}

// checkIndexExprs evaluates the expressions and predicates of obj's
// indexes over new rows, so that a row whose index key cannot be
// computed fails its statement, as in PostgreSQL.
func (e *Engine) checkIndexExprs(obj *Object, rows []repr.Row) error {
	var ixs []*Object
	e.readLocked(func() {
		ixs = e.cat.exprIndexes(obj)
	})
	ctx := &expr.Ctx{}
	for _, ix := range ixs {
		for _, r := range rows {
			if _, _, err := ix.ixKey.encode(ctx, nil, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func uniqueViolation(obj *Object, name string, key *indexKey, r repr.Row) error {
	names, vals := key.text(&expr.Ctx{}, r)
	return repr.Errorf(repr.CodeUniqueViolation, "duplicate key value violates unique constraint \"%s\"", name).
		WithDetail("Key (%s)=(%s) already exists.", names, vals)
}

// keyText prints a key of cols of row r as PostgreSQL's DETAIL does
// (NULL as null: NULLS NOT DISTINCT keys may hold it).
func keyText(obj *Object, cols []int, r repr.Row) (string, string) {
	var names, vals []string
	for _, i := range cols {
		names = append(names, obj.Columns[i].Name)
		if r[i].IsNull() {
			vals = append(vals, "null")
		} else {
			vals = append(vals, repr.FormatText(r[i], obj.Columns[i].Type, nil))
		}
	}
	return strings.Join(names, ", "), strings.Join(vals, ", ")
}

// checkForeignKeys checks that new rows' foreign keys reference live rows:
// 23503.
func (e *Engine) checkForeignKeys(obj *Object, rows []repr.Row, ws *writeSet) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.checkForeignKeysLocked(obj, rows, ws, false)
}

// checkForeignKeysLocked is checkForeignKeys with e.mu held; atCommit
// includes the deferred constraints.
func (e *Engine) checkForeignKeysLocked(obj *Object, rows []repr.Row, ws *writeSet, atCommit bool) error {
	for _, k := range obj.Constraints {
		if k.Kind != "foreign" || k.Deferred && !atCommit {
			continue
		}
		parent := e.cat.byID[k.RefTable]
		if parent == nil {
			continue
		}
		live := e.liveKeyOf(parent, k.RefCols, ws)
		for _, r := range rows {
			if key, ok := keyOf(r, k.Cols); ok && !live([]byte(key)) {
				names, vals := keyText(obj, k.Cols, r)
				return repr.Errorf("23503", "insert or update on table \"%s\" violates foreign key constraint \"%s\"", obj.Name, k.Name).
					WithDetail("Key (%s)=(%s) is not present in table \"%s\".", names, vals, parent.Name)
			}
		}
	}
	return nil
}

// checkReferenced handles removed rows of a referenced table: a key no
// longer present that a referencing row still uses is an error (NO
// ACTION, RESTRICT, and any removal by UPDATE), or, for a DELETE, deletes
// the referencing rows (CASCADE) or sets their key to NULL (SET NULL).
func (e *Engine) checkReferenced(obj *Object, refs []fkRef, del []repr.Row, pairs map[string]repr.Row, ws *writeSet, deleting bool) error {
	for _, ref := range refs {
		k := ref.k
		gone, err := e.goneReferenced(obj, ref, del, ws)
		if err != nil {
			return err
		}
		if len(gone) == 0 {
			continue
		}
		action := k.OnDelete
		if !deleting {
			action = k.OnUpdate
		}
		child := ref.child
		if action == 'a' && k.Deferred {
			continue // checked at commit (checkAtCommit)
		}
		if action != 'c' && action != 'n' {
			for _, r := range gone {
				names, vals := keyText(obj, k.RefCols, r)
				return repr.Errorf("23503", "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", obj.Name, k.Name, child.Name).
					WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", names, vals, child.Name)
			}
		}
		changed := 0
		for _, u := range e.liveRows(child.rel, ws) {
			key, ok := keyOf(u.Row, k.Cols)
			if !ok || gone[key] == nil {
				continue
			}
			changed += int(max(u.Diff, -u.Diff))
			var to repr.Row // ON UPDATE CASCADE: the parent's new row
			if action == 'c' && !deleting {
				if to = pairs[rowKey(gone[key])]; to == nil {
					return repr.Unsupported("ON UPDATE CASCADE for a change that is not an UPDATE")
				}
			}
			ws.add(child.ID, u.Row, -u.Diff)
			if action == 'n' || to != nil {
				nr := append(repr.Row(nil), u.Row...)
				for j, c := range k.Cols {
					if to != nil {
						nr[c] = to[k.RefCols[j]]
					} else {
						nr[c] = repr.Null
					}
				}
				if err := checkNotNull(child.rel, nr); err != nil {
					return err
				}
				ws.add(child.ID, nr, u.Diff)
			}
		}
		e.countFKAction(ws, child.ID, action == 'c' && deleting, changed)
	}
	return nil
}

// countFKAction counts the n rows of table id a foreign key's action
// deleted (ON DELETE CASCADE) or updated (SET NULL, ON UPDATE CASCADE),
// as PostgreSQL counts the statements its RI triggers run.
func (e *Engine) countFKAction(ws *writeSet, id uint64, deleted bool, n int) {
	kind := byte('u')
	if deleted {
		kind = 'd'
	}
	e.countWrite(ws, id, kind, n)
	ws.countMods(id, n)
}

// goneReferenced returns, by key, the removed rows of obj whose key of
// ref is no longer live but still referenced by a row of ref's table.
func (e *Engine) goneReferenced(obj *Object, ref fkRef, del []repr.Row, ws *writeSet) (map[string]repr.Row, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.goneReferencedLocked(obj, ref, del, ws), nil
}

// goneReferencedLocked is goneReferenced with e.mu held.
func (e *Engine) goneReferencedLocked(obj *Object, ref fkRef, del []repr.Row, ws *writeSet) map[string]repr.Row {
	k := ref.k
	live := e.liveKeyOf(obj, k.RefCols, ws)
	child := e.keyIndex(ref.child.ID, k.Cols)
	delta := deltaCounts(ws.pending(ref.child.ID), k.Cols)
	var gone map[string]repr.Row
	for _, r := range del {
		key, ok := keyOf(r, k.RefCols)
		if !ok || live([]byte(key)) || child.count(key, delta) <= 0 {
			continue
		}
		if gone == nil {
			gone = map[string]repr.Row{}
		}
		gone[key] = r
	}
	return gone
}

// checkAtCommit re-checks a write set's UNIQUE and FOREIGN KEY constraints
// as it commits, under the engine's write lock and before its changes are
// applied (the statements checked them against a state that a concurrent
// commit may have changed since): the committed rows plus ws must hold no
// duplicate unique key, no reference to a missing key, and no missing key
// still referenced. The caller holds e.mu exclusively.
func (e *Engine) checkAtCommit(ws *writeSet) error {
	for _, id := range ws.order {
		obj := e.cat.byID[id]
		if obj == nil {
			continue
		}
		refs := e.referencing(id)
		if len(obj.Constraints) == 0 && len(refs) == 0 && len(e.cat.uniqueKeys(obj)) == 0 {
			continue
		}
		var ins, del []repr.Row
		for _, u := range exec.Consolidate(append([]repr.Update(nil), ws.changes[id]...)) {
			if u.Diff > 0 {
				ins = append(ins, u.Row)
			} else if u.Diff < 0 {
				del = append(del, u.Row)
			}
		}
		if err := e.checkUniqueLocked(obj, ins, ws, true); err != nil {
			return err
		}
		if err := e.checkForeignKeysLocked(obj, ins, ws, true); err != nil {
			return err
		}
		for _, ref := range refs {
			for _, r := range e.goneReferencedLocked(obj, ref, del, ws) {
				names, vals := keyText(obj, ref.k.RefCols, r)
				return repr.Errorf("23503", "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", obj.Name, ref.k.Name, ref.child.Name).
					WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", names, vals, ref.child.Name)
			}
		}
	}
	return nil
}

// truncateReferencing returns the tables that reference the truncated
// ones and are not truncated with them: with CASCADE they are truncated
// too, else it is an error (0A000), as in PostgreSQL.
func (e *Engine) truncateReferencing(rels []*planner.Relation, seen map[uint64]bool, cascade bool) ([]*planner.Relation, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []*planner.Relation
	for i := 0; i < len(rels)+len(out); i++ {
		var r *planner.Relation
		if i < len(rels) {
			r = rels[i]
		} else {
			r = out[i-len(rels)]
		}
		for _, ref := range e.referencing(uint64(r.ID)) {
			if seen[ref.child.ID] {
				continue
			}
			if !cascade {
				return nil, repr.Errorf(repr.CodeFeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
					WithDetail("Table \"%s\" references \"%s\".", ref.child.Name, r.Name).
					WithHint("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", ref.child.Name)
			}
			seen[ref.child.ID] = true
			out = append(out, ref.child.rel)
		}
	}
	return out, nil
}

// validateExisting checks a table's rows (in its new shape, after ALTER
// TABLE) against its NOT NULL, CHECK, UNIQUE and FOREIGN KEY constraints,
// with PostgreSQL's messages for existing rows. The caller holds e.mu.
func (e *Engine) validateExisting(obj *Object, rows []repr.Row, counts []int64, ctx *expr.Ctx) error {
	for _, r := range rows {
		for i, c := range obj.Columns {
			if c.NotNull && r[i].IsNull() {
				return repr.Errorf(repr.CodeNotNullViolation, "column \"%s\" of relation \"%s\" contains null values", c.Name, obj.Name)
			}
		}
	}
	for i, x := range obj.checks {
		if x == nil {
			continue
		}
		for _, r := range rows {
			d, err := x.Eval(ctx, r)
			if err != nil {
				return err
			}
			if !d.IsNull() && !d.Bool() {
				return repr.Errorf("23514", "check constraint \"%s\" of relation \"%s\" is violated by some row", obj.Constraints[i].Name, obj.Name)
			}
		}
	}
	for _, k := range obj.Constraints {
		switch k.Kind {
		case "unique":
			seen := map[string]bool{}
			for j, r := range rows {
				key, ok := keyOf(r, k.Cols)
				if k.NullsNotDistinct {
					key, ok = string(repr.AppendColsKey(nil, r, k.Cols)), true
				}
				if ok && (seen[key] || counts[j] > 1) {
					names, vals := keyText(obj, k.Cols, r)
					return repr.Errorf(repr.CodeUniqueViolation, "could not create unique index \"%s\"", k.Name).
						WithDetail("Key (%s)=(%s) is duplicated.", names, vals)
				}
				seen[key] = true
			}
		case "foreign":
			parent := e.cat.byID[k.RefTable]
			if parent == nil {
				continue
			}
			keys := map[string]bool{}
			src := rows
			if parent.ID != obj.ID {
				src = nil
				if c := e.colls[parent.ID]; c != nil {
					c.Scan(func(r repr.Row, _ int64) bool { src = append(src, r); return true })
				}
			}
			for _, r := range src {
				if key, ok := keyOf(r, k.RefCols); ok {
					keys[key] = true
				}
			}
			for _, r := range rows {
				if key, ok := keyOf(r, k.Cols); ok && !keys[key] {
					names, vals := keyText(obj, k.Cols, r)
					return repr.Errorf("23503", "insert or update on table \"%s\" violates foreign key constraint \"%s\"", obj.Name, k.Name).
						WithDetail("Key (%s)=(%s) is not present in table \"%s\".", names, vals, parent.Name)
				}
			}
		}
	}
	return nil
}
