package sql

import (
	"fmt"
	"strings"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// sessionCatalog is a session's expr.Catalog: the reg* casts and the
// catalog functions, answered from the engine's catalog under its read
// lock (so plans that call them never run under that lock themselves:
// see callsSequences).
type sessionCatalog struct{ s *Session }

// processStart is pg_postmaster_start_time().
var processStart = time.Now()

// snap returns a catalog snapshot for one call; the caller holds e.mu.
func (c sessionCatalog) snap() *sysSnap {
	return &sysSnap{e: c.s.e, cat: c.s.e.cat, sess: c.s.info}
}

// RegIn implements expr.Catalog.
func (c sessionCatalog) RegIn(t repr.T, s string) (uint32, error) {
	c.s.e.mu.RLock()
	defer c.s.e.mu.RUnlock()
	switch t.OIDKind {
	case repr.KindRegClass:
		schema, name := splitQualifiedName(s)
		if schema == "" {
			schema = c.s.resolveSchema(c.s.e.cat, name) // "" when not on the path
		}
		if r := lookupSysRel(schema, name); r != nil {
			return r.oid, nil
		}
		if o := c.s.e.cat.lookup(schema, name); o != nil {
			return relOID(o.ID), nil
		}
		if schema == "" {
			if oid := c.snap().derivedIndexOID(name); oid != 0 {
				return oid, nil
			}
		}
		return 0, repr.ErrUndefinedTable.New(s)
	case repr.KindRegType:
		if oid, ok := pseudoTypeOID(s); ok {
			return oid, nil
		}
		typ, err := repr.TypeByName(strings.TrimSpace(s), nil)
		if err != nil {
			if ct, ok := c.s.e.cat.compositeTypeByText(s, func(name string) string { return c.s.typeSchema(c.s.e.cat, name) }); ok {
				return ct.OID(), nil
			}
			return 0, err
		}
		return typ.OID(), nil
	case repr.KindRegProc, repr.KindRegProcedure:
		if oid, ok, err := c.s.e.regInFunction(s); ok {
			return oid, err
		}
		if t.OIDKind == repr.KindRegProcedure && strings.Contains(s, "(") {
			p, err := procBySig(s)
			if err != nil {
				return 0, err
			}
			return p.oid, nil
		}
		name := strings.TrimPrefix(strings.TrimSpace(s), "pg_catalog.")
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = name[:i]
		}
		if p := procByName(name); p != nil {
			return p.oid, nil
		}
		return 0, repr.Errorf(repr.CodeUndefinedFunction, "function \"%s\" does not exist", s)
	case repr.KindRegNamespace:
		_, name := splitQualifiedName(s)
		if oid := c.s.e.cat.namespaceOID(name); oid != 0 {
			return oid, nil
		}
		return 0, repr.Errorf("3F000", "schema \"%s\" does not exist", s)
	case repr.KindRegRole:
		_, name := splitQualifiedName(s)
		if r, ok := c.s.e.role(name); ok {
			return r.OID, nil
		}
		return 0, repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", s)
	}
	return 0, repr.Unsupported("input of type %s", t.Name())
}

