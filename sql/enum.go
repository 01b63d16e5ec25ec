package sql

import (
	"math"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Enum types (CREATE TYPE name AS ENUM (...)). An enum type is a catalog
// object of kind relType, like a composite type, with Enum set and no
// Columns: it shares the types' (and relations') namespace, its pg_type
// OID and its array type's are the IDs reserved after its own (typeOID),
// and DROP TYPE, ALTER TYPE RENAME TO / OWNER TO / SET SCHEMA, GRANT
// USAGE and search_path resolution treat it as they treat a composite
// type. Unlike a composite type it has no pg_class row. Its values
// (repr.FamEnum) carry their label and sort order, so a label's sort
// order never changes once values may hold it: ADD VALUE puts a new
// label between its neighbours' orders (PostgreSQL's float4
// enumsortorder), and RENAME VALUE, which would leave stored values
// holding the old label, is refused while a column stores the type.

// EnumDef is the definition of an enum type: its labels in sort order.
type EnumDef struct {
	Values []EnumValue
	// NextSeq numbers the next label added (EnumValue.Seq).
	NextSeq int `json:",omitempty"`
}

// EnumValue is one label of an enum type. Order is its sort order, a
// float4 value as pg_enum.enumsortorder holds it; Seq numbers the labels
// in the order they were created, for their pg_enum OIDs.
type EnumValue struct {
	Label string
	Order float64
	Seq   int `json:",omitempty"`
}

// maxEnumLabel is PostgreSQL's NAMEDATALEN-1 bound on a label's bytes.
const maxEnumLabel = 63

// maxEnumSeq bounds the labels a type may ever have had (their pg_enum
// OIDs are derived from the type's ID and Seq: enumLabelOID).
const maxEnumSeq = 1 << 10

// enumLabelOID is the pg_enum OID of the label numbered seq of the enum
// type with catalog ID id (beyond every object's OID and the derived
// OIDs of sysrel.go).
func enumLabelOID(id uint64, seq int) uint32 { return 1<<31 | uint32(id)<<10 | uint32(seq) }

// execCreateEnum executes CREATE TYPE name AS ENUM (labels).
func (p *Portal) execCreateEnum(cs *pg.CreateEnumStmt) error {
	p.tag = "CREATE TYPE"
	names := listStrings(&pg.Node{Node: &pg.Node_List{List: &pg.List{Items: cs.TypeName}}})
	schema, name := "public", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	def := &EnumDef{}
	for i, n := range cs.Vals {
		label := n.GetString_().GetSval()
		if err := checkEnumLabel(label); err != nil {
			return err
		}
		if def.index(label) >= 0 { // PostgreSQL's unique index on pg_enum
			return repr.Errorf(repr.CodeUniqueViolation, "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"")
		}
		def.Values = append(def.Values, EnumValue{Label: label, Order: float64(i + 1), Seq: i})
	}
	def.NextSeq = len(def.Values)
	if def.NextSeq > maxEnumSeq {
		return repr.Unsupported("an enum type of more than %d labels", maxEnumSeq)
	}
	obj := &Object{Kind: relType, Schema: schema, Name: name, Owner: p.st.s.newOwner(), Enum: def}
	return p.st.s.e.createObjects([]*Object{obj}, false)
}

// checkEnumLabel refuses a label too long or empty (22023), as
// PostgreSQL's CREATE TYPE and ADD VALUE do.
func checkEnumLabel(label string) error {
	if len(label) > maxEnumLabel || label == "" {
		return repr.Errorf(repr.CodeInvalidParameter, "invalid enum label \"%s\"", label).
			WithDetail("Labels must be %d bytes or less.", maxEnumLabel)
	}
	return nil
}

// index returns the position of label in d.Values, or -1.
func (d *EnumDef) index(label string) int {
	for i, v := range d.Values {
		if v.Label == label {
			return i
		}
	}
	return -1
}

// clone returns a copy of d that shares nothing with it.
func (d *EnumDef) clone() *EnumDef {
	c := *d
	c.Values = append([]EnumValue(nil), d.Values...)
	return &c
}

// enumByOID returns the enum type with pg_type OID oid, or nil.
func (c *Catalog) enumByOID(oid uint32) *Object {
	if oid < firstUserOID+1 {
		return nil
	}
	o := c.byID[uint64(oid-firstUserOID-1)]
	if o == nil || o.Kind != relType || o.Enum == nil {
		return nil
	}
	return o
}

// EnumLabels implements planner.TypeCatalog.
func (c *Catalog) EnumLabels(oid uint32) (string, []repr.EnumLabel, bool) {
	o := c.enumByOID(oid)
	if o == nil {
		return "", nil, false
	}
	name, _ := c.compositeName(repr.EnumOf(oid))
	return name, o.Enum.labels(), true
}

// labels returns d's labels with their sort orders.
func (d *EnumDef) labels() []repr.EnumLabel {
	out := make([]repr.EnumLabel, len(d.Values))
	for i, v := range d.Values {
		out[i] = repr.EnumLabel{Label: v.Label, Order: v.Order}
	}
	return out
}

// enumReader returns a reader of the text of the enum type t, or of an
// array of one: the label (22P02 for none of the type's), or array_in
// of labels. It holds the labels the type has now and takes no lock; the
// caller holds the engine's lock.
func (c *Catalog) enumReader(t repr.T) (func(string) (repr.Datum, error), error) {
	o := c.enumByOID(t.Enum)
	if o == nil {
		return nil, repr.Errorf(repr.CodeUndefinedObject, "type with OID %d does not exist", t.Enum)
	}
	vals := make([]repr.Datum, len(o.Enum.Values))
	for i, l := range o.Enum.labels() {
		vals[i] = repr.NewEnum(l)
	}
	name, _ := c.compositeName(repr.EnumOf(t.Enum))
	if t.Family != repr.FamArray {
		return func(s string) (repr.Datum, error) { return expr.EnumFromText(s, vals, name) }, nil
	}
	return func(s string) (repr.Datum, error) {
		arr, err := repr.ParseText(s, repr.ArrayOf(repr.Text), nil)
		if err != nil {
			return repr.Null, err
		}
		out := []repr.Datum{}
		for _, x := range arr.Array() {
			v := repr.Null
			if !x.IsNull() {
				if v, err = expr.EnumFromText(x.Text(), vals, name); err != nil {
					return repr.Null, err
				}
			}
			out = append(out, v)
		}
		return repr.NewArray(out), nil
	}, nil
}

// enumParam decodes a parameter of the enum type t (or an array of one):
// the label's text, in the text and the binary format alike (enum_recv
// reads the label's bytes).
func (e *Engine) enumParam(b []byte, format int16, t repr.T) (repr.Datum, error) {
	if format == 1 && t.Family == repr.FamArray {
		return repr.Null, repr.Unsupported("binary input of arrays of enum type")
	}
	e.mu.RLock()
	read, err := e.cat.enumReader(t)
	e.mu.RUnlock()
	if err != nil {
		return repr.Null, err
	}
	return read(string(b))
}

// enumTypeRow is the pg_type row of the enum type o: typtype 'e',
// typcategory 'E', the enum I/O functions, 4 bytes by value as in
// PostgreSQL (whose values are the labels' OIDs).
func enumTypeRow(o *Object, ns, owner uint32) map[string]repr.Datum {
	row := compositeTypeRow(o, ns, owner)
	for k, v := range map[string]repr.Datum{
		"typtype": charD('e'), "typcategory": charD('E'), "typrelid": oidD(0),
		"typlen": intD(4), "typbyval": boolD(true), "typalign": charD('i'), "typstorage": charD('p'),
		"typinput": oidD(procOIDByName("enum_in")), "typoutput": oidD(procOIDByName("enum_out")),
		"typreceive": oidD(procOIDByName("enum_recv")), "typsend": oidD(procOIDByName("enum_send")),
	} {
		row[k] = v
	}
	return row
}

// enumArrayRow is the pg_type row of the array type of the enum type o.
func enumArrayRow(o *Object, ns, owner uint32) map[string]repr.Datum {
	row := compositeArrayRow(o, ns, owner)
	row["typalign"] = charD('i')
	return row
}

// float4Order rounds a sort order to float4, as pg_enum stores it.
func float4Order(f float64) float64 { return float64(float32(f)) }

// midOrder returns a sort order strictly between lo and hi in float4, as
// PostgreSQL's AddEnumLabel chooses one; ok false when float4 has none
// (PostgreSQL then renumbers the labels, which Eddy does not: values
// hold their orders).
func midOrder(lo, hi float64) (float64, bool) {
	m := float4Order((lo + hi) / 2)
	return m, m > lo && m < hi && !math.IsInf(m, 0)
}

// userTypeOID is the pg_type OID of the composite or enum type t (or of
// the element type of an array of one); 0 for the other types.
func userTypeOID(t repr.T) uint32 {
	if t.Enum != 0 {
		return t.Enum
	}
	return t.Composite
}

// userTypeByOID returns the composite or enum type with pg_type OID oid,
// or nil.
func (c *Catalog) userTypeByOID(oid uint32) *Object {
	if o := c.enumByOID(oid); o != nil {
		return o
	}
	return c.compositeByOID(oid)
}

// rowsEnum lists pg_enum: every label of every enum type.
func rowsEnum(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_enum"]
	var out []repr.Row
	for _, o := range s.cat.objects() {
		if o.Kind != relType || o.Enum == nil {
			continue
		}
		for _, v := range o.Enum.Values {
			out = append(out, r.row(map[string]repr.Datum{
				"oid": oidD(enumLabelOID(o.ID, v.Seq)), "enumtypid": oidD(typeOID(o)),
				"enumsortorder": repr.NewFloat(v.Order), "enumlabel": nameD(v.Label),
			}))
		}
	}
	return out
}

// enumReaders returns, for each column of rel of an enum type or an
// array of one, its reader (enumReader), by column: nil when there is
// none. The caller holds the engine's lock.
func (c *Catalog) enumReaders(rel *planner.Relation) map[int]func(string) (repr.Datum, error) {
	var out map[int]func(string) (repr.Datum, error)
	for i, col := range rel.Columns {
		if col.Type.Enum == 0 {
			continue
		}
		if read, err := c.enumReader(col.Type); err == nil {
			if out == nil {
				out = map[int]func(string) (repr.Datum, error){}
			}
			out[i] = read
		}
	}
	return out
}

// fieldType resolves the type of a composite type's field. A field may
// be of an enum type (or an array of one), as a table's column may (its
// row type, rowtype.go): records name the field's type in their header
// (repr.headerOID), and the planner reads such a field's text with the
// type's labels (planner.recordInNested); text of an array of such
// records, and binary input of them, are 0A000 (repr cannot read a label
// without the catalog).
func (c *Catalog) fieldType(tn *pg.TypeName) (repr.T, error) {
	return c.typeFromName(tn)
}
