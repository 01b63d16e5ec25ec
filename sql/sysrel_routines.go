package sql

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// information_schema.routines and parameters, derived as PostgreSQL 15's
// view definitions derive them: from the rows of pg_proc (whatever
// functions it lists: built-in or created), pg_type, pg_namespace and
// pg_language, read by column name, so a function that appears in pg_proc
// appears here with no further code.

// procRow is what the routine views read of one pg_proc row.
type procRow struct {
	oid, ns, owner, lang, ret uint32
	name                      string
	kind, volatile            byte
	strict, secdef            bool
	argTypes                  []uint32 // proallargtypes, else proargtypes
	modes                     []repr.Datum
	names                     []repr.Datum
	src                       repr.Datum
}

// procRows reads pg_proc's rows.
func procRows(s *sysSnap) []procRow {
	r := sysRelsByName["pg_catalog.pg_proc"]
	col := func(row repr.Row, name string) repr.Datum { return row[r.index[name]] }
	var out []procRow
	for _, row := range rowsProc(s) {
		p := procRow{oid: uint32(col(row, "oid").Int()), ns: uint32(col(row, "pronamespace").Int()),
			owner: uint32(col(row, "proowner").Int()), lang: uint32(col(row, "prolang").Int()),
			ret: uint32(col(row, "prorettype").Int()), name: col(row, "proname").Text(),
			kind: charAt(col(row, "prokind")), volatile: charAt(col(row, "provolatile")),
			strict: boolAt(col(row, "proisstrict")), secdef: boolAt(col(row, "prosecdef")), src: col(row, "prosrc")}
		args := col(row, "proallargtypes")
		if args.IsNull() {
			args = col(row, "proargtypes")
		}
		if !args.IsNull() {
			for _, a := range args.Array() {
				p.argTypes = append(p.argTypes, uint32(a.Int()))
			}
		}
		if m := col(row, "proargmodes"); !m.IsNull() {
			p.modes = m.Array()
		}
		if n := col(row, "proargnames"); !n.IsNull() {
			p.names = n.Array()
		}
		out = append(out, p)
	}
	return out
}

func charAt(d repr.Datum) byte {
	if d.IsNull() || d.Text() == "" {
		return 0
	}
	return d.Text()[0]
}

func boolAt(d repr.Datum) bool { return !d.IsNull() && d.Bool() }

// typeRef is what the routine views read of one pg_type row.
type typeRef struct {
	name, schema string
	elem         uint32
	length       int64
}

// typeRefs maps pg_type's rows, and PostgreSQL's pseudo-types (which
// polymorphic built-ins take and Eddy's pg_type does not list), by OID.
func typeRefs(s *sysSnap, nsNames map[uint32]string) map[uint32]typeRef {
	r := sysRelsByName["pg_catalog.pg_type"]
	out := map[uint32]typeRef{}
	for oid, n := range pseudoTypeNames {
		out[oid] = typeRef{name: strings.Trim(n, `"`), schema: nsPgCatalog, length: 4}
	}
	for _, row := range rowsType(s) {
		out[uint32(row[r.index["oid"]].Int())] = typeRef{name: row[r.index["typname"]].Text(),
			schema: nsNames[uint32(row[r.index["typnamespace"]].Int())],
			elem:   uint32(row[r.index["typelem"]].Int()), length: row[r.index["typlen"]].Int()}
	}
	return out
}

// namespaceNames maps the schemas' OIDs to their names.
func namespaceNames(s *sysSnap) map[uint32]string {
	out := map[uint32]string{}
	for _, n := range s.cat.schemaList() {
		out[n.OID()] = n.Name
	}
	return out
}

// languageNames maps pg_language's OIDs to their names.
func languageNames(s *sysSnap) map[uint32]string {
	r := sysRelsByName["pg_catalog.pg_language"]
	out := map[uint32]string{}
	for _, row := range rowsLanguage(s) {
		out[uint32(row[r.index["oid"]].Int())] = row[r.index["lanname"]].Text()
	}
	return out
}

// routineDataType is information_schema's data_type of type oid: ARRAY for
// a varlena array, format_type for pg_catalog's types, else USER-DEFINED.
func routineDataType(oid uint32, t typeRef) string {
	switch {
	case t.elem != 0 && t.length == -1:
		return "ARRAY"
	case t.schema == nsPgCatalog:
		if n, ok := pseudoTypeNames[oid]; ok {
			return n
		}
		if rt, ok := repr.FromOID(oid); ok {
			return rt.Name()
		}
		return t.name
	}
	return "USER-DEFINED"
}

