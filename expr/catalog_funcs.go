package expr

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// Catalog functions and the reg* casts.
//
// PostgreSQL's system information functions (pg_get_viewdef,
// pg_table_is_visible, obj_description, ...) and the text I/O of the reg*
// types (regclass, regtype, ...) read the system catalog, which only the
// sql layer knows. Their signatures are registered here like any function,
// so the planner resolves and types them and plans print and parse them;
// their evaluation asks the session's Catalog. They are volatile: never
// folded at plan time and refused in materialized views (0A000), since
// their value follows the catalog, not the data.

// Catalog is the session's view of the system catalog (sql implements it).
type Catalog interface {
	// RegIn converts the text input of a reg* type t (a possibly
	// qualified relation name for regclass, a type name for regtype, ...)
	// to an OID: 42P01, 42704 or 42883 when nothing has that name.
	RegIn(t repr.T, s string) (uint32, error)
	// RegOut returns the text output of OID oid as reg* type t: the
	// object's name, or ok false when oid names nothing (it then prints as
	// a number).
	RegOut(t repr.T, oid uint32) (name string, ok bool)
	// Call evaluates catalog function name (one of those registered with
	// catalogFn) over its evaluated arguments.
	Call(name string, args []repr.Datum) (repr.Datum, error)
}

// catalogOf returns the session's catalog, or 0A000 naming what needs it.
func catalogOf(c *Ctx, what string) (Catalog, error) {
	if c == nil || c.Session == nil || c.Session.Catalog == nil {
		return nil, repr.Unsupported("%s outside a session", what)
	}
	return c.Session.Catalog, nil
}

// catalogFn registers a volatile function evaluated by the session's
// Catalog. Strict functions return NULL on a NULL argument without asking.
func catalogFn(name string, strict bool, ret repr.T, args ...repr.T) {
	f := fn(name, ret, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		cat, err := catalogOf(c, name+"()")
		if err != nil {
			return repr.Null, err
		}
		return cat.Call(name, a)
	}, args...)
	f.Strict, f.Volatile, f.catalog = strict, true, true
}

// ReadsCatalog reports whether e calls a catalog function or casts a
// name to or from a reg* type: its evaluation asks the session's Catalog.
func ReadsCatalog(e Expr) bool {
	switch e := e.(type) {
	case *Call:
		if e.Fn.catalog {
			return true
		}
	case *Cast:
		if isRegCast(e.Arg.Type(), e.To) {
			return true
		}
	}
	for _, k := range Children(e) {
		if ReadsCatalog(k) {
			return true
		}
	}
	return false
}

