package sql

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Relation row types. As in PostgreSQL, every table, view, materialized
// view (and source) has a composite type of its own name whose fields
// are its columns: a pg_type row of typtype 'c' with typrelid the
// relation's pg_class OID (and pg_class.reltype pointing back), and an
// array type _name. Whole-row references (SELECT t FROM t) carry it, so
// a client that looks up RowDescription's type OID finds the type.
//
// A row type is the composite type machinery of ctype.go seen from the
// relation: compositeByOID finds the relation by the type's OID,
// CompositeType by its name, and the fields are the relation's columns,
// so ALTER TABLE ADD / DROP COLUMN changes the type and DROP TABLE drops
// it. The OIDs are derived from the relation's catalog ID (rowTypeOID),
// never allocated, so they are stable across restarts and exist for
// relations created before row types were listed.

// rowTypeBase is the first row type OID: rowTypeOID(id) is rowTypeBase +
// 2*id and its array type's the next, beyond every OID relOID gives and
// below the derived OIDs of sysrel.go's attrdefOID for any ID below
// 2^17 (pg_attrdef OIDs would not collide with pg_type's anyway).
const rowTypeBase uint32 = 0x18000000

// maxRowTypeID bounds the IDs of relations with row types (their OIDs
// stay below 2^29, where pkIndexOID's range starts).
const maxRowTypeID = (1<<29 - rowTypeBase) / 2

// rowTypeOID returns the pg_type OID of the row type of the relation
// with catalog ID id.
func rowTypeOID(id uint64) uint32 { return rowTypeBase + 2*uint32(id) }

// hasRowType reports whether o is a relation with a row type: a table,
// view, materialized view or source (not an index or a sequence, which
// PostgreSQL gives none, nor a composite type, whose type is its own).
func hasRowType(o *Object) bool {
	switch o.Kind {
	case planner.RelTable, planner.RelView, planner.RelMaterializedView, planner.RelSource:
		return o.ID < uint64(maxRowTypeID)
	}
	return false
}

// rowTypeRel returns the relation whose row type has pg_type OID oid, or
// nil (array type OIDs, which are odd, are not row types).
func (c *Catalog) rowTypeRel(oid uint32) *Object {
	if oid < rowTypeBase || oid >= 1<<29 || (oid-rowTypeBase)%2 != 0 {
		return nil
	}
	o := c.byID[uint64((oid-rowTypeBase)/2)]
	if o == nil || !hasRowType(o) {
		return nil
	}
	return o
}

// rowTypeUsers returns PostgreSQL's dependency lines for the columns
// that store the row type of the relation o (in tables, materialized
// views, composite types), and the first of them as rel.col.
func (c *Catalog) rowTypeUsers(o *Object) (lines []string, first string) {
	oid := rowTypeOID(o.ID)
	for _, u := range c.objects() {
		if u.Kind == relFunction && c.functionUses(u, oid) {
			lines = append(lines, fmt.Sprintf("function %s(%s) depends on type %s", u.Name, c.argTypeNames(u.Function.Args), o.Name))
			if first == "" {
				first = "function " + u.Name
			}
		}
		if u == o || u.Kind == planner.RelView || u.Kind == relIndex || u.Kind == relSequence || u.Kind == relFunction {
			continue
		}
		for _, col := range u.Columns {
			if c.typeContains(col.Type, oid) {
				tn := o.Name
				if col.Type.Family == repr.FamArray {
					tn += "[]"
				}
				lines = append(lines, fmt.Sprintf("column %s of %s %s depends on type %s", col.Name, depKind(u), u.Name, tn))
				if first == "" {
					first = u.Name + "." + col.Name
				}
			}
		}
	}
	return lines, first
}

// checkRowTypeAlter refuses to change the columns of o while a column
// stores its row type (0A000, as PostgreSQL's
// find_composite_type_dependencies): the stored values would not follow.
func (c *Catalog) checkRowTypeAlter(o *Object) error {
	if !hasRowType(o) {
		return nil
	}
	if _, first := c.rowTypeUsers(o); first != "" {
		return repr.Errorf(repr.CodeFeatureNotSupported, "cannot alter table \"%s\" because column \"%s\" uses its row type", o.Name, first)
	}
	return nil
}

// checkRowTypeDrop refuses to drop the relation o while a column stores
// its row type: 2BP01 with PostgreSQL's lines; under CASCADE (which in
// PostgreSQL drops those columns) 0A000.
func (c *Catalog) checkRowTypeDrop(o *Object, cascade bool) error {
	if !hasRowType(o) {
		return nil
	}
	lines, first := c.rowTypeUsers(o)
	switch {
	case first == "":
		return nil
	case cascade && !c.rowTypeInTablesOnly(o):
		return repr.Unsupported("DROP %s ... CASCADE while column \"%s\" stores its row type", strings.ToUpper(kindName(o.Kind)), first)
	case cascade:
		return nil // dropRowTypeColumns drops the columns first
	}
	return repr.Errorf(repr.CodeDependentObjects, "cannot drop %s %s because other objects depend on it", kindName(o.Kind), o.Name).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// rowTypeInTablesOnly reports whether every stored use of o's row type
// is a table column of the type or an array of it, which DROP ... CASCADE
// drops as PostgreSQL does (ALTER TABLE ... DROP COLUMN, as DROP TYPE
// ... CASCADE does: dropTypeDependents); a function signature or a field
// of a composite type is not dropped that way.
func (c *Catalog) rowTypeInTablesOnly(o *Object) bool {
	oid := rowTypeOID(o.ID)
	for _, u := range c.objects() {
		if u == o || u.Kind == planner.RelView || u.Kind == relIndex || u.Kind == relSequence {
			continue
		}
		if u.Kind == relFunction {
			if c.functionUses(u, oid) {
				return false
			}
			continue
		}
		for _, col := range u.Columns {
			if c.typeContains(col.Type, oid) && (u.Kind != planner.RelTable || u.Source != nil || col.Type.Composite != oid) {
				return false
			}
		}
	}
	return true
}

// sqlTypeName names t in SQL the engine writes: a composite, row or enum
// type (or an array of one) by its schema-qualified name, others as
// repr names them.
func (c *Catalog) sqlTypeName(t repr.T) string {
	if name, ok := c.compositeNameIn(t, func(string, string) bool { return false }); ok {
		return name
	}
	return t.Name()
}

// functionUses reports whether the function u takes or returns values of
// the composite type oid.
func (c *Catalog) functionUses(u *Object, oid uint32) bool {
	f := u.Function
	if f == nil {
		return false
	}
	for _, t := range append(append([]repr.T{f.Ret}, f.Args...), colTypes(f.RetCols)...) {
		if c.typeContains(t, oid) {
			return true
		}
	}
	return false
}

// colTypes returns the types of cols.
func colTypes(cols []ColumnDef) []repr.T {
	out := make([]repr.T, len(cols))
	for i, col := range cols {
		out[i] = col.Type
	}
	return out
}

// argTypeNames lists argument types as format_type names them.
func (c *Catalog) argTypeNames(ts []repr.T) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = c.typeName(t)
	}
	return strings.Join(s, ", ")
}
