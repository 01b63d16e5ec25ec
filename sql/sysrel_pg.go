package sql

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The core relations of pg_catalog: namespaces, relations, columns,
// types, indexes, constraints, defaults and comments. Column lists are
// PostgreSQL 15's.

// Datum shorthands for the rows below.
func oidD(o uint32) repr.Datum  { return repr.NewInt(int64(o)) }
func nameD(s string) repr.Datum { return repr.NewText(s) }
func charD(c byte) repr.Datum {
	if c == 0 {
		return repr.NewText("")
	}
	return repr.NewText(string(c))
}
func boolD(b bool) repr.Datum { return repr.NewBool(b) }
func intD(i int) repr.Datum   { return repr.NewInt(int64(i)) }
func textD(s string) repr.Datum {
	if s == "" {
		return repr.Null
	}
	return repr.NewText(s)
}

// int2Vector returns an int2vector of ns.
func int2Vector(ns []int) repr.Datum {
	elems := make([]repr.Datum, len(ns))
	for i, n := range ns {
		elems[i] = intD(n)
	}
	return repr.NewArray(elems)
}

// int2Array returns a smallint[] of ns (NULL when empty, as conkey is).
func int2Array(ns []int) repr.Datum {
	if len(ns) == 0 {
		return repr.Null
	}
	return int2Vector(ns)
}

func init() {
	defSysRel(100, 2615, nsPgCatalog, "pg_namespace", false,
		"oid oid, nspname name, nspowner oid, nspacl aclitem[]", rowsNamespace)
	defSysRel(101, 1259, nsPgCatalog, "pg_class", false,
		"oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, relfilenode oid, reltablespace oid, relpages integer, reltuples real, relallvisible integer, reltoastrelid oid, relhasindex boolean, relisshared boolean, relpersistence \"char\", relkind \"char\", relnatts smallint, relchecks smallint, relhasrules boolean, relhastriggers boolean, relhassubclass boolean, relrowsecurity boolean, relforcerowsecurity boolean, relispopulated boolean, relreplident \"char\", relispartition boolean, relrewrite oid, relfrozenxid xid, relminmxid xid, relacl aclitem[], reloptions text[], relpartbound pg_node_tree",
		rowsClass)
	defSysRel(102, 1249, nsPgCatalog, "pg_attribute", false,
		"attrelid oid, attname name, atttypid oid, attstattarget integer, attlen smallint, attnum smallint, attndims integer, attcacheoff integer, atttypmod integer, attbyval boolean, attalign \"char\", attstorage \"char\", attcompression \"char\", attnotnull boolean, atthasdef boolean, atthasmissing boolean, attidentity \"char\", attgenerated \"char\", attisdropped boolean, attislocal boolean, attinhcount integer, attcollation oid, attacl aclitem[], attoptions text[], attfdwoptions text[], attmissingval anyarray",
		rowsAttribute)
	defSysRel(103, 1247, nsPgCatalog, "pg_type", false,
		"oid oid, typname name, typnamespace oid, typowner oid, typlen smallint, typbyval boolean, typtype \"char\", typcategory \"char\", typispreferred boolean, typisdefined boolean, typdelim \"char\", typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, typanalyze regproc, typalign \"char\", typstorage \"char\", typnotnull boolean, typbasetype oid, typtypmod integer, typndims integer, typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl aclitem[]",
		rowsType)
	defSysRel(104, 2610, nsPgCatalog, "pg_index", false,
		"indexrelid oid, indrelid oid, indnatts smallint, indnkeyatts smallint, indisunique boolean, indnullsnotdistinct boolean, indisprimary boolean, indisexclusion boolean, indimmediate boolean, indisclustered boolean, indisvalid boolean, indcheckxmin boolean, indisready boolean, indislive boolean, indisreplident boolean, indkey int2vector, indcollation oidvector, indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree",
		rowsIndex)
	defSysRel(105, 2606, nsPgCatalog, "pg_constraint", false,
		"oid oid, conname name, connamespace oid, contype \"char\", condeferrable boolean, condeferred boolean, convalidated boolean, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, confupdtype \"char\", confdeltype \"char\", confmatchtype \"char\", conislocal boolean, coninhcount integer, connoinherit boolean, conkey smallint[], confkey smallint[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols smallint[], conexclop oid[], conbin pg_node_tree",
		rowsConstraint)
	defSysRel(106, 2604, nsPgCatalog, "pg_attrdef", false,
		"oid oid, adrelid oid, adnum smallint, adbin pg_node_tree", rowsAttrdef)
	defSysRel(107, 2609, nsPgCatalog, "pg_description", false,
		"objoid oid, classoid oid, objsubid integer, description text", rowsDescription)
}