func init() {
	oid, text, i4, b := repr.OIDT, repr.Text, repr.Int4, repr.Bool
	catalogFn("pg_get_viewdef", true, text, oid)
	catalogFn("pg_get_viewdef", true, text, oid, b)
	catalogFn("pg_get_viewdef", true, text, text)
	catalogFn("pg_get_viewdef", true, text, text, b)
	catalogFn("pg_get_indexdef", true, text, oid)
	catalogFn("pg_get_indexdef", true, text, oid, i4, b)
	catalogFn("pg_get_constraintdef", true, text, oid)
	catalogFn("pg_get_constraintdef", true, text, oid, b)
	catalogFn("pg_get_expr", true, text, repr.Text, oid)
	catalogFn("pg_get_expr", true, text, repr.Text, oid, b)
	catalogFn("pg_get_userbyid", true, repr.Name, oid)
	catalogFn("pg_get_functiondef", true, text, oid)
	catalogFn("pg_get_function_arguments", true, text, oid)
	catalogFn("pg_get_function_identity_arguments", true, text, oid)
	catalogFn("pg_get_function_result", true, text, oid)
	catalogFn("pg_get_function_sqlbody", true, text, oid)
	catalogFn("pg_get_serial_sequence", true, text, text, text)
	catalogFn("pg_get_triggerdef", true, text, oid)
	catalogFn("pg_get_triggerdef", true, text, oid, b)
	catalogFn("pg_get_ruledef", true, text, oid)
	catalogFn("pg_get_ruledef", true, text, oid, b)
	catalogFn("pg_get_statisticsobjdef_columns", true, text, oid)
	catalogFn("pg_tablespace_location", true, text, oid)
	catalogFn("pg_get_partkeydef", true, text, oid) // NULL: no partitioned tables
	catalogFn("oidvectortypes", true, text, repr.OIDVector)
	for _, f := range []string{"pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible",
		"pg_collation_is_visible", "pg_opclass_is_visible", "pg_operator_is_visible", "pg_conversion_is_visible",
		"pg_statistics_obj_is_visible", "pg_ts_config_is_visible", "pg_ts_dict_is_visible", "pg_ts_parser_is_visible",
		"pg_ts_template_is_visible", "pg_opfamily_is_visible"} {
		catalogFn(f, true, b, oid)
	}
	catalogFn("obj_description", true, text, oid, repr.Name)
	catalogFn("obj_description", true, text, oid)
	catalogFn("col_description", true, text, oid, i4)
	catalogFn("shobj_description", true, text, oid, repr.Name)
	catalogFn("pg_relation_size", true, repr.Int8, repr.RegClass)
	catalogFn("pg_relation_size", true, repr.Int8, repr.RegClass, text)
	catalogFn("pg_total_relation_size", true, repr.Int8, repr.RegClass)
	catalogFn("pg_table_size", true, repr.Int8, repr.RegClass)
	catalogFn("pg_indexes_size", true, repr.Int8, repr.RegClass)
	catalogFn("pg_database_size", true, repr.Int8, repr.Name)
	catalogFn("pg_database_size", true, repr.Int8, oid)
	catalogFn("pg_relation_is_publishable", true, b, repr.RegClass)
	catalogFn("current_schemas", true, repr.ArrayOf(repr.Name), b)
	catalogFn("pg_postmaster_start_time", true, repr.TimestampTZ)
	catalogFn("pg_conf_load_time", true, repr.TimestampTZ)
	catalogFn("txid_current", true, repr.Int8)
	catalogFn("pg_current_xact_id", true, repr.Int8)
	catalogFn("pg_backend_pid", true, i4)
	catalogFn("pg_blocking_pids", true, repr.ArrayOf(i4), i4)
	catalogFn("pg_cancel_backend", true, b, i4)
	catalogFn("pg_terminate_backend", true, b, i4)
	catalogFn("pg_terminate_backend", true, b, i4, repr.Int8)
	// pg_notify returns void in PostgreSQL; Eddy has no void type, so it
	// returns an empty text, void's text output.
	catalogFn("pg_notify", false, text, text, text)
	// pg_sleep returns void too (an empty text); it waits in the session,
	// ending early when the statement is cancelled.
	catalogFn("pg_sleep", true, text, repr.Float8)
	catalogFn("pg_is_in_recovery", true, b)
	catalogFn("pg_my_temp_schema", true, oid)
	catalogFn("pg_is_other_temp_schema", true, b, oid)
	// Eddy's statistics are visible at once: flushing and clearing the
	// session's snapshot of them do nothing (void, an empty text).
	catalogFn("pg_stat_force_next_flush", false, text)
	catalogFn("pg_stat_clear_snapshot", false, text)
	catalogFn("pg_stat_get_numscans", true, repr.Int8, oid)
	catalogFn("set_config", false, text, text, text, b)
	catalogFn("current_setting", true, text, text, b)
	privileges()
}

// privileges registers the has_*_privilege family; the catalog answers
// them (from its ACLs where it keeps them, else true once the object
// exists).
func privileges() {
	text, oid, name := repr.Text, repr.OIDT, repr.Name
	for _, f := range []string{"has_table_privilege", "has_any_column_privilege", "has_schema_privilege",
		"has_database_privilege", "has_function_privilege", "has_sequence_privilege", "has_type_privilege",
		"has_language_privilege", "has_tablespace_privilege", "has_foreign_data_wrapper_privilege",
		"has_server_privilege"} {
		for _, obj := range []repr.T{text, oid} {
			catalogFn(f, true, repr.Bool, obj, text)
			catalogFn(f, true, repr.Bool, name, obj, text)
			catalogFn(f, true, repr.Bool, oid, obj, text)
		}
	}
	for _, obj := range []repr.T{text, oid} {
		catalogFn("has_column_privilege", true, repr.Bool, obj, text, text)
		catalogFn("has_column_privilege", true, repr.Bool, obj, repr.Int2, text)
		for _, role := range []repr.T{name, oid} {
			catalogFn("has_column_privilege", true, repr.Bool, role, obj, text, text)
			catalogFn("has_column_privilege", true, repr.Bool, role, obj, repr.Int2, text)
		}
		catalogFn("pg_has_role", true, repr.Bool, obj, text)
		catalogFn("pg_has_role", true, repr.Bool, name, obj, text)
	}
}