// RegOut implements expr.Catalog.
func (c sessionCatalog) RegOut(t repr.T, oid uint32) (string, bool) {
	if oid == 0 {
		return "-", true // InvalidOid, as PostgreSQL's reg*out print it
	}
	c.s.e.mu.RLock()
	defer c.s.e.mu.RUnlock()
	switch t.OIDKind {
	case repr.KindRegClass:
		if ri := c.snap().rel(oid); ri != nil {
			if ns := c.s.e.cat.namespaceName(ri.ns); !c.s.visible(c.s.e.cat, ns, ri.name) {
				return pgQuoteIdent(ns) + "." + pgQuoteIdent(ri.name), true
			}
			return pgQuoteIdent(ri.name), true
		}
	case repr.KindRegType:
		if typ, ok := repr.FromOID(oid); ok {
			return typ.Name(), true
		}
		if name, ok := pseudoTypeNames[oid]; ok {
			return name, true
		}
		if typ, ok := c.s.e.cat.compositeTypeByOID(oid); ok {
			return c.s.e.cat.compositeNameIn(typ, func(ns, name string) bool { return c.s.typeVisible(c.s.e.cat, ns, name) })
		}
	case repr.KindRegProc, repr.KindRegProcedure:
		if o := c.s.e.cat.byID[uint64(oid-firstUserOID)]; oid >= firstUserOID && o != nil && o.Kind == relFunction {
			if t.OIDKind == repr.KindRegProcedure {
				return pgQuoteIdent(o.Name) + "(" + strings.ReplaceAll(typeNames(o.Function.Args), ", ", ",") + ")", true
			}
			return pgQuoteIdent(o.Name), true
		}
		if p := procByOID(oid); p != nil {
			name := p.name
			if !strings.Contains(name, ".") { // qualified already where an overload needs it
				name = expr.QuoteIdent(name) // "timestamp"(date), as quote_identifier
			}
			if t.OIDKind == repr.KindRegProcedure {
				// format_procedure separates the types by a bare comma.
				return name + "(" + strings.ReplaceAll(p.argNames(), ", ", ",") + ")", true
			}
			return name, true
		}
	case repr.KindRegNamespace:
		if n := c.s.e.cat.namespaceName(oid); n != "" {
			return n, true
		}
	case repr.KindRegRole:
		if name := c.s.e.roleName(oid); name != "" {
			return pgQuoteIdent(name), true
		}
	}
	return "", false
}

// splitQualifiedName splits an identifier chain as regclass input reads
// it: unquoted parts folded to lower case; "" schema when unqualified.
func splitQualifiedName(s string) (schema, name string) {
	schema, name = parseRegclass(strings.TrimSpace(s))
	if !strings.Contains(s, ".") {
		schema = ""
	}
	return schema, name
}

// pgQuoteIdent quotes an identifier when PostgreSQL's quote_ident would.
func pgQuoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain && !parserKeywords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// parserKeywords are the reserved words an identifier must be quoted to
// be (the common ones).
var parserKeywords = map[string]bool{"select": true, "from": true, "where": true, "table": true, "user": true,
	"order": true, "group": true, "limit": true, "offset": true, "all": true, "and": true, "or": true, "not": true,
	"null": true, "true": true, "false": true, "check": true, "default": true, "primary": true, "references": true,
	"unique": true, "column": true, "constraint": true, "create": true, "case": true, "when": true, "end": true,
}

// derivedIndexOID finds a primary key or UNIQUE constraint index by name.
func (s *sysSnap) derivedIndexOID(name string) uint32 {
	for _, ri := range s.relations() {
		if ri.kind == 'i' && ri.obj == nil && ri.name == name {
			return ri.oid
		}
	}
	return 0
}

// Call implements expr.Catalog.
func (c sessionCatalog) Call(name string, a []repr.Datum) (repr.Datum, error) {
	if f := sessionFuncs[name]; f != nil {
		return f(c, a) // read or change the session, not the catalog
	}
	if f := catalogFuncs[name]; f != nil {
		c.s.e.mu.RLock()
		defer c.s.e.mu.RUnlock()
		return f(c, c.snap(), a)
	}
	if strings.HasPrefix(name, "has_") || name == "pg_has_role" {
		return repr.NewBool(true), nil
	}
	return repr.Null, nil // triggers, rules, statistics objects: none exist
}

// catalogFunc evaluates one catalog function; the caller holds e.mu.
type catalogFunc func(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error)

// catalogFuncs are the catalog functions that do more than answer NULL
// or true.
var catalogFuncs map[string]catalogFunc

