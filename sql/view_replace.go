package sql

import (
	"fmt"

	"github.com/eddydb/eddy/storage"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// CREATE OR REPLACE VIEW over an existing view (PostgreSQL's
// DefineView/checkViewColumns): the view keeps its ID, owner, privileges
// and comments, and its new query must keep every column it had, by name
// and type, in order; new columns may only be appended (42P16 otherwise).
//
// A plain view is inlined wherever it is read, so the views over it see
// the new query at once, as PostgreSQL's do. Each transitive dependent is
// planned again under the changed catalog: a plain view must keep its
// columns (one reading the replaced view with * would gain the appended
// ones, where PostgreSQL's expanded its * when created). A materialized
// view whose stored dataflow would change is rebuilt (rebuildView):
// its contents and operator state belong to the old plan, and PostgreSQL
// keeps its old contents until REFRESH, but Eddy's are always fresh, so
// it is planned and backfilled again from its query under the new
// definition, keeping its ID, name, owner and privileges, as is every
// materialized view over it (their inputs' contents change), all in the
// replacement's atomic batch (or its transaction block). Its columns must
// stay the same, and no index, sink or subscription may hold its
// collection (0A000 otherwise). The dependents' Deps are recomputed,
// since the replaced query may read other relations.

// codeInvalidTableDefinition is PostgreSQL's 42P16, raised for a
// replacement that drops, renames or retypes a view column.
const codeInvalidTableDefinition = "42P16"

// codeInvalidRecursion is PostgreSQL's 42P17 (infinite recursion).
const codeInvalidRecursion = "42P17"

// replaceView replaces old (an existing object named as the new view nu)
// by nu, whose SQL is set. The caller holds e.mu.
func (e *Engine) replaceView(s *Session, old, nu *Object) error {
	if old.Kind != planner.RelView {
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a view", old.Name)
	}
	if err := e.checkOwner(s, old.Owner, "view", old.Name); err != nil {
		return err
	}
	cols, deps, err := e.describeQuery(nu.SQL, false, s.settings.timeZone)
	if err != nil {
		return err
	}
	if err := distinctColumns(cols); err != nil {
		return err
	}
	if err := checkViewColumns(old.Columns, cols); err != nil {
		return err
	}
	for _, d := range deps {
		if d == old.ID {
			return repr.Errorf(codeInvalidRecursion, "infinite recursion detected in rules for relation \"%s\"", old.Name)
		}
	}
	repl := old.clone()
	repl.SQL, repl.Deps = nu.SQL, deps
	repl.Columns = append(repl.Columns, cols[len(old.Columns):]...)
	also, rebuild, err := e.replacedDependents(old, repl)
	if err != nil {
		return err
	}
	if len(rebuild) == 0 {
		return e.commitAltered(old, repl, nil, also...)
	}
	return e.atomically(func() error {
		// The pending checkpoint must not follow the rebuilt views'
		// deletions, as for a DROP.
		if err := e.checkpointLocked(); err != nil {
			return err
		}
		if err := e.commitAltered(old, repl, nil, also...); err != nil {
			return err
		}
		for _, id := range rebuild {
			if err := e.rebuildView(e.cat.byID[id]); err != nil {
				return err
			}
		}
		return nil
	})
}

// rebuildView recomputes materialized view o from its query under the
// current catalog: a new plan, and contents and operator state backfilled
// from its inputs as a new view's are, under the same ID, name, owner and
// privileges, in one durable batch. The caller holds e.mu, inside
// atomically (a failure restores the engine).
func (e *Engine) rebuildView(o *Object) error {
	nu := o.clone()
	nu.Plan, nu.PlanRows, nu.RowKey = "", nil, nil
	_, deps, err := e.describeQuery(nu.SQL, true, nu.TimeZone)
	if err != nil {
		return err
	}
	nu.Deps = deps
	b := e.db.NewBatch()
	defer b.Close()
	b.DeletePrefix(storage.RowPrefix(o.ID))
	b.DeletePrefix(storage.StatePrefix(o.ID))
	if err := e.cat.replace(o, nu); err != nil {
		return err
	}
	delete(e.views, o.ID)
	delete(e.colls, o.ID)
	e.rowsSeen = map[uint64]int64{}
	defer func() { e.rowsSeen = nil }()
	if err := e.installView(nu, b, nil, nil, nil); err != nil {
		return err
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	e.views[nu.ID].df.Commit()
	e.colls[nu.ID].Commit()
	return nil
}

// checkViewColumns is PostgreSQL's checkViewColumns: the new columns
// extend the old ones.
func checkViewColumns(old, cols []ColumnDef) error {
	if len(cols) < len(old) {
		return repr.Errorf(codeInvalidTableDefinition, "cannot drop columns from view")
	}
	for i, o := range old {
		if cols[i].Name != o.Name {
			return repr.Errorf(codeInvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", o.Name, cols[i].Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if cols[i].Type != o.Type {
			return repr.Errorf(codeInvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s", o.Name, o.Type.Name(), cols[i].Type.Name())
		}
	}
	return nil
}

// replacedDependents checks every transitive dependent of old under the
// catalog where repl replaced it (see above) and returns each with its
// recomputed Deps, to be committed with repl.
func (e *Engine) replacedDependents(old, repl *Object) (also [][2]*Object, rebuild []uint64, err error) {
	deps := e.dropSet(old)[1:]
	if len(deps) == 0 {
		return nil, nil, nil
	}
	if repl.Kind != relFunction {
		rel, err := repl.relation()
		if err != nil {
			return nil, nil, err
		}
		repl.rel = rel
	}
	shadow := e.cat.shadow(old, repl)
	defer func() { e.planRows = nil }()
	rebuilt := map[uint64]bool{}
	for _, d := range sortByID(deps) {
		if d.Kind == planner.RelMaterializedView && (rebuilt[d.ID] || readsAny(d, rebuilt)) {
			rebuilt[d.ID] = true // its input's contents change
			rebuild = append(rebuild, d.ID)
			continue
		}
		err := e.checkReplacedDependent(d, shadow, old)
		if err != nil && repl.Kind == planner.RelView && e.rebuildable(d, shadow) {
			rebuilt[d.ID], err = true, nil
			rebuild = append(rebuild, d.ID)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		rc := &recordingCatalog{Catalog: shadow, deps: map[uint64]bool{}}
		n, err := parseOne(d.SQL)
		if err != nil {
			return nil, nil, err
		}
		if _, err := planner.PlanQuery(rc, n, planner.Options{MaterializedView: d.Kind == planner.RelMaterializedView, TimeZone: d.TimeZone}); err != nil {
			return nil, nil, err
		}
		nd := d.clone()
		nd.Deps = rc.list()
		also = append(also, [2]*Object{d, nd})
	}
	if len(rebuild) > 0 {
		if err := e.checkRebuild(rebuild); err != nil {
			return nil, nil, err
		}
	}
	return also, rebuild, nil
}

// readsAny reports whether d depends on one of ids.
func readsAny(d *Object, ids map[uint64]bool) bool {
	for _, id := range d.Deps {
		if ids[id] {
			return true
		}
	}
	return false
}

// rebuildable reports whether materialized view d, whose plan changes
// under shadow, can be rebuilt from its query there: it keeps its
// columns (names and types; the views and clients over it see the same
// shape) and still plans.
func (e *Engine) rebuildable(d *Object, shadow *Catalog) bool {
	if d.Kind != planner.RelMaterializedView || d.Source != nil {
		return false
	}
	cols, _, err := e.storedPlanText(d)
	if err != nil {
		return false
	}
	cols2, _, err := e.planText(d, shadow)
	return err == nil && cols == cols2
}

// checkRebuild refuses (0A000) to rebuild a materialized view that an
// index, a sink or a subscription reads, or that is being backfilled:
// they hold its current collection or state.
func (e *Engine) checkRebuild(ids []uint64) error {
	var objs []*Object
	for _, id := range ids {
		o := e.cat.byID[id]
		if len(e.cat.indexesOf(id)) > 0 {
			return repr.Unsupported("replacing a view that materialized view %s with an index depends on", o.Name)
		}
		objs = append(objs, o)
	}
	if s := e.sinksReading(objs); len(s) > 0 {
		return repr.Unsupported("replacing a view that sink %s depends on through a materialized view", s[0].def.Name)
	}
	byID := make(map[uint64]*Object, len(objs))
	for _, o := range objs {
		byID[o.ID] = o
	}
	for coll, subs := range e.subs {
		for sub := range subs {
			if o := droppedInput(byID, coll, sub); o != nil {
				return repr.Unsupported("replacing a view that materialized view %s, which a SUBSCRIBE reads, depends on", o.Name)
			}
		}
	}
	return e.checkNotBackfilling(objs...)
}

// checkReplacedDependent refuses the replacement when dependent d would
// change its columns or (materialized) its dataflow under shadow.
func (e *Engine) checkReplacedDependent(d *Object, shadow *Catalog, old *Object) error {
	cols, flow, err := e.storedPlanText(d)
	if err != nil {
		return err
	}
	cols2, flow2, err := e.planText(d, shadow)
	if err == nil && cols == cols2 && flow == flow2 {
		return nil
	}
	detail := fmt.Sprintf("The new definition would change the columns of %s %s.", kindName(d.Kind), d.Name)
	if err != nil {
		detail = fmt.Sprintf("%s %s would no longer plan: %v", kindName(d.Kind), d.Name, err)
	} else if cols == cols2 {
		detail = fmt.Sprintf("The dataflow of %s %s, whose contents are maintained incrementally, would change.", kindName(d.Kind), d.Name)
	}
	return repr.Errorf(repr.CodeFeatureNotSupported, "cannot replace %s %s because %s %s depends on it", kindName(old.Kind), old.Name, kindName(d.Kind), d.Name).
		WithDetail("%s", detail).WithHint("Drop the dependent views first, then recreate them.")
}

// replaceExisting replaces the view named as obj when one exists (done
// reports that it did, or failed); when none does, the caller creates obj.
func (e *Engine) replaceExisting(s *Session, obj *Object) (done bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	old := e.cat.byName[qualified(obj.Schema, obj.Name)]
	if old == nil {
		return false, nil
	}
	return true, e.replaceView(s, old, obj)
}
