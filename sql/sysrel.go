package sql

import (
	"fmt"
	"sort"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// The system catalog.
//
// pg_catalog and information_schema are one registry of system relations
// (sysRels): each has a schema, a name, PostgreSQL's column names and
// types, a reserved collection ID (below firstUserID) and a function that
// computes its rows from a snapshot of Eddy's catalog when a query reads
// it. The planner sees them as read-only relations like any other (so
// they compose with joins, subqueries, aggregates...); the query's input
// snapshot (queryInputs) computes their rows under the engine's read lock,
// at the same logical time as every other input. They are never stored
// or maintained: a materialized view or subscription over one is 0A000
// (checkMaintainable), and DML on one is refused as on any view.
//
// OIDs: a user object's OID is 16384 + its catalog ID (IDs are never
// reused, so OIDs are stable across restarts and never reused either);
// a system relation has PostgreSQL's OID where PostgreSQL has one. The
// primary key and the constraints of a table, which are not catalog
// objects in Eddy, get OIDs derived from the table's ID (pkIndexOID,
// constraintOID). Types keep PostgreSQL's OIDs.
//
// Name resolution follows PostgreSQL's search path with pg_catalog
// implicitly first: an unqualified name is looked up in pg_catalog, then
// public, then eddy_catalog (Eddy's own system relations).

// The namespaces and their OIDs.
const (
	nsPgCatalog   = "pg_catalog"
	nsInfoSchema  = "information_schema"
	nsPublic      = "public"
	nsEddyCatalog = "eddy_catalog"

	oidPgCatalog   uint32 = 11
	oidPublic      uint32 = 2200
	oidInfoSchema  uint32 = 13000
	oidEddyCatalog uint32 = 16000
	// oidSuperuser is the one role, PostgreSQL's bootstrap superuser.
	oidSuperuser uint32 = 10
	// oidDatabaseOwner is the pg_database_owner role, public's owner.
	oidDatabaseOwner uint32 = 6171
	// oidDatabase is the one database.
	oidDatabase uint32 = 16384
	// firstUserOID is PostgreSQL's FirstNormalObjectId.
	firstUserOID uint32 = 16384
)

// sysRel is one system relation of pg_catalog or information_schema.
type sysRel struct {
	id           uint64
	oid          uint32
	schema, name string
	// view marks relations PostgreSQL defines as views (relkind 'v').
	view bool
	cols []ColumnDef
	// rows computes the relation's rows from a catalog snapshot.
	rows func(s *sysSnap) []repr.Row
	rel  *planner.Relation
	// index maps a column name to its position.
	index map[string]int
}

// sysRels is the registry, by ID and by qualified name. It is filled by
// the init functions of the sysrel_*.go files and read-only afterwards.
var (
	sysRelsByID   = map[uint64]*sysRel{}
	sysRelsByName = map[string]*sysRel{}
	sysRelsByOID  = map[uint32]*sysRel{}
)

// defSysRel registers a system relation. cols is PostgreSQL's column list
// as "name type, name type, ..." (format_type's names).
func defSysRel(id uint64, oid uint32, schema, name string, view bool, cols string, rows func(*sysSnap) []repr.Row) {
	if id == 0 || id >= firstUserID || sysRelsByID[id] != nil {
		panic(fmt.Sprintf("system relation %s: bad or duplicate ID %d", name, id))
	}
	r := &sysRel{id: id, oid: oid, schema: schema, name: name, view: view, cols: parseSysCols(cols), rows: rows,
		index: map[string]int{}}
	r.rel = &planner.Relation{ID: repr.CollectionID(id), Schema: schema, Name: name, Kind: planner.RelMaterializedView}
	for i, c := range r.cols {
		r.rel.Columns = append(r.rel.Columns, planner.Column{Name: c.Name, Type: c.Type})
		r.index[c.Name] = i
	}
	// tableoid and xmin, PostgreSQL's system columns, which psql's \dd
	// and \dL join on and pgAdmin reads; snapshot appends them to every
	// row. Eddy has no transaction IDs: xmin (xid, presented as bigint like
	// every xid) is 2, PostgreSQL's FrozenTransactionId, "older than every
	// snapshot", which is what a catalog row computed at the read is.
	r.rel.Columns = append(r.rel.Columns, planner.Column{Name: "tableoid", Type: repr.OIDT, System: true},
		planner.Column{Name: "xmin", Type: repr.Int8, System: true})
	sysRelsByID[id], sysRelsByName[qualified(schema, name)], sysRelsByOID[oid] = r, r, r
}

// sysTypeAliases maps the types of PostgreSQL's catalog columns that Eddy
// lacks to the types Eddy presents instead (the information_schema
// domains to their base types).
var sysTypeAliases = map[string]string{
	"pg_node_tree": "text", "anyarray": "text", "xid": "bigint", "inet": "text", "pg_lsn": "text",
	"information_schema.sql_identifier": "name", "information_schema.cardinal_number": "integer",
	"information_schema.character_data": "character varying", "information_schema.yes_or_no": "character varying(3)",
	"information_schema.time_stamp": "timestamp with time zone",
	"pg_ndistinct":                  "text", "pg_dependencies": "text", "pg_mcv_list": "text", "pg_statistic[]": "text",
}

// parseSysCols parses a column list of defSysRel.
func parseSysCols(s string) []ColumnDef {
	var out []ColumnDef
	for _, c := range strings.Split(s, ", ") {
		name, typ, _ := strings.Cut(strings.TrimSpace(c), " ")
		if a, ok := sysTypeAliases[typ]; ok {
			typ = a
		}
		t, err := parseTypeText(typ)
		if err != nil {
			panic(fmt.Sprintf("system relation column %s: %v", c, err))
		}
		out = append(out, ColumnDef{Name: strings.Trim(name, `"`), Type: t})
	}
	return out
}

// parseTypeText resolves a format_type name such as "character
// varying(3)" or "aclitem[]".
func parseTypeText(s string) (repr.T, error) {
	if elem, ok := strings.CutSuffix(s, "[]"); ok {
		t, err := parseTypeText(elem)
		return repr.ArrayOf(t), err
	}
	var mods []int32
	if i := strings.IndexByte(s, '('); i > 0 {
		var n int32
		fmt.Sscanf(s[i:], "(%d)", &n)
		s, mods = s[:i], []int32{n}
	}
	return repr.TypeByName(s, mods)
}

// lookupSysRel finds a system relation by possibly empty schema (the
// search path: pg_catalog only, since information_schema is not on it).
func lookupSysRel(schema, name string) *sysRel {
	if schema == "" {
		schema = nsPgCatalog
	}
	return sysRelsByName[qualified(schema, name)]
}

// sysSnap is what a system relation's rows are computed from: the
// catalog and session as of the reading query. Its methods are called
// with the engine's lock held.
type sysSnap struct {
	e    *Engine
	cat  *Catalog
	sess *expr.SessionInfo
	// stmt is the reading statement's now(), in microseconds since
	// 2000-01-01 UTC (0 outside a query).
	stmt int64
	// rels and byOID are the relations, computed on first use.
	rels  []*relInfo
	byOID map[uint32]*relInfo
}

// row builds a row of r from named values; the other columns take their
// type's zero value (false, 0, ”) or NULL (text, arrays, times), as
// PostgreSQL's catalogs hold no NULLs in fixed-width columns.
func (r *sysRel) row(vals map[string]repr.Datum) repr.Row {
	row := make(repr.Row, len(r.cols))
	for i, c := range r.cols {
		if v, ok := vals[c.Name]; ok {
			row[i] = v
			continue
		}
		row[i] = zeroDatum(c.Type)
	}
	for k := range vals {
		if _, ok := r.index[k]; !ok {
			panic(fmt.Sprintf("system relation %s has no column %s", r.name, k))
		}
	}
	return row
}

// zeroDatum is the value of an unset catalog column of type t.
func zeroDatum(t repr.T) repr.Datum {
	switch {
	case t.Family == repr.FamBool:
		return repr.NewBool(false)
	case t.Family == repr.FamInt:
		return repr.NewInt(0)
	case t.Family == repr.FamFloat:
		return repr.NewFloat(0)
	case t.Family == repr.FamText && (t.Kind == repr.KindName || t.Kind == repr.KindQChar):
		return repr.NewText("")
	}
	return repr.Null
}

// snapshot computes the rows of system relation id as updates at t.
// frozenXmin is every system row's xmin: FrozenTransactionId.
var frozenXmin = repr.NewInt(2)

func (r *sysRel) snapshot(s *sysSnap, t repr.Time) []repr.Update {
	rows := r.rows(s)
	out := make([]repr.Update, len(rows))
	for i, row := range rows {
		out[i] = repr.Update{Row: append(row, oidD(r.oid), frozenXmin), Time: t, Diff: 1}
	}
	return out
}

// sysSnapshot returns the rows of system relation id at t, as the
// transaction ws sees the catalog, and whether id is one.
func (e *Engine) sysSnapshot(id uint64, ctx *expr.Ctx, t repr.Time, ws *writeSet) ([]repr.Update, bool) {
	r := sysRelsByID[id]
	if r == nil {
		return nil, false
	}
	s := &sysSnap{e: e, cat: e.catalogOf(ws)}
	if ctx != nil {
		s.sess, s.stmt = ctx.Session, ctx.StmtTimestamp
	}
	return r.snapshot(s, t), true
}

// sysRelList returns the system relations in ID order.
func sysRelList() []*sysRel {
	out := make([]*sysRel, 0, len(sysRelsByID))
	for _, r := range sysRelsByID {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// relOID returns the OID of the relation with catalog ID id.
func relOID(id uint64) uint32 {
	if r := sysRelsByID[id]; r != nil {
		return r.oid
	}
	if id < firstUserID {
		return 15000 + uint32(id) // eddy_catalog's engine-maintained relations
	}
	return firstUserOID + uint32(id)
}

// OIDs of the objects Eddy keeps inside a table's catalog entry: the
// primary key's index and each constraint (k = 0 the primary key, k = i+1
// Constraints[i]), and column defaults.
func pkIndexOID(id uint64, k int) uint32    { return 1<<29 | uint32(id)<<8 | uint32(k) }
func constraintOID(id uint64, k int) uint32 { return 1<<30 | uint32(id)<<8 | uint32(k) }
func attrdefOID(id uint64, attnum int) uint32 {
	return 1<<28 | uint32(id)<<10 | uint32(attnum)
}

// splitDerivedOID decodes an OID of pkIndexOID or constraintOID: the
// table's ID and k.
func splitDerivedOID(oid uint32) (id uint64, k int) {
	return uint64(oid&^(3<<29)) >> 8, int(oid & 0xff)
}