func init() {
	catalogFuncs = map[string]catalogFunc{
		"pg_get_userbyid": func(c sessionCatalog, _ *sysSnap, a []repr.Datum) (repr.Datum, error) {
			if name := c.s.e.roleName(uint32(a[0].Int())); name != "" {
				return repr.NewText(name), nil
			}
			return repr.NewText(fmt.Sprintf("unknown (OID=%d)", a[0].Int())), nil
		},
		"oidvectortypes": func(_ sessionCatalog, _ *sysSnap, a []repr.Datum) (repr.Datum, error) {
			var oids []uint32
			for _, d := range a[0].Array() {
				oids = append(oids, uint32(d.Int()))
			}
			return repr.NewText(typeListNames(oids)), nil
		},
		"pg_table_is_visible":    relVisible,
		"pg_type_is_visible":     typeVisible,
		"pg_function_is_visible": alwaysTrue, "pg_collation_is_visible": alwaysTrue,
		"pg_opclass_is_visible": alwaysTrue, "pg_operator_is_visible": alwaysTrue,
		"pg_conversion_is_visible": alwaysTrue, "pg_statistics_obj_is_visible": alwaysTrue,
		"pg_ts_config_is_visible": alwaysTrue, "pg_ts_dict_is_visible": alwaysTrue, "pg_ts_parser_is_visible": alwaysTrue,
		"pg_ts_template_is_visible": alwaysTrue, "pg_opfamily_is_visible": alwaysTrue,
		"pg_tablespace_location": func(sessionCatalog, *sysSnap, []repr.Datum) (repr.Datum, error) {
			return repr.NewText(""), nil
		},
		"pg_is_in_recovery": func(sessionCatalog, *sysSnap, []repr.Datum) (repr.Datum, error) {
			return repr.NewBool(false), nil
		},
		"pg_my_temp_schema": func(c sessionCatalog, s *sysSnap, _ []repr.Datum) (repr.Datum, error) {
			return oidD(c.s.myTempSchemaOID(s.cat)), nil
		},
		"pg_is_other_temp_schema": func(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
			return repr.NewBool(c.s.isOtherTempSchema(s.cat, uint32(a[0].Int()))), nil
		},
		"pg_relation_is_publishable": func(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
			ri := s.rel(uint32(a[0].Int()))
			return repr.NewBool(ri != nil && ri.kind == 'r' && ri.obj != nil), nil
		},
		"pg_get_expr":            getExpr,
		"pg_get_viewdef":         getViewdef,
		"pg_get_indexdef":        getIndexdef,
		"pg_get_constraintdef":   getConstraintdef,
		"obj_description":        objDescription,
		"col_description":        colDescription,
		"pg_get_serial_sequence": getSerialSequence,
		"current_schemas": func(c sessionCatalog, _ *sysSnap, a []repr.Datum) (repr.Datum, error) {
			path := c.s.listedSchemas(c.s.e.cat)
			if a[0].Bool() {
				path = c.s.searchPath(c.s.e.cat)
			}
			names := []repr.Datum{}
			for _, n := range path {
				names = append(names, repr.NewText(n))
			}
			return repr.NewArray(names), nil
		},
		"pg_postmaster_start_time": startTime, "pg_conf_load_time": startTime,
		"txid_current": func(c sessionCatalog, _ *sysSnap, _ []repr.Datum) (repr.Datum, error) {
			return repr.NewInt(int64(c.s.e.clock)), nil
		},
		"pg_relation_size": relationSize, "pg_total_relation_size": relationSize,
		"pg_table_size": relationSize, "pg_indexes_size": relationSize,
		"pg_database_size": func(sessionCatalog, *sysSnap, []repr.Datum) (repr.Datum, error) {
			return repr.NewInt(8 << 20), nil
		},
		"current_setting": func(c sessionCatalog, _ *sysSnap, a []repr.Datum) (repr.Datum, error) {
			if v, ok := c.s.settings.get(strings.ToLower(a[0].Text())); ok {
				return repr.NewText(v), nil
			}
			if a[1].Bool() {
				return repr.Null, nil
			}
			return repr.Null, repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].Text())
		},
	}
	catalogFuncs["pg_current_xact_id"] = catalogFuncs["txid_current"]
	catalogFuncs["pg_stat_get_numscans"] = statGetNumscans
	catalogFuncs["has_table_privilege"] = hasPrivilege(privOnTable)
	catalogFuncs["has_any_column_privilege"] = hasAnyColumnPrivilege
	catalogFuncs["has_column_privilege"] = hasColumnPrivilege
	catalogFuncs["has_schema_privilege"] = hasPrivilege(privOnSchema)
	catalogFuncs["has_sequence_privilege"] = hasPrivilege(privOnSequence)
	catalogFuncs["has_function_privilege"] = hasPrivilege(privOnFunction)
	catalogFuncs["has_type_privilege"] = hasPrivilege(privOnType)
	catalogFuncs["has_database_privilege"] = hasPrivilege(privOnDatabase)
	addProcFuncs()
}

// sessionFunc evaluates a catalog-registered function that reads or
// changes the session (or other sessions) rather than the catalog: it runs
// without the engine's lock.
type sessionFunc func(c sessionCatalog, a []repr.Datum) (repr.Datum, error)