// rowsNamespace lists the schemas.
func rowsNamespace(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_namespace"]
	var out []repr.Row
	for _, n := range s.cat.schemaList() {
		acl := n.ACL
		if acl == nil && n.Name == nsPublic {
			acl = effectiveACL(nil, oidDatabaseOwner, allSchemaPrivs, true) // as in PostgreSQL 15
		}
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(n.OID()), "nspname": nameD(n.Name),
			"nspowner": oidD(ownerOID(n.Owner)), "nspacl": s.aclDatum(acl)}))
	}
	return out
}

// rowsClass lists every relation.
func rowsClass(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_class"]
	var out []repr.Row
	for _, ri := range s.relations() {
		am := uint32(0)
		switch ri.kind {
		case 'r', 'm':
			am = amHeap
		case 'i':
			am = amOIDs[ri.index.method]
		}
		ident := byte('n')
		if ri.kind == 'r' || ri.kind == 'm' {
			ident = 'd'
		}
		tuples := float64(-1)
		if ri.obj != nil && s.e.colls[ri.obj.ID] != nil {
			tuples = float64(s.e.colls[ri.obj.ID].Len())
		}
		out = append(out, r.row(map[string]repr.Datum{
			"oid": oidD(ri.oid), "relname": nameD(ri.name), "relnamespace": oidD(ri.ns), "relowner": oidD(s.relOwner(ri)), "relacl": s.relACL(ri),
			"relam": oidD(am), "relfilenode": oidD(ri.oid), "reltuples": repr.NewFloat(tuples),
			"relhasindex": boolD(len(ri.indexes) > 0), "relpersistence": charD(relPersistence(s.cat.namespaceName(ri.ns))), "relkind": charD(ri.kind),
			"relnatts": intD(len(ri.cols)), "relchecks": intD(ri.checks), "relhastriggers": boolD(ri.triggers), "relispopulated": boolD(true),
			"relreplident": charD(ident), "reltype": oidD(relTypeOID(ri)),
		}))
	}
	return out
}

// rowsAttribute lists the columns of every relation (attnum in column
// order, from 1; Eddy renumbers the columns after a DROP COLUMN, so no
// column is ever listed as dropped).
func rowsAttribute(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_attribute"]
	var out []repr.Row
	for _, ri := range s.relations() {
		for i, c := range ri.cols {
			row := attributeRow(ri, i, c)
			if c.ACL != nil && ri.index == nil {
				row["attacl"] = s.aclDatum(c.ACL)
			}
			out = append(out, r.row(row))
		}
	}
	return out
}

// attributeRow is one pg_attribute row.
func attributeRow(ri *relInfo, i int, c ColumnDef) map[string]repr.Datum {
	t := c.Type
	ndims, collation := 0, uint32(0)
	if t.Family == repr.FamArray {
		ndims = 1
	}
	if base := elemOrSelf(t); base.Family == repr.FamText && base.Kind != repr.KindName && base.Kind != repr.KindQChar {
		collation = 100
	} else if base.Kind == repr.KindName {
		collation = 950
	}
	return map[string]repr.Datum{
		"attrelid": oidD(ri.oid), "attname": nameD(c.Name), "atttypid": oidD(t.OID()), "attstattarget": intD(-1),
		"attlen": intD(int(t.Size())), "attnum": intD(i + 1), "attndims": intD(ndims), "attcacheoff": intD(-1),
		"atttypmod": intD(int(t.TypeMod())), "attbyval": boolD(byValue(t)), "attalign": charD(typAlign(t)),
		"attstorage": charD(typStorage(t)), "attnotnull": boolD(c.NotNull || ri.index == nil && inPrimaryKey(ri, i)),
		"atthasdef": boolD(c.Default != "" && ri.index == nil), "attidentity": charD(c.Identity),
		"attislocal": boolD(true), "attcollation": oidD(collation),
	}
}

// inPrimaryKey reports whether column i of ri is in its primary key (and so NOT
// NULL, as PostgreSQL marks it).
func inPrimaryKey(ri *relInfo, i int) bool {
	if ri.obj == nil {
		return false
	}
	for _, k := range ri.obj.PrimaryKey {
		if k == i {
			return true
		}
	}
	return false
}