// formatType is format_type(type oid, typmod): the type's SQL name with
// its modifiers; NULL typmod means none; a type repr does not know (a
// composite type) is named by the session's catalog, as regtype output;
// an unknown OID prints as "???".
func formatType(c *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[0].IsNull() {
		return repr.Null, nil
	}
	mod := int32(-1)
	if !a[1].IsNull() {
		mod = int32(a[1].Int())
	}
	t, ok := repr.FromTypmod(uint32(a[0].Int()), mod)
	if !ok {
		if cat, err := catalogOf(c, "format_type"); err == nil {
			if name, ok := cat.RegOut(repr.RegType, uint32(a[0].Int())); ok {
				return repr.NewText(name), nil
			}
		}
		return repr.NewText("???"), nil
	}
	if !a[1].IsNull() && mod < 0 {
		return repr.NewText(quotedBareBit(t)), nil
	}
	return repr.NewText(t.Name()), nil
}

// quotedBareBit is format_type's name of t given typmod -1: bit without
// a length prints quoted, "bit", since a bare bit would read back as
// bit(1); every other type prints as Name.
func quotedBareBit(t repr.T) string {
	if t == repr.Bit {
		return `"bit"`
	}
	if t == repr.ArrayOf(repr.Bit) {
		return `"bit"[]`
	}
	return t.Name()
}

func init() {
	f := fn("format_type", repr.Text, formatType, repr.OIDT, repr.Int4)
	f.Strict = false
	fn("pg_encoding_to_char", repr.Name, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].Int() == 6 {
			return repr.NewText("UTF8"), nil
		}
		return repr.NewText(""), nil
	}, repr.Int4)
	// Eddy's one database encoding.
	fn("getdatabaseencoding", repr.Name, func(*Ctx, []repr.Datum) (repr.Datum, error) {
		return repr.NewText("UTF8"), nil
	})
	fn("pg_char_to_encoding", repr.Int4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if strings.EqualFold(strings.ReplaceAll(a[0].Text(), "-", ""), "UTF8") {
			return repr.NewInt(6), nil
		}
		return repr.NewInt(-1), nil
	}, repr.Name)
}

// isRegCast reports whether a cast from from to to needs the catalog: text
// input of a reg* type, or a reg* value's text output.
func isRegCast(from, to repr.T) bool {
	textual := func(t repr.T) bool { return t.Family == repr.FamText || t.Family == repr.FamUnknown }
	return to.IsReg() && textual(from) || from.IsReg() && textual(to) || isRegArray(from) && textual(to)
}

// isRegArray reports whether t is an array of a reg* type (regtype[], as
// pg_prepared_statements.parameter_types), whose text output names each
// element's object.
func isRegArray(t repr.T) bool {
	return t.Family == repr.FamArray && !t.Vector && t.ElemType().IsReg()
}

// regArrayText casts a reg* array to text: the array of its elements'
// names (an element naming nothing prints as its number), formatted as a
// text[].
func regArrayText(c *Ctx, d repr.Datum, from, to repr.T) (repr.Datum, error) {
	elem := from.ElemType()
	src := d.Array()
	names := make([]repr.Datum, len(src))
	for i, e := range src {
		if e.IsNull() {
			names[i] = repr.Null
			continue
		}
		s := strconv.FormatInt(e.Int(), 10)
		if c != nil && c.Session != nil && c.Session.Catalog != nil {
			if name, ok := c.Session.Catalog.RegOut(elem, uint32(e.Int())); ok {
				s = name
			}
		}
		names[i] = repr.NewText(s)
	}
	text := repr.ArrayLike(d, names)
	return repr.Cast(text, repr.ArrayOf(repr.Text), to, nil, true)
}