// voidText stands for PostgreSQL's void result (pg_notify, pg_sleep): Eddy
// has no void type, and void's text output is the empty string (not NULL).
var voidText = repr.NewText("")

// sessionFuncs are the session functions by name.
var sessionFuncs = map[string]sessionFunc{
	"set_config": func(c sessionCatalog, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "SET requires parameter name")
		}
		if err := c.s.setting(a[0].Text(), a[1].Text(), a[2].Bool()); err != nil {
			return repr.Null, err
		}
		v, _ := c.s.settings.get(strings.ToLower(a[0].Text()))
		return repr.NewText(v), nil
	},
	"pg_backend_pid": func(c sessionCatalog, _ []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(int64(c.s.backend.PID)), nil
	},
	"pg_blocking_pids": func(c sessionCatalog, a []repr.Datum) (repr.Datum, error) {
		return c.s.e.blockingPIDs(int32(a[0].Int())), nil
	},
	"pg_cancel_backend": func(c sessionCatalog, a []repr.Datum) (repr.Datum, error) {
		return c.s.signalBackend(a[0].Int(), func(t *Session) func() { return t.backend.Cancel }), nil
	},
	"pg_terminate_backend": func(c sessionCatalog, a []repr.Datum) (repr.Datum, error) {
		if len(a) > 1 && a[1].Int() < 0 {
			return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "\"timeout\" must not be negative")
		}
		return c.s.signalBackend(a[0].Int(), func(t *Session) func() { return t.backend.Terminate }), nil
	},
	"pg_stat_force_next_flush": func(sessionCatalog, []repr.Datum) (repr.Datum, error) { return voidText, nil },
	"pg_stat_clear_snapshot":   func(sessionCatalog, []repr.Datum) (repr.Datum, error) { return voidText, nil },
	"pg_sleep": func(c sessionCatalog, a []repr.Datum) (repr.Datum, error) {
		secs := a[0].Float()
		if secs > 0 {
			return voidText, c.s.sleep(time.Duration(min(secs, 1e9) * float64(time.Second)))
		}
		return voidText, nil
	},
	"pg_notify": func(c sessionCatalog, a []repr.Datum) (repr.Datum, error) {
		channel := ""
		if !a[0].IsNull() {
			channel = a[0].Text()
		}
		return voidText, c.s.queueNotify(channel, a[1])
	},
}

func alwaysTrue(sessionCatalog, *sysSnap, []repr.Datum) (repr.Datum, error) {
	return repr.NewBool(true), nil
}

func startTime(sessionCatalog, *sysSnap, []repr.Datum) (repr.Datum, error) {
	return repr.NewTimestampTZ(repr.TimeToTimestamp(processStart)), nil
}

// relVisible is pg_table_is_visible: the relation's schema is on the
// search path, first among the schemas holding its name (searchpath.go).
func relVisible(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	ri := s.rel(uint32(a[0].Int()))
	if ri == nil {
		return repr.Null, nil
	}
	return repr.NewBool(c.s.visible(s.cat, s.cat.namespaceName(ri.ns), ri.name)), nil
}

// typeVisible is pg_type_is_visible: a composite type (or its array
// type) is visible when its unqualified name finds it; built-in types are.
func typeVisible(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	t, ok := s.cat.compositeTypeByOID(uint32(a[0].Int()))
	if !ok {
		return repr.NewBool(true), nil
	}
	o := s.cat.userTypeByOID(userTypeOID(t))
	return repr.NewBool(c.s.typeVisible(s.cat, o.Schema, o.Name)), nil
}

// relationSize estimates a relation's size in bytes: its rows times a
// nominal row width (Eddy keeps rows in memory and Pebble, not pages).
func relationSize(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	ri := s.rel(uint32(a[0].Int()))
	if ri == nil {
		return repr.Null, nil
	}
	n := 0
	if ri.obj != nil && c.s.e.colls[ri.obj.ID] != nil {
		n = c.s.e.colls[ri.obj.ID].Len()
	}
	return repr.NewInt(int64(n * (24 + 8*len(ri.cols)))), nil
}