// elemOrSelf returns an array type's element type, else t.
func elemOrSelf(t repr.T) repr.T {
	if t.Family == repr.FamArray {
		return t.ElemType()
	}
	return t
}

// byValue is pg_type.typbyval: fixed-width types of at most 8 bytes.
func byValue(t repr.T) bool {
	n := t.Size()
	return n > 0 && n <= 8 && t.Family != repr.FamArray && !(t.Family == repr.FamText && t.Kind == repr.KindName)
}

// typAlign is pg_type.typalign.
func typAlign(t repr.T) byte {
	switch n := t.Size(); {
	case t.Family == repr.FamArray:
		if e := t.ElemType(); e.Size() == 8 || e.Family == repr.FamInterval || e.Family == repr.FamNumeric {
			return 'd'
		}
		return 'i'
	case n == 1, t.Family == repr.FamText && t.Kind == repr.KindName:
		return 'c'
	case n == 2:
		return 's'
	case n == 8, t.Family == repr.FamInterval:
		return 'd'
	}
	return 'i'
}

// typStorage is pg_type.typstorage.
func typStorage(t repr.T) byte {
	if t.Size() > 0 {
		return 'p'
	}
	if t.Family == repr.FamNumeric {
		return 'm'
	}
	return 'x'
}

// rowsType lists every type (array types included), the composite
// types after the built-in ones.
func rowsType(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_type"]
	var out []repr.Row
	for _, t := range repr.AllTypes() {
		row := typeRow(t)
		if acls := s.cat.objACLs; acls != nil {
			row["typacl"] = s.aclDatum(acls.Types[t.OID()])
		}
		out = append(out, r.row(row))
	}
	for _, o := range s.cat.objects() {
		if o.Kind == relType && o.Enum != nil {
			ns, owner := s.cat.namespaceOID(o.Schema), ownerOID(o.Owner)
			row := enumTypeRow(o, ns, owner)
			row["typacl"] = s.aclDatum(s.cat.objACLs.compositeACL(typeOID(o)))
			out = append(out, r.row(row), r.row(enumArrayRow(o, ns, owner)))
		} else if o.Kind == relType {
			ns, owner := s.cat.namespaceOID(o.Schema), ownerOID(o.Owner)
			row := compositeTypeRow(o, ns, owner)
			row["typacl"] = s.aclDatum(s.cat.objACLs.compositeACL(typeOID(o)))
			out = append(out, r.row(row), r.row(compositeArrayRow(o, ns, owner)))
		} else if hasRowType(o) { // a relation's row type: typacl NULL, as PostgreSQL's
			ns, owner := s.cat.namespaceOID(o.Schema), ownerOID(o.Owner)
			out = append(out, r.row(compositeTypeRow(o, ns, owner)), r.row(compositeArrayRow(o, ns, owner)))
		}
	}
	return out
}

// typeRow is one pg_type row.
func typeRow(t repr.T) map[string]repr.Datum {
	name := t.TypName()
	elem, array := uint32(0), uint32(0)
	in, outf, recv, send := ioProcName(name, "in"), ioProcName(name, "out"), ioProcName(name, "recv"), ioProcName(name, "send")
	if t.Family == repr.FamArray && !t.Vector {
		elem = t.ElemType().OID()
		in, outf, recv, send = "array_in", "array_out", "array_recv", "array_send"
	} else {
		array = repr.ArrayOf(t).OID()
		if t.Vector {
			elem = t.ElemType().OID()
		}
	}
	if t.Family == repr.FamText && t.Kind == repr.KindName {
		elem = repr.QChar.OID()
	}
	collation := uint32(0)
	if base := elemOrSelf(t); base.Family == repr.FamText && base.Kind != repr.KindQChar {
		collation = 100
		if base.Kind == repr.KindName {
			collation = 950
		}
	}
	preferred := map[uint32]bool{repr.OIDText: true, repr.OIDFloat8: true, repr.OIDTimestampTZ: true,
		repr.OIDInterval: true, repr.OIDBool: true, repr.OIDT.OID(): true, repr.OIDVarBit: true}[t.OID()]
	return map[string]repr.Datum{
		"oid": oidD(t.OID()), "typname": nameD(name), "typnamespace": oidD(oidPgCatalog), "typowner": oidD(oidSuperuser),
		"typlen": intD(int(t.Size())), "typbyval": boolD(byValue(t)), "typtype": charD('b'),
		"typcategory": charD(t.Category()), "typispreferred": boolD(preferred), "typisdefined": boolD(true),
		"typdelim": charD(','), "typelem": oidD(elem), "typarray": oidD(array),
		"typinput": oidD(procOIDByName(in)), "typoutput": oidD(procOIDByName(outf)),
		"typreceive": oidD(procOIDByName(recv)), "typsend": oidD(procOIDByName(send)),
		"typalign": charD(typAlign(t)), "typstorage": charD(typStorage(t)), "typtypmod": intD(-1),
		"typcollation": oidD(collation),
	}
}

