package sql

import (
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Named composite types (CREATE TYPE name AS (f1 t1, ...)). A composite
// type is a catalog object of kind relType whose Columns are its fields:
// like PostgreSQL's, it is a pg_class row of relkind 'c' (OID from its
// ID, as every object's) beside its pg_type row, so it shares the
// relations' namespace (a table and a type cannot have one name). Its
// pg_type OID and its array type's are the two IDs allocated after its
// own (createObjects reserves them), so both are stable across restarts.
// Values of the type are repr records; repr knows the type by its OID
// only, and the planner asks for the fields through planner.TypeCatalog.

// relType is the object kind of a composite type. The planner never reads
// one as a relation (Catalog.Relation refuses it, as PostgreSQL does).
const relType planner.RelKind = 102

// typeIDs is how many catalog IDs a composite type takes: its relation,
// its type and its array type.
const typeIDs = 3

// typeOID returns the pg_type OID of the composite type o, or of the
// row type of the relation o (rowtype.go).
func typeOID(o *Object) uint32 {
	if hasRowType(o) {
		return rowTypeOID(o.ID)
	}
	return relOID(o.ID + 1)
}

// execCreateType executes CREATE TYPE name AS (...). Other forms of
// CREATE TYPE (enums, ranges, base types) reach dispatch as other
// statements and are 0A000 there.
func (p *Portal) execCreateType(cs *pg.CompositeTypeStmt) error {
	p.tag = "CREATE TYPE"
	obj := &Object{Kind: relType, Schema: schemaOf(cs.Typevar), Name: cs.Typevar.Relname, Owner: p.st.s.newOwner()}
	e := p.st.s.e
	var cols []ColumnDef
	var err error
	e.readLocked(func() {
		cols, err = e.cat.fieldDefs(cs.Coldeflist)
	})
	if err != nil {
		return err
	}
	obj.Columns = cols
	return e.createObjects([]*Object{obj}, false)
}

// fieldDefs converts a composite type's attribute list: names and types
// only (PostgreSQL's grammar admits no constraints there).
func (c *Catalog) fieldDefs(elts []*pg.Node) ([]ColumnDef, error) {
	var cols []ColumnDef
	for _, n := range elts {
		cd := n.GetColumnDef()
		if cd == nil {
			return nil, repr.Unsupported("CREATE TYPE element %s", stmtKind(n))
		}
		if columnIndex(cols, cd.Colname) >= 0 {
			return nil, repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
		}
		t, err := c.fieldType(cd.TypeName)
		if err != nil {
			return nil, err
		}
		if err := checkColumnCollation(cd, t); err != nil {
			return nil, err
		}
		cols = append(cols, ColumnDef{Name: cd.Colname, Type: t})
	}
	return cols, nil
}

// typeFromName resolves a parsed type name: a built-in type, else a
// composite type of the catalog (or an array of one). The caller holds
// the engine's lock.
func (c *Catalog) typeFromName(tn *pg.TypeName) (repr.T, error) {
	t, err := typeFromName(tn)
	if err == nil || len(tn.Names) == 0 {
		return t, err
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	schema, name := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	ct, ok := c.CompositeType(schema, name)
	if !ok {
		return t, err
	}
	if len(tn.Typmods) > 0 {
		return repr.Unknown, repr.Errorf(repr.CodeSyntax, "type modifier is not allowed for type \"%s\"", name)
	}
	if len(tn.ArrayBounds) > 0 {
		return repr.ArrayOf(ct), nil
	}
	return ct, nil
}

// typeFromName resolves a type name under the engine's read lock.
func (e *Engine) typeFromName(tn *pg.TypeName) (repr.T, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cat.typeFromName(tn)
}

// CompositeType implements planner.TypeCatalog.
func (c *Catalog) CompositeType(schema, name string) (repr.T, bool) {
	o := c.lookup(schema, name)
	if o != nil && hasRowType(o) {
		return repr.CompositeOf(typeOID(o)), true
	}
	if o == nil || o.Kind != relType {
		return repr.Unknown, false
	}
	if o.Enum != nil {
		return repr.EnumOf(typeOID(o)), true
	}
	return repr.CompositeOf(typeOID(o)), true
}

// CompositeFields implements planner.TypeCatalog.
func (c *Catalog) CompositeFields(oid uint32) (string, []expr.TableCol, bool) {
	o := c.compositeByOID(oid)
	if o == nil {
		return "", nil, false
	}
	fields := make([]expr.TableCol, len(o.Columns))
	for i, col := range o.Columns {
		fields[i] = expr.TableCol{Name: col.Name, T: col.Type}
	}
	name, _ := c.compositeName(repr.CompositeOf(oid))
	return name, fields, true
}

// compositeByOID returns the composite type with pg_type OID oid, or the
// relation whose row type it is, or nil.
func (c *Catalog) compositeByOID(oid uint32) *Object {
	if o := c.rowTypeRel(oid); o != nil {
		return o
	}
	if oid < firstUserOID+1 {
		return nil
	}
	o := c.byID[uint64(oid-firstUserOID-1)]
	if o == nil || o.Kind != relType || o.Enum != nil {
		return nil
	}
	return o
}

// compositeName is compositeNameIn for a reader whose search path is
// public alone.
func (c *Catalog) compositeName(t repr.T) (string, bool) {
	return c.compositeNameIn(t, func(ns, _ string) bool { return ns == nsPublic })
}

// compositeNameIn is format_type's name of a composite type or an array
// of one: the type's name, qualified unless visible (its unqualified name
// finds it on the reader's search path); ok false for other types.
func (c *Catalog) compositeNameIn(t repr.T, visible func(schema, name string) bool) (string, bool) {
	o := c.compositeByOID(t.Composite)
	if t.Enum != 0 {
		o = c.enumByOID(t.Enum)
	}
	if o == nil {
		return "", false
	}
	name := expr.QuoteIdent(o.Name) // format_type quotes keywords of every category
	if !visible(o.Schema, o.Name) {
		name = expr.QuoteIdent(o.Schema) + "." + name
	}
	if t.Family == repr.FamArray {
		name += "[]"
	}
	return name, true
}

// relTypeOID is pg_class.reltype: a composite type's pg_type OID, a
// relation's row type's (rowtype.go), 0 for indexes, sequences and
// system relations.
func relTypeOID(ri *relInfo) uint32 {
	if ri.obj == nil || ri.obj.Kind != relType && !hasRowType(ri.obj) {
		return 0
	}
	return typeOID(ri.obj)
}

// compositeTypeRow is the pg_type row of the composite type o, in the
// namespace ns, owned by owner: typtype 'c', typrelid its pg_class row,
// the record I/O functions.
func compositeTypeRow(o *Object, ns, owner uint32) map[string]repr.Datum {
	t := repr.CompositeOf(typeOID(o))
	row := compositeRowCommon(ns, owner)
	for k, v := range map[string]repr.Datum{
		"oid": oidD(t.OID()), "typname": nameD(o.Name), "typtype": charD('c'), "typcategory": charD('C'),
		"typrelid": oidD(relOID(o.ID)), "typarray": oidD(repr.ArrayOf(t).OID()),
		"typinput": oidD(procOIDByName("record_in")), "typoutput": oidD(procOIDByName("record_out")),
		"typreceive": oidD(procOIDByName("record_recv")), "typsend": oidD(procOIDByName("record_send")),
	} {
		row[k] = v
	}
	return row
}

// compositeArrayRow is the pg_type row of the array type of o (_name).
func compositeArrayRow(o *Object, ns, owner uint32) map[string]repr.Datum {
	t := repr.CompositeOf(typeOID(o))
	row := compositeRowCommon(ns, owner)
	for k, v := range map[string]repr.Datum{
		"oid": oidD(repr.ArrayOf(t).OID()), "typname": nameD("_" + o.Name), "typtype": charD('b'), "typcategory": charD('A'),
		"typelem":  oidD(t.OID()),
		"typinput": oidD(procOIDByName("array_in")), "typoutput": oidD(procOIDByName("array_out")),
		"typreceive": oidD(procOIDByName("array_recv")), "typsend": oidD(procOIDByName("array_send")),
	} {
		row[k] = v
	}
	return row
}

// compositeRowCommon holds the pg_type columns a composite type and its
// array type share.
func compositeRowCommon(ns, owner uint32) map[string]repr.Datum {
	return map[string]repr.Datum{
		"typnamespace": oidD(ns), "typowner": oidD(owner), "typlen": intD(-1), "typbyval": boolD(false),
		"typisdefined": boolD(true), "typdelim": charD(','), "typalign": charD('d'), "typstorage": charD('x'),
		"typtypmod": intD(-1), "typcollation": oidD(0), "typispreferred": boolD(false),
	}
}

// compositeTypeByOID returns the composite type, or array of one, with
// pg_type OID oid.
func (c *Catalog) compositeTypeByOID(oid uint32) (repr.T, bool) {
	if o := c.compositeByOID(oid); o != nil {
		return repr.CompositeOf(oid), true
	}
	if o := c.compositeByOID(oid - 1); o != nil && repr.CompositeArrayOID(oid-1) == oid {
		return repr.ArrayOf(repr.CompositeOf(oid - 1)), true
	}
	if o := c.enumByOID(oid); o != nil {
		return repr.EnumOf(oid), true
	}
	if o := c.enumByOID(oid - 1); o != nil {
		return repr.ArrayOf(repr.EnumOf(oid - 1)), true
	}
	return repr.Unknown, false
}

// compositeTypeByText resolves regtype input naming a composite type
// or its array type ("comp", "s.comp", "comp[]", "_comp"); schemaOf
// returns the schema an unqualified name finds ("" for none).
func (c *Catalog) compositeTypeByText(s string, schemaOf func(name string) string) (repr.T, bool) {
	s = strings.TrimSpace(s)
	base, array := strings.CutSuffix(s, "[]")
	schema, name := splitQualifiedName(base)
	find := func(name string) (repr.T, bool) {
		if schema == "" {
			if ns := schemaOf(name); ns != "" {
				return c.CompositeType(ns, name)
			}
		}
		return c.CompositeType(schema, name)
	}
	t, ok := find(name)
	if elem, found := strings.CutPrefix(name, "_"); !ok && !array && found {
		t, ok = find(elem) // pg_type's name of the array type
		array = true
	}
	if ok && array {
		t = repr.ArrayOf(t)
	}
	return t, ok
}

// compositeParam decodes a parameter of the composite type t: record_in
// of its text, or record_recv of its binary form, over the type's fields;
// or of an array of the type (array_in or array_recv of such values).
func (e *Engine) compositeParam(b []byte, format int16, t repr.T, loc *time.Location) (repr.Datum, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	types, ok := e.cat.fieldTypes(t.Composite)
	if !ok {
		return repr.Null, repr.Errorf(repr.CodeUndefinedObject, "type with OID %d does not exist", t.Composite)
	}
	switch {
	case t.Family == repr.FamArray && format == 1:
		return repr.ParseCompositeArrayBinaryWith(b, t, types, e.cat.fieldTypes)
	case t.Family == repr.FamArray:
		return repr.ParseCompositeArrayWith(string(b), types, e.cat.fieldTypes, loc)
	case format == 1:
		return repr.ParseRecordBinaryWith(b, types, e.cat.fieldTypes)
	}
	return repr.ParseRecordWith(string(b), types, e.cat.fieldTypes, loc)
}

// fieldTypes returns the field types of the composite type with pg_type
// OID oid (repr.FieldsOf).
func (c *Catalog) fieldTypes(oid uint32) ([]repr.T, bool) {
	o := c.compositeByOID(oid)
	if o == nil {
		return nil, false
	}
	types := make([]repr.T, len(o.Columns))
	for i, col := range o.Columns {
		types[i] = col.Type
	}
	return types, true
}

// listStrings returns the strings of a List node's items (a qualified
// name).
func listStrings(n *pg.Node) []string {
	var out []string
	for _, it := range n.GetList().GetItems() {
		out = append(out, it.GetString_().GetSval())
	}
	return out
}

// typeName is format_type's name of t, the catalog naming composites.
func (c *Catalog) typeName(t repr.T) string {
	if name, ok := c.compositeName(t); ok {
		return name
	}
	return t.Name()
}