// getExpr is pg_get_expr(expression, relation oid [, pretty]): adbin and
// conbin hold a column DEFAULT's or CHECK constraint's SQL text, printed
// in PostgreSQL's form (deparseExpr); a DEFAULT's unknown-typed literal
// takes its column's type.
func getExpr(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	ri := s.rel(uint32(a[1].Int()))
	if a[0].IsNull() || ri == nil || ri.obj == nil || ri.obj.rel == nil {
		return a[0], nil
	}
	text, want := a[0].Text(), noWant
	for _, c := range ri.obj.Columns {
		if c.Default == text {
			want = c.Type
			break
		}
	}
	pretty := len(a) > 2 && !a[2].IsNull() && a[2].Bool()
	if out, ok := deparseExpr(s.cat, ri.obj.rel, text, want, pretty); ok {
		return repr.NewText(out), nil
	}
	return a[0], nil
}

// getViewdef is pg_get_viewdef(view oid or name [, pretty]): the view's
// defining query in PostgreSQL's deparsed form (viewdef.go).
func getViewdef(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	var o *Object
	if a[0].Family() == repr.FamText {
		schema, name := splitQualifiedName(a[0].Text())
		o = s.cat.lookup(schema, name)
	} else if ri := s.rel(uint32(a[0].Int())); ri != nil {
		o = ri.obj
	}
	if o == nil || (o.Kind != planner.RelView && o.Kind != planner.RelMaterializedView) || o.SQL == "" {
		return repr.Null, nil
	}
	pretty := len(a) > 1 && !a[1].IsNull() && a[1].Bool()
	return repr.NewText(deparseView(s.cat, o, pretty)), nil
}

// getIndexdef is pg_get_indexdef(index oid [, column, pretty]): the
// CREATE INDEX statement, or with column > 0 that column's name.
func getIndexdef(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	ri := s.rel(uint32(a[0].Int()))
	if ri == nil || ri.index == nil {
		return repr.Null, nil
	}
	ix := ri.index
	table := s.rel(ix.table)
	pretty := len(a) > 2 && !a[2].IsNull() && a[2].Bool()
	if len(a) > 1 && a[1].Int() > 0 {
		k := int(a[1].Int())
		if x, ok := ix.expr(k - 1); ok {
			return repr.NewText(indexExprDef(s, table, x, pretty)), nil
		}
		if k <= len(ri.cols) {
			return repr.NewText(pgQuoteIdent(ri.cols[k-1].Name)), nil
		}
		return repr.NewText(""), nil
	}
	var cols, include []string
	for i, c := range ri.cols {
		col := pgQuoteIdent(c.Name)
		if x, ok := ix.expr(i); ok {
			col = indexExprDef(s, table, x, pretty)
		}
		if i >= ix.keyParts() {
			include = append(include, col)
			continue
		}
		if i < len(ix.desc) && ix.desc[i] {
			col += " DESC"
		}
		cols = append(cols, col)
	}
	unique := ""
	if ix.unique {
		unique = "UNIQUE "
	}
	def := fmt.Sprintf("CREATE %sINDEX %s ON %s.%s USING %s (%s)", unique, pgQuoteIdent(ri.name),
		pgQuoteIdent(s.cat.namespaceName(table.ns)), pgQuoteIdent(table.name), ix.method, strings.Join(cols, ", "))
	if len(include) > 0 {
		def += " INCLUDE (" + strings.Join(include, ", ") + ")"
	}
	if ix.nullsNotDistinct {
		def += " NULLS NOT DISTINCT"
	}
	if ix.where != "" {
		where, ok := "", false
		if table.obj != nil {
			where, ok = deparseExpr(s.cat, table.obj.rel, ix.where, noWant, pretty)
		}
		if !ok {
			where = indexExprElement(ix.where, false)
		}
		def += " WHERE " + where
	}
	return repr.NewText(def), nil
}

// indexExprDef prints index expression x of table as pg_get_indexdef
// does (pg_get_indexdef_worker): deparsed as a view's expression would be
// (constants with their types, 'g'::s.col), in parentheses unless it
// looks like a function call; pretty drops the deparser's own outer
// parentheses, as ruleutils.c's PRETTYFLAG_PAREN does.
func indexExprDef(s *sysSnap, table *relInfo, x string, pretty bool) string {
	if table == nil || table.obj == nil {
		return indexExprElement(x, true)
	}
	out, ok := deparseExpr(s.cat, table.obj.rel, x, noWant, pretty)
	if !ok {
		return indexExprElement(x, true)
	}
	if n, err := parseExpr(x); err == nil && nodeLooksLikeFunction(n) {
		return out
	}
	return "(" + out + ")"
}