// rowsIndex lists every index.
func rowsIndex(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_index"]
	var out []repr.Row
	for _, ri := range s.relations() {
		ix := ri.index
		if ix == nil {
			continue
		}
		opts := make([]int, len(ix.attnums))
		colls, classes := make([]repr.Datum, len(ix.attnums)), make([]repr.Datum, len(ix.attnums))
		for i := range ix.attnums {
			if i < len(ix.desc) && ix.desc[i] {
				opts[i] = 3 // INDOPTION_DESC | INDOPTION_NULLS_FIRST
			}
			colls[i], classes[i] = oidD(0), oidD(0)
			if t := ri.cols[i].Type; t.Family == repr.FamText && ix.attnums[i] != 0 {
				colls[i] = oidD(100)
			}
		}
		// indexprs and indpred hold SQL text, not node trees: clients
		// test them for NULL or pass them to pg_get_expr.
		exprs, pred := repr.Null, repr.Null
		if len(ix.exprs) > 0 {
			var texts []string
			for _, x := range ix.exprs {
				if x != "" {
					texts = append(texts, x)
				}
			}
			exprs = repr.NewText(strings.Join(texts, ", "))
		}
		if ix.where != "" {
			pred = repr.NewText(ix.where)
		}
		out = append(out, r.row(map[string]repr.Datum{
			"indexrelid": oidD(ix.oid), "indrelid": oidD(ix.table), "indnatts": intD(len(ix.attnums)),
			"indnkeyatts": intD(ix.keyParts()), "indisunique": boolD(ix.unique), "indisprimary": boolD(ix.primary),
			"indnullsnotdistinct": boolD(ix.nullsNotDistinct), "indexprs": exprs, "indpred": pred,
			"indimmediate": boolD(true), "indisvalid": boolD(true), "indisready": boolD(true), "indislive": boolD(true),
			"indkey": int2Vector(ix.attnums), "indcollation": repr.NewArray(colls), "indclass": repr.NewArray(classes),
			"indoption": int2Vector(opts),
		}))
	}
	return out
}

// rowsConstraint lists primary keys and the UNIQUE, CHECK and FOREIGN KEY
// constraints.
func rowsConstraint(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_constraint"]
	var out []repr.Row
	for _, ri := range s.relations() {
		o := ri.obj
		if o == nil || ri.kind != 'r' {
			continue
		}
		if len(o.PrimaryKey) > 0 {
			out = append(out, r.row(constraintRow(ri, 0, Constraint{Name: o.pkeyName(), Kind: "primary", Cols: o.PrimaryKey})))
		}
		for i, c := range o.Constraints {
			row := constraintRow(ri, i+1, c)
			if c.Kind == "foreign" {
				row["conindid"] = oidD(s.fkIndexOID(c))
			}
			out = append(out, r.row(row))
		}
	}
	return out
}

// fkIndexOID returns the OID of the referenced table's unique index that
// a foreign key's referenced columns match (as a set, the index whole, as
// PostgreSQL's transformFkeyCheckAttrs requires), preferring the primary
// key; pgjdbc's getImportedKeys joins pg_constraint.conindid to it. 0 when
// none matches.
func (s *sysSnap) fkIndexOID(c Constraint) uint32 {
	ref := s.rel(relOID(c.RefTable))
	if ref == nil {
		return 0
	}
	var found uint32
	for _, ix := range ref.indexes {
		if !ix.unique || ix.where != "" || ix.keyParts() != len(ix.attnums) || !sameAttnums(ix.attnums, c.RefCols) {
			continue
		}
		if ix.primary {
			return ix.oid
		}
		if found == 0 {
			found = ix.oid
		}
	}
	return found
}