// procShown is the routine views' filter: the reader is a member of the
// owner or may execute the function (PUBLIC may by default; a built-in's
// grants are in the catalog's function ACLs).
func (s *sysSnap) procShown(reader string, p procRow) bool {
	if s.e.isMemberOf(reader, p.owner) {
		return true
	}
	b := procByOID(p.oid)
	if b == nil {
		return true // PUBLIC's default EXECUTE; created functions' grants are not kept yet
	}
	held, _ := s.e.rolePrivs(reader, s.cat.objACLs.funcACL(b), 0, privExecute)
	return held&privExecute != 0
}

// specificName is PostgreSQL's nameconcatoid(proname, oid).
func specificName(p procRow) string { return p.name + "_" + strconv.FormatUint(uint64(p.oid), 10) }

// rowsInfoRoutines lists information_schema.routines: one row per
// function the reader may see (procShown).
func rowsInfoRoutines(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.routines"]
	nss := namespaceNames(s)
	types, langs, reader, db := typeRefs(s, nss), languageNames(s), s.privReader(), nameD(s.database())
	var out []repr.Row
	for _, p := range procRows(s) {
		if !s.procShown(reader, p) {
			continue
		}
		lang := langs[p.lang]
		v := map[string]repr.Datum{"specific_catalog": db, "specific_schema": nameD(nss[p.ns]),
			"specific_name": nameD(specificName(p)), "routine_catalog": db, "routine_schema": nameD(nss[p.ns]),
			"routine_name": nameD(p.name), "routine_body": textD("EXTERNAL"), "external_language": textD(strings.ToUpper(lang)),
			"parameter_style": textD("GENERAL"), "is_deterministic": yesNo(p.volatile == 'i'),
			"sql_data_access": textD("MODIFIES"), "schema_level_routine": yesNo(true), "max_dynamic_result_sets": intD(0),
			"security_type": textD("INVOKER"), "as_locator": yesNo(false), "is_udt_dependent": yesNo(false)}
		switch p.kind {
		case 'f':
			v["routine_type"] = textD("FUNCTION")
		case 'p':
			v["routine_type"] = textD("PROCEDURE")
		}
		if p.kind != 'p' {
			if t, ok := types[p.ret]; ok {
				v["data_type"] = textD(routineDataType(p.ret, t))
				v["type_udt_catalog"], v["type_udt_schema"], v["type_udt_name"] = db, nameD(t.schema), nameD(t.name)
			}
			v["dtd_identifier"], v["is_null_call"] = nameD("0"), yesNo(p.strict)
		}
		if lang == "sql" {
			v["routine_body"] = textD("SQL")
		}
		if s.e.isMemberOf(reader, p.owner) {
			v["routine_definition"] = p.src
		}
		if lang == "c" {
			v["external_name"] = p.src
		}
		if p.secdef {
			v["security_type"] = textD("DEFINER")
		}
		out = append(out, infoRow(r, v))
	}
	return out
}

// rowsInfoParameters lists information_schema.parameters: one row per
// argument (proallargtypes, else proargtypes) of each function the reader
// may see whose type pg_type lists.
func rowsInfoParameters(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.parameters"]
	nss := namespaceNames(s)
	types, reader, db := typeRefs(s, nss), s.privReader(), nameD(s.database())
	var out []repr.Row
	for _, p := range procRows(s) {
		if !s.procShown(reader, p) {
			continue
		}
		for i, a := range p.argTypes {
			t, ok := types[a]
			if !ok {
				continue
			}
			pos := strconv.Itoa(i + 1)
			v := map[string]repr.Datum{"specific_catalog": db, "specific_schema": nameD(nss[p.ns]),
				"specific_name": nameD(specificName(p)), "ordinal_position": intD(i + 1),
				"parameter_mode": textD(paramMode(p.modes, i)), "is_result": yesNo(false), "as_locator": yesNo(false),
				"data_type": textD(routineDataType(a, t)), "udt_catalog": db, "udt_schema": nameD(t.schema),
				"udt_name": nameD(t.name), "dtd_identifier": nameD(pos)}
			if i < len(p.names) && !p.names[i].IsNull() && p.names[i].Text() != "" {
				v["parameter_name"] = nameD(p.names[i].Text())
			}
			out = append(out, infoRow(r, v))
		}
	}
	return out
}

// infoRow builds a row of information_schema relation r whose unset
// columns are NULL (the views' CAST(null AS ...)), unlike sysRel.row's
// catalog zero values.
func infoRow(r *sysRel, vals map[string]repr.Datum) repr.Row {
	for _, c := range r.cols {
		if _, ok := vals[c.Name]; !ok {
			vals[c.Name] = repr.Null
		}
	}
	return r.row(vals)
}

// paramMode is parameters.parameter_mode of argument i.
func paramMode(modes []repr.Datum, i int) string {
	if i >= len(modes) {
		return "IN"
	}
	switch charAt(modes[i]) {
	case 'o', 't':
		return "OUT"
	case 'b':
		return "INOUT"
	}
	return "IN"
}