// getConstraintdef is pg_get_constraintdef(constraint oid [, pretty]) in
// PostgreSQL's syntax (SQLAlchemy parses the FOREIGN KEY form).
func getConstraintdef(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	id, k := splitDerivedOID(uint32(a[0].Int()))
	o := s.cat.byID[id]
	if uint32(a[0].Int())>>30 != 1 || o == nil || k > len(o.Constraints) || (k == 0 && len(o.PrimaryKey) == 0) {
		return repr.Null, nil
	}
	names := func(obj *Object, cols []int) string {
		var out []string
		for _, c := range cols {
			out = append(out, pgQuoteIdent(obj.Columns[c].Name))
		}
		return strings.Join(out, ", ")
	}
	if k == 0 {
		return repr.NewText("PRIMARY KEY (" + names(o, o.PrimaryKey) + ")"), nil
	}
	c := o.Constraints[k-1]
	var def string
	switch c.Kind {
	case "unique":
		def = "UNIQUE (" + names(o, c.Cols) + ")"
	case "check":
		pretty := len(a) > 1 && a[1].Bool()
		x, ok := deparseExpr(s.cat, o.rel, c.Check, noWant, pretty)
		if !ok {
			x = "(" + c.Check + ")"
			if pretty {
				x = c.Check
			}
		}
		def = "CHECK (" + x + ")"
	case "foreign":
		ref := s.cat.byID[c.RefTable]
		if ref == nil {
			return repr.Null, nil
		}
		def = fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s(%s)", names(o, c.Cols), pgQuoteIdent(ref.Name), names(ref, c.RefCols))
		def += fkActionText(" ON UPDATE ", c.OnUpdate) + fkActionText(" ON DELETE ", c.OnDelete)
		if c.Deferred {
			def += " DEFERRABLE INITIALLY DEFERRED"
		}
	}
	return repr.NewText(def), nil
}

// fkActionText prints a referential action other than NO ACTION.
func fkActionText(prefix string, a byte) string {
	if t, ok := map[byte]string{'r': "RESTRICT", 'c': "CASCADE", 'n': "SET NULL", 'd': "SET DEFAULT"}[a]; ok {
		return prefix + t
	}
	return ""
}

// objDescription is obj_description(oid [, catalog]): a relation's
// comment.
func objDescription(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	if len(a) > 1 && a[1].Text() == "pg_namespace" {
		for _, n := range s.cat.schemaList() {
			if n.OID() == uint32(a[0].Int()) && n.ID == 0 {
				return textD(builtinSchemaComments[n.Name]), nil
			}
		}
		return repr.Null, nil
	}
	if len(a) > 1 && a[1].Text() != "pg_class" {
		return repr.Null, nil
	}
	if ri := s.rel(uint32(a[0].Int())); ri != nil && ri.obj != nil {
		return textD(ri.obj.Comment), nil
	}
	return repr.Null, nil
}

// colDescription is col_description(table oid, attnum): a column's
// comment.
func colDescription(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	ri := s.rel(uint32(a[0].Int()))
	n := int(a[1].Int())
	if ri == nil || ri.obj == nil || n < 1 || n > len(ri.obj.Columns) {
		return repr.Null, nil
	}
	return textD(ri.obj.Columns[n-1].Comment), nil
}

// getSerialSequence is pg_get_serial_sequence(table, column): the
// sequence a serial or identity column's default draws from.
func getSerialSequence(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	schema, name := splitQualifiedName(a[0].Text())
	o := s.cat.lookup(schema, name)
	if o == nil {
		return repr.Null, repr.ErrUndefinedTable.New(a[0].Text())
	}
	i := columnIndex(o.Columns, a[1].Text())
	if i < 0 {
		return repr.Null, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", a[1].Text(), o.Name)
	}
	seq := s.cat.byID[o.Columns[i].Seq]
	if seq == nil {
		return repr.Null, nil
	}
	return repr.NewText(pgQuoteIdent(seq.Schema) + "." + pgQuoteIdent(seq.Name)), nil
}

// catalogSession builds a session's expr.Catalog.
func catalogSession(s *Session) expr.Catalog { return sessionCatalog{s} }