// regCast evaluates a cast that needs the catalog (isRegCast). A numeric
// input is an OID as is, in PostgreSQL's reg*in too.
func regCast(c *Ctx, d repr.Datum, from, to repr.T) (repr.Datum, error) {
	if isRegArray(from) {
		return regArrayText(c, d, from, to)
	}
	if to.IsReg() {
		s := strings.TrimSpace(d.Text())
		if n, err := strconv.ParseUint(s, 10, 32); err == nil {
			return repr.NewInt(int64(n)), nil
		}
		if s == "-" {
			return repr.NewInt(0), nil // InvalidOid
		}
		cat, err := catalogOf(c, "the "+to.Name()+" input of a name")
		if err != nil {
			return repr.Null, err
		}
		oid, err := cat.RegIn(to, s)
		return repr.NewInt(int64(oid)), err
	}
	s := strconv.FormatInt(d.Int(), 10)
	if c != nil && c.Session != nil && c.Session.Catalog != nil {
		if name, ok := c.Session.Catalog.RegOut(from, uint32(d.Int())); ok {
			s = name
		}
	}
	return repr.Cast(repr.NewText(s), repr.Text, to, nil, true)
}

// Set-returning catalog functions: pg_partition_ancestors(rel) is the
// relation itself (Eddy has no partitions); pg_options_to_table(options)
// splits "name=value" options into rows.
func init() {
	tableFn("pg_partition_ancestors", []TableCol{{Name: "relid", T: repr.RegClass}},
		func(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
			return emit([]repr.Datum{a[0]})
		}, repr.RegClass)
	tableFn("pg_options_to_table", []TableCol{{Name: "option_name", T: repr.Text}, {Name: "option_value", T: repr.Text}},
		func(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
			for _, o := range a[0].Array() {
				if o.IsNull() {
					continue
				}
				k, v, _ := strings.Cut(o.Text(), "=")
				if err := emit([]repr.Datum{repr.NewText(k), repr.NewText(v)}); err != nil {
					return err
				}
			}
			return nil
		}, repr.ArrayOf(repr.Text)).Present = 1
}

// sizeUnits are pg_size_pretty's units: a size is shown in the first
// unit under whose limit its magnitude falls (the last unit takes the
// rest), rounded half away from zero in every unit but bytes.
var sizeUnits = []struct {
	name  string
	limit uint64
	round bool
	bits  int // log2 of the unit in bytes
}{
	{"bytes", 10 * 1024, false, 0},
	{"kB", 20*1024 - 1, true, 10},
	{"MB", 20*1024 - 1, true, 20},
	{"GB", 20*1024 - 1, true, 30},
	{"TB", 20*1024 - 1, true, 40},
	{"PB", 20*1024 - 1, true, 50},
}

// pgSizePretty is pg_size_pretty(bigint), as PostgreSQL 15 computes it: a
// rounded unit is reached with one extra bit kept for the rounding, and
// every division truncates toward zero, so negative sizes mirror positive
// ones (-1000000000000 is "-931 GB").
func pgSizePretty(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	size := a[0].Int()
	for i, u := range sizeUnits {
		mag := uint64(size)
		if size < 0 {
			mag = -mag
		}
		if i == len(sizeUnits)-1 || mag < u.limit {
			if u.round {
				size = halfRounded(size)
			}
			return repr.NewText(strconv.FormatInt(size, 10) + " " + u.name), nil
		}
		next := sizeUnits[i+1]
		bits := next.bits - u.bits
		if next.round {
			bits--
		}
		if u.round {
			bits++
		}
		size /= int64(1) << bits
	}
	panic("unreachable")
}

// halfRounded halves x rounding half away from zero.
func halfRounded(x int64) int64 {
	if x < 0 {
		return (x - 1) / 2
	}
	return (x + 1) / 2
}

func init() {
	fn("pg_size_pretty", repr.Text, pgSizePretty, repr.Int8)
}