// sameAttnums reports whether attnums (1-based, no expressions) holds
// exactly the columns cols (0-based), in any order.
func sameAttnums(attnums []int, cols []int) bool {
	if len(attnums) != len(cols) {
		return false
	}
	want := map[int]bool{}
	for _, c := range cols {
		want[c+1] = true
	}
	for _, a := range attnums {
		if !want[a] {
			return false
		}
	}
	return len(want) == len(attnums)
}

// constraintRow is one pg_constraint row: constraint k of table ri.
func constraintRow(ri *relInfo, k int, c Constraint) map[string]repr.Datum {
	kind := map[string]byte{"primary": 'p', "unique": 'u', "check": 'c', "foreign": 'f'}[c.Kind]
	attnums := func(cols []int) []int {
		out := make([]int, len(cols))
		for i, c := range cols {
			out[i] = c + 1
		}
		return out
	}
	row := map[string]repr.Datum{
		"oid": oidD(constraintOID(ri.obj.ID, k)), "conname": nameD(c.Name), "connamespace": oidD(ri.ns),
		"contype": charD(kind), "condeferrable": boolD(c.Deferred), "condeferred": boolD(c.Deferred),
		"convalidated": boolD(true), "conrelid": oidD(ri.oid), "conislocal": boolD(true), "connoinherit": boolD(kind == 'p' || kind == 'u'),
		"conkey": int2Array(attnums(c.Cols)),
	}
	switch kind {
	case 'p', 'u':
		row["conindid"] = oidD(pkIndexOID(ri.obj.ID, k))
	case 'c':
		row["conbin"] = textD(c.Check)
	case 'f':
		row["confrelid"] = oidD(relOID(c.RefTable))
		row["confkey"] = int2Array(attnums(c.RefCols))
		row["confupdtype"], row["confdeltype"], row["confmatchtype"] = charD(conAction(c.OnUpdate)), charD(conAction(c.OnDelete)), charD('s')
	}
	return row
}

// conAction is the pg_constraint letter of a referential action.
func conAction(a byte) byte {
	if a == 0 {
		return 'a'
	}
	return a
}

// rowsAttrdef lists column defaults; adbin holds the default's SQL text,
// which pg_get_expr returns.
func rowsAttrdef(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_attrdef"]
	var out []repr.Row
	for _, ri := range s.relations() {
		if ri.obj == nil || ri.index != nil {
			continue
		}
		for i, c := range ri.cols {
			if c.Default != "" {
				out = append(out, r.row(map[string]repr.Datum{"oid": oidD(attrdefOID(ri.obj.ID, i+1)),
					"adrelid": oidD(ri.oid), "adnum": intD(i + 1), "adbin": textD(c.Default)}))
			}
		}
	}
	return out
}

// rowsDescription lists the comments of relations and columns (COMMENT ON).
// oidPgNamespace is pg_namespace's OID, the classoid of a schema's comment.
const oidPgNamespace = 2615

// builtinSchemaComments are PostgreSQL 15's comments on its built-in
// schemas (pgAdmin and DBeaver show them); eddy_catalog is Eddy's own.
var builtinSchemaComments = map[string]string{
	"pg_catalog":   "system catalog schema",
	"public":       "standard public schema",
	"pg_toast":     "reserved schema for TOAST tables",
	"eddy_catalog": "Eddy's sources, sinks, subscriptions, indexes, dataflows and their statistics",
}

func rowsDescription(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_description"]
	var out []repr.Row
	add := func(oid uint32, sub int, text string) {
		if text != "" {
			out = append(out, r.row(map[string]repr.Datum{"objoid": oidD(oid), "classoid": oidD(1259),
				"objsubid": intD(sub), "description": repr.NewText(text)}))
		}
	}
	for _, n := range s.cat.schemaList() {
		if text := builtinSchemaComments[n.Name]; text != "" && n.ID == 0 {
			out = append(out, r.row(map[string]repr.Datum{"objoid": oidD(n.OID()), "classoid": oidD(oidPgNamespace),
				"description": repr.NewText(text)}))
		}
	}
	for _, ri := range s.relations() {
		if ri.obj == nil {
			continue
		}
		add(ri.oid, 0, ri.obj.Comment)
		for i, c := range ri.obj.Columns {
			add(ri.oid, i+1, c.Comment)
		}
	}
	return out
}
