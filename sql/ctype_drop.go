package sql

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// DROP TYPE of a composite type. Without CASCADE it refuses (2BP01, with
// PostgreSQL's detail lines) while a column of a table or view uses the
// type or a view's query names it. With CASCADE it drops them first, as
// PostgreSQL does: the views and materialized views whose columns or
// query use the type (with everything that depends on them), then each
// table column of the type (ALTER TABLE ... DROP COLUMN). What Eddy
// cannot drop that way is 0A000 naming it, checked before anything is
// dropped: the last column of a table, a primary key column, a column of
// a relation that is not a table, or a column of a table that another
// view reads without reading the column (PostgreSQL keeps such a view;
// Eddy would have to re-plan it). A view that reads the column is
// dropped, as in PostgreSQL.

// typeDeps are what depends on a composite type.
type typeDeps struct {
	views []*Object            // views and materialized views using it
	cols  map[*Object][]string // relation -> its columns of the type
	order []*Object            // the relations (not views) of cols, in ID order
	lines []string             // PostgreSQL's dependency lines, in ID order
	// rebuild are the materialized views typeInUse found to recompute.
	rebuild []*Object
}

// typeDependents collects the dependents of the composite type o.
func (c *Catalog) typeDependents(o *Object) typeDeps {
	oid := typeOID(o)
	d := typeDeps{cols: map[*Object][]string{}}
	for _, u := range c.objects() {
		if u.Kind == relIndex || u == o {
			continue
		}
		var cols []string
		for _, col := range u.Columns {
			if col.Type.Composite == oid || col.Type.Enum == oid {
				cols = append(cols, col.Name)
				d.lines = append(d.lines, fmt.Sprintf("column %s of %s %s depends on type %s", col.Name, depKind(u), u.Name, o.Name))
			}
		}
		isView := u.Kind == planner.RelView || u.Kind == planner.RelMaterializedView
		switch {
		case isView && len(cols) > 0:
			d.views = append(d.views, u)
		case isView && viewNamesType(u, o):
			d.views = append(d.views, u)
			d.lines = append(d.lines, fmt.Sprintf("%s %s depends on type %s", kindName(u.Kind), u.Name, o.Name))
		case len(cols) > 0:
			d.cols[u], d.order = cols, append(d.order, u)
		}
	}
	return d
}

// depKind names u's kind in a dependency line.
func depKind(u *Object) string {
	if u.Kind == relType {
		return "composite type"
	}
	return kindName(u.Kind)
}

// typeDropCheck refuses to drop a composite or enum type something uses
// (2BP01 with PostgreSQL's lines: under each column of the type, the
// views reading that column and the objects over them, "view v depends
// on column c of table t", which DROP TYPE ... CASCADE drops with the
// column). It changes nothing.
func (e *Engine) typeDropCheck(o *Object) error {
	d := e.cat.typeDependents(o)
	if len(d.lines) == 0 {
		return nil
	}
	seen := map[uint64]bool{}
	for _, v := range d.views {
		seen[v.ID] = true
	}
	var lines []string
	for _, l := range d.lines {
		lines = append(lines, l)
		for _, t := range d.order {
			for _, c := range d.cols[t] {
				if l != fmt.Sprintf("column %s of %s %s depends on type %s", c, depKind(t), t.Name, o.Name) {
					continue
				}
				for _, x := range e.columnReaders(t, []string{c}, seen) {
					seen[x.ID] = true
					lines = append(lines, fmt.Sprintf("%s %s depends on column %s of %s %s", kindName(x.Kind), x.Name, c, depKind(t), t.Name))
					lines = append(lines, e.dependencyLines(seen, x)...)
				}
			}
		}
	}
	return repr.Errorf(repr.CodeDependentObjects, "cannot drop type %s because other objects depend on it", o.Name).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// dropTypeDependents drops, under the engine's lock, what DROP TYPE o
// CASCADE drops before the type (see above), for the session s.
func (e *Engine) dropTypeDependents(s *Session, o *Object) error {
	d := e.cat.typeDependents(o)
	gone := map[uint64]bool{}
	for _, v := range d.views {
		for _, x := range e.dropSet(v) {
			gone[x.ID] = true
		}
	}
	for _, t := range d.order {
		for _, x := range e.columnReaders(t, d.cols[t], gone) {
			d.views = append(d.views, x)
			for _, y := range e.dropSet(x) {
				gone[y.ID] = true
			}
		}
	}
	for _, t := range d.order {
		if err := e.checkTypeColumnsDroppable(o, t, d.cols[t], gone); err != nil {
			return err
		}
	}
	for _, v := range d.views {
		if cur := e.cat.byID[v.ID]; cur != nil {
			if err := e.dropLocked(cur, true); err != nil {
				return err
			}
		}
	}
	ectx := s.evalCtx()
	for _, t := range d.order {
		var cmds []*pg.Node
		for _, col := range d.cols[t] {
			cmds = append(cmds, &pg.Node{Node: &pg.Node_AlterTableCmd{AlterTableCmd: &pg.AlterTableCmd{
				Subtype: pg.AlterTableType_AT_DropColumn, Name: col, Behavior: pg.DropBehavior_DROP_CASCADE}}})
		}
		if err := e.alterTableLocked(s, e.cat.byID[t.ID], cmds, ectx); err != nil {
			return err
		}
	}
	return nil
}

// checkTypeColumnsDroppable refuses (0A000) DROP TYPE o CASCADE when Eddy
// cannot drop the columns cols of t, a relation other than a table,
// before anything is dropped. What ALTER TABLE ... DROP COLUMN refuses
// (the last column; a view that does not read the column but whose plan
// the change would alter) it refuses in the drop's atomic step, which
// then changes nothing.
func (e *Engine) checkTypeColumnsDroppable(o, t *Object, cols []string, _ map[uint64]bool) error {
	if t.Kind != planner.RelTable || t.Source != nil {
		return repr.Unsupported("DROP TYPE %s CASCADE, which would drop column %s of %s %s,", o.Name, cols[0], depKind(t), t.Name)
	}
	return nil
}

// columnReaders returns the views reading the table t (not in gone) whose
// query no longer plans without t's columns cols: they read one of them,
// and PostgreSQL's CASCADE drops them with the column.
func (e *Engine) columnReaders(t *Object, cols []string, gone map[uint64]bool) []*Object {
	nu := t.clone()
	for _, c := range cols {
		i := columnIndex(nu.Columns, c)
		nu.Columns = append(nu.Columns[:i:i], nu.Columns[i+1:]...)
	}
	rel, err := nu.relation()
	if err != nil {
		return nil
	}
	nu.rel = rel
	shadow := e.cat.shadow(t, nu)
	var out []*Object
	for _, x := range e.dropSet(t)[1:] {
		if gone[x.ID] || x.SQL == "" {
			continue
		}
		n, err := parseOne(x.SQL)
		if err != nil {
			continue
		}
		opts := planner.Options{MaterializedView: x.Kind == planner.RelMaterializedView, TimeZone: x.TimeZone}
		if _, err := planner.PlanQuery(shadow, n, opts); err != nil {
			out = append(out, x)
		}
	}
	return out
}
