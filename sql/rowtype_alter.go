package sql

import (
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// ALTER TABLE ... ADD COLUMN / DROP COLUMN on a table whose row type is
// stored in a column of another table (or an array of it). PostgreSQL
// changes no stored composite: a value read back gets NULL for an added
// attribute and loses a dropped one. Eddy's records hold their fields,
// so the stored values are rewritten to the new fields (reshapeStored,
// as ALTER TYPE ... ADD/DROP ATTRIBUTE does) in the same atomic change
// as the table's own. What PostgreSQL refuses there stays refused with
// its error (0A000 "cannot alter table ... because column ... uses its
// row type"): a change that rewrites the table (ALTER COLUMN TYPE) or
// gives an added column a value (a default other than NULL, serial,
// identity). What Eddy cannot follow is 0A000 naming it (typeInUse): a
// composite type with a field of the row type, a materialized view whose
// plan or state the new shape would change, a plain view naming a
// dropped column as a field.

// checkRowTypeDefault refuses (as PostgreSQL's ATRewriteTables, whose
// new values would have to reach the stored composites) adding column
// col, with a default, to the table o whose row type is stored.
func (c *Catalog) checkRowTypeDefault(o *Object, col ColumnDef, seq *Object) error {
	d := strings.TrimSpace(col.Default)
	if seq == nil && col.Identity == 0 && (d == "" || strings.EqualFold(d, "NULL")) {
		return nil
	}
	return c.checkRowTypeAlter(o)
}

// commitAlteration commits the ALTER TABLE a (conv gives the table's new
// rows; also are more changed objects), with the stored values of the
// table's row type when columns were added or dropped, and the
// materialized views the new shape changes recomputed (rebuildAfter).
func (e *Engine) commitAlteration(s *Session, a *alteration, conv func(repr.Row) (repr.Row, error), also [][2]*Object) error {
	o, nu := a.old, a.nu
	if !a.rowTypeShape || !hasRowType(o) {
		return e.commitAlteredWith(o, nu, conv, also, a)
	}
	what := "ALTER TABLE ... ADD COLUMN"
	if len(a.dropped) > 0 {
		what = "ALTER TABLE ... DROP COLUMN"
	}
	d, err := e.typeInUse(o, nu, what, a.dropped, nil, true)
	if err != nil {
		return err
	}
	views := slices.Concat(a.rebuild, d.rebuild)
	if len(views) == 0 && len(d.order) == 0 {
		return e.commitAlteredWith(o, nu, conv, also, a)
	}
	// A sequence the change creates or drops is staged in its batch, part
	// of the atomic change: a failed rebuild restores the catalog and the
	// sequences' registrations with it (restoreLocked).
	srcs := append([]int(nil), a.cols()...)
	return e.rebuildAfter(what, o.Name, views, func() error {
		if err := e.commitAlteredWith(o, nu, conv, also, a); err != nil {
			return err
		}
		if len(d.order) == 0 {
			return nil
		}
		return e.reshapeStored(s, o, nu, srcs, d.order, nil)
	})
}

// rebuildAfter runs change (an ALTER of what, named name) and then
// recomputes the materialized views of views and every materialized view
// over them from their queries under the new catalog (rebuildView, with
// their indexes), in one atomic change. PostgreSQL keeps such a view
// (its stored composites read with the new fields; its query, refreshed,
// builds them); Eddy's incremental view must equal its query recomputed,
// and a dataflow that builds or keeps records of the old fields would
// not. An open subscription to a rebuilt view receives its change (old
// rows retracted, new ones inserted) at one new time. A sink reading one
// is 0A000: it has sent the rows in their old shape.
func (e *Engine) rebuildAfter(what, name string, views []*Object, change func() error) error {
	rebuild := e.enumRebuilds(nil, views)
	if len(rebuild) == 0 {
		return e.atomically(change)
	}
	if s := e.sinksReading(rebuild); len(s) > 0 {
		return repr.Unsupported("%s on %s while sink %s reads %s %s, whose rows it changes", what, name, s[0].def.Name, kindName(s[0].def.FromKind), s[0].def.FromName)
	}
	if err := e.checkNotBackfilling(rebuild...); err != nil {
		return err
	}
	before := e.subscribedContents(nil, rebuild, nil)
	if len(before) > 0 && e.inDDLBlock() {
		return repr.Unsupported("%s in a transaction block while a subscription reads a materialized view it recomputes", what)
	}
	return e.changeAndRebuild(before, rebuild, change)
}
