package sql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// Temporary objects, as PostgreSQL has them (namespace.c).
//
// A session that creates a temporary table, view or sequence (CREATE
// TEMP ..., CREATE TABLE pg_temp.x, SELECT ... INTO TEMP, a view reading
// a temporary relation) gets a number N, kept until it ends, and its
// objects live in schema pg_temp_N (with its companion pg_toast_temp_N,
// which holds nothing in Eddy). The schemas are system schemas made on
// first use, never persisted; pg_namespace lists every session's, and
// pg_class shows their relations with relpersistence 't'.
//
// Name resolution (searchpath.go) searches the session's own temporary
// schema first, before pg_catalog, unless search_path lists pg_temp,
// which then stands at that place; another session's temporary schema is
// never searched, and naming it refuses the statement (0A000, as
// PostgreSQL refuses to read other sessions' temporary tables).
//
// Temporary objects are ordinary catalog objects otherwise: they are
// written to Pebble like any table (so the write path, views over them
// in the same session and transactional DDL need nothing special), and
// removed when the session ends (DISCARD TEMP, run by Session.Close also
// when the connection breaks) or, after a crash, when the engine opens
// (dropTempLeftovers): they never survive a restart. ON COMMIT DROP and
// ON COMMIT DELETE ROWS act at the end of every transaction of the
// session (autocommit statements included), as in PostgreSQL.
//
// A materialized view may not read a temporary relation (0A000, as
// PostgreSQL): it would outlive what it reads. A plain view that reads
// one becomes temporary itself (NOTICE), or fails with 42P16 when it
// names a permanent schema.

const (
	tempSchemaPrefix  = "pg_temp_"
	toastTempPrefix   = "pg_toast_temp_"
	tempSchemaAlias   = "pg_temp"
	tempSchemaOIDBase = uint32(0x7F000000)
	// codeInvalidTableDefinition (42P16) is declared in view_replace.go.
)

// tempNumber parses N from a temporary schema's name pg_temp_N (0 if it
// is not one).
func tempNumber(ns string) int {
	if !strings.HasPrefix(ns, tempSchemaPrefix) {
		return 0
	}
	n, err := strconv.Atoi(ns[len(tempSchemaPrefix):])
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// isTempSchema reports whether ns is some session's temporary schema.
func isTempSchema(ns string) bool { return tempNumber(ns) > 0 }

// tempNumbers hands out the sessions' temporary schema numbers: the
// lowest free one from 3 (PostgreSQL's first client backend usually
// has BackendId 3), freed when the session ends.
type tempNumbers struct {
	mu   sync.Mutex
	used map[int]bool
}

func (t *tempNumbers) take() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used == nil {
		t.used = map[int]bool{}
	}
	n := 3
	for t.used[n] {
		n++
	}
	t.used[n] = true
	return n
}

func (t *tempNumbers) free(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.used, n)
}

// tempSchema returns the name of the session's temporary schema,
// taking a number on first use.
func (s *Session) tempSchema() string {
	if s.tempNum == 0 {
		s.tempNum = s.e.temps.take()
	}
	return tempSchemaPrefix + strconv.Itoa(s.tempNum)
}

// ownTempSchema returns the name of the session's temporary schema if
// it exists in cat ("" otherwise).
func (s *Session) ownTempSchema(cat *Catalog) string {
	if s.tempNum == 0 {
		return ""
	}
	n := tempSchemaPrefix + strconv.Itoa(s.tempNum)
	if cat.schemas[n] == nil {
		return ""
	}
	return n
}

// ensureTempSchema adds temporary schema name (and its toast companion)
// to the catalog if missing. The caller holds e.mu.
func (e *Engine) ensureTempSchema(name string) {
	n := tempNumber(name)
	if n == 0 || e.cat.schemas[name] != nil {
		return
	}
	e.cat.schemas[name] = &Schema{Name: name, oid: tempSchemaOIDBase + 2*uint32(n), system: true, temp: true}
	toast := toastTempPrefix + strconv.Itoa(n)
	e.cat.schemas[toast] = &Schema{Name: toast, oid: tempSchemaOIDBase + 2*uint32(n) + 1, system: true, temp: true}
	e.cat.version++
}

// isTemp reports whether o is a temporary object.
func (o *Object) isTemp() bool { return isTempSchema(o.Schema) }

// tempTarget qualifies the name of a temporary object being created:
// an unqualified name or one in pg_temp (or the session's own pg_temp_N)
// goes to the session's temporary schema; another schema is 42P16.
func (q *qualifier) tempTarget(rv *pg.RangeVar) error {
	if err := q.catalogName(rv); err != nil {
		return err
	}
	switch ns := rv.Schemaname; {
	case ns == "" || ns == tempSchemaAlias || (isTempSchema(ns) && ns == q.s.tempSchema()):
		rv.Schemaname, rv.Relpersistence = q.s.tempSchema(), "t"
		return nil
	case isTempSchema(ns):
		return errOtherTemp
	}
	return repr.Errorf(codeInvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
}

// wantsTemp reports whether a created name is temporary: TEMP, or a
// schema of pg_temp (explicit, or first on search_path).
func (q *qualifier) wantsTemp(rv *pg.RangeVar) bool {
	if rv.Relpersistence == "t" {
		return true
	}
	if rv.Schemaname == "" {
		return q.s.createsTempFirst(q.cat)
	}
	return rv.Schemaname == tempSchemaAlias || (isTempSchema(rv.Schemaname) && rv.Schemaname == q.s.ownTempSchema(q.cat))
}

// createsTempFirst reports whether an unqualified CREATE goes to the
// temporary schema: pg_temp comes first among search_path's usable
// entries (PostgreSQL creates the schema then if needed).
func (s *Session) createsTempFirst(cat *Catalog) bool {
	v, _ := s.settings.get("search_path")
	for _, n := range searchPathList(v) {
		if n == "$user" {
			n = s.currentUser()
		}
		if n == tempSchemaAlias {
			return true
		}
		if cat.schemas[n] != nil {
			return false
		}
	}
	return false
}

// errOtherTemp refuses a name in another session's temporary schema.
var errOtherTemp = repr.Errorf(repr.CodeFeatureNotSupported, "cannot access temporary tables of other sessions")

// readsTemp reports whether statement n, its names qualified, reads a
// relation of a temporary schema.
func readsTemp(n *pg.Node) bool {
	found := false
	walkProtoPruned(n, func(m proto.Message) bool {
		if rv, ok := m.(*pg.RangeVar); ok && isTempSchema(rv.Schemaname) {
			found = true
		}
		return !found
	})
	return found
}

// tempView checks a CREATE VIEW whose names are qualified (explicit
// tells whether its own name was qualified in the text): a view reading
// a temporary relation becomes temporary, as PostgreSQL's DefineView
// makes it, unless it names a permanent schema (42P16).
func (q *qualifier) tempView(vs *pg.ViewStmt, explicit bool) error {
	if isTempSchema(vs.View.Schemaname) || !readsTemp(vs.Query) {
		return nil
	}
	q.s.addNotice(repr.Errorf("00000", "view \"%s\" will be a temporary view", vs.View.Relname))
	if explicit {
		return repr.Errorf(codeInvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	vs.View.Schemaname, vs.View.Relpersistence = q.s.tempSchema(), "t"
	return nil
}

// errTempMatView is PostgreSQL's refusal of a materialized view over a
// temporary relation.
var errTempMatView = repr.Errorf(repr.CodeFeatureNotSupported, "materialized views must not use temporary tables or views")

// onCommitAction is what a temporary table does at the end of each
// transaction (ON COMMIT DROP or DELETE ROWS).
type onCommitAction struct {
	schema, name string
	drop         bool
}

// noteOnCommit records a CREATE TABLE's ON COMMIT clause (42P16 on a
// permanent table, as PostgreSQL).
func (s *Session) noteOnCommit(rel *pg.RangeVar, oc pg.OnCommitAction) error {
	switch oc {
	case pg.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED, pg.OnCommitAction_ONCOMMIT_NOOP, pg.OnCommitAction_ONCOMMIT_PRESERVE_ROWS:
		if oc == pg.OnCommitAction_ONCOMMIT_PRESERVE_ROWS && !isTempSchema(rel.Schemaname) {
			return errOnCommitPermanent
		}
		return nil
	}
	if !isTempSchema(rel.Schemaname) {
		return errOnCommitPermanent
	}
	s.onCommit = append(s.onCommit, onCommitAction{schema: rel.Schemaname, name: rel.Relname, drop: oc == pg.OnCommitAction_ONCOMMIT_DROP})
	return nil
}

var errOnCommitPermanent = repr.Errorf(codeInvalidTableDefinition, "ON COMMIT can only be used on temporary tables")

// checkOnCommit refuses ON COMMIT on a permanent table before anything
// is created.
func checkOnCommit(rel *pg.RangeVar, oc pg.OnCommitAction) error {
	switch oc {
	case pg.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED, pg.OnCommitAction_ONCOMMIT_NOOP:
		return nil
	}
	if !isTempSchema(rel.Schemaname) {
		return errOnCommitPermanent
	}
	return nil
}

// runOnCommit applies the ON COMMIT actions once the session's
// transaction has ended: tables to drop are dropped (and forgotten),
// tables to empty are emptied. Tables gone already (rolled back,
// dropped) are forgotten.
func (s *Session) runOnCommit(ctx context.Context) {
	if len(s.onCommit) == 0 || s.tx != txIdle || s.inOnCommit {
		return
	}
	s.inOnCommit = true
	defer func() { s.inOnCommit = false }()
	var keep []onCommitAction
	for _, a := range s.onCommit {
		var exists bool
		s.e.readLocked(func() { exists = s.e.cat.lookup(a.schema, a.name) != nil })
		if !exists {
			continue
		}
		q := qualifiedText(a.schema, a.name)
		if a.drop {
			s.runInternal(ctx, "DROP TABLE IF EXISTS "+q+" CASCADE")
			continue
		}
		s.runInternal(ctx, "DELETE FROM "+q)
		keep = append(keep, a)
	}
	s.onCommit = keep
}

// runInternal executes one statement of the session's own making,
// discarding its rows and notices; a failure is logged.
func (s *Session) runInternal(ctx context.Context, sql string) {
	saved := s.notices
	defer func() { s.notices = saved }()
	stmts, err := s.Prepare(ctx, sql, nil)
	if err == nil {
		var p *Portal
		if p, err = stmts[0].Bind(ctx, nil, nil, nil); err == nil {
			_, _, err = p.Execute(ctx, dropRows{}, 0)
		}
	}
	if err != nil {
		s.e.log.Warn("temporary objects: internal statement failed", "sql", sql, "err", err)
		if s.tx == txFailed {
			s.endRollback()
		}
	}
}

// dropRows is a RowWriter that drops what it is given.
type dropRows struct{}

func (dropRows) WriteRow([][]byte) error { return nil }

// dropTemps ends the session's temporary objects (Session.Close).
func (s *Session) dropTemps() {
	if s.tempNum == 0 {
		return
	}
	var exists bool
	s.e.readLocked(func() { exists = s.ownTempSchema(s.e.cat) != "" })
	if exists {
		s.runInternal(context.Background(), "DISCARD TEMP")
		s.e.readLocked(func() { exists = s.ownTempSchema(s.e.cat) != "" })
	}
	if !exists { // else the number stays taken: its objects go at the next start
		s.e.temps.free(s.tempNum)
	}
	s.tempNum, s.onCommit = 0, nil
}

// discardTemp drops the session's temporary objects and schemas
// (DISCARD TEMP).
func (s *Session) discardTemp() error {
	s.onCommit = nil
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	name := s.ownTempSchema(e.cat)
	if name == "" {
		return nil
	}
	if err := e.dropTempObjectsLocked(e.cat.objectsIn(name)); err != nil {
		return err
	}
	delete(e.cat.schemas, name)
	delete(e.cat.schemas, toastTempPrefix+strconv.Itoa(tempNumber(name)))
	e.cat.version++
	return nil
}

// dropTempObjectsLocked drops objs, latest first, each with what
// depends on it. The caller holds e.mu.
func (e *Engine) dropTempObjectsLocked(objs []*Object) error {
	sort.Slice(objs, func(i, j int) bool { return objs[i].ID > objs[j].ID })
	for _, o := range objs {
		if e.cat.byID[o.ID] == nil {
			continue // dropped with an earlier one
		}
		if err := e.dropLocked(o, true); err != nil {
			return fmt.Errorf("dropping temporary %s %s.%s: %w", kindName(o.Kind), o.Schema, o.Name, err)
		}
	}
	return nil
}

// dropTempLeftovers drops the temporary objects a crash left in the
// store: no session owns them once the engine opens.
func (e *Engine) dropTempLeftovers() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var objs []*Object
	for _, o := range e.cat.objects() {
		if o.isTemp() && o.Kind != relFunction {
			objs = append(objs, o)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	for _, o := range objs {
		e.ensureTempSchema(o.Schema)
	}
	if err := e.dropTempObjectsLocked(objs); err != nil {
		return err
	}
	for name := range e.cat.schemas {
		if e.cat.schemas[name].temp {
			delete(e.cat.schemas, name)
		}
	}
	e.cat.version++
	return nil
}

// checkKeyPersistence refuses a foreign key between a temporary and a
// permanent table, or into another session's temporary table (42P16,
// PostgreSQL's ATAddForeignKeyConstraint): the referenced table could
// vanish under it.
func checkKeyPersistence(t, ref *Object) error {
	switch {
	case !t.isTemp() && ref.isTemp():
		return repr.Errorf(codeInvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	case t.isTemp() && !ref.isTemp():
		return repr.Errorf(codeInvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
	case t.isTemp() && ref.Schema != t.Schema:
		return repr.Errorf(codeInvalidTableDefinition, "constraints on temporary tables must involve temporary tables of this session")
	}
	return nil
}

// tempRowType returns the session's temporary schema when the row type
// of one of its relations is what an unqualified type name finds: the
// schema comes first on the search path, before the public relations
// whose row types unqualified names otherwise find ("" if not).
func (s *Session) tempRowType(cat *Catalog, name string) string {
	t := s.ownTempSchema(cat)
	if t == "" {
		return ""
	}
	o := cat.byName[qualified(t, name)]
	if o == nil || o.Kind == relSequence || o.Kind == relIndex || o.Kind == relFunction {
		return ""
	}
	for _, ns := range s.searchPath(cat) {
		if ns == t {
			return t
		}
		if ns != nsPgCatalog && cat.byName[qualified(ns, name)] != nil {
			return ""
		}
	}
	return ""
}

// relPersistence is pg_class.relpersistence of a relation in schema ns.
func relPersistence(ns string) byte {
	if isTempSchema(ns) {
		return 't'
	}
	return 'p'
}

// myTempSchemaOID is pg_my_temp_schema(): the OID of the session's
// temporary schema, 0 when it has none.
func (s *Session) myTempSchemaOID(cat *Catalog) uint32 {
	if n := s.ownTempSchema(cat); n != "" {
		return cat.schemas[n].OID()
	}
	return 0
}

// isOtherTempSchema is pg_is_other_temp_schema(oid).
func (s *Session) isOtherTempSchema(cat *Catalog, oid uint32) bool {
	n := cat.namespaceName(oid)
	return isTempSchema(n) && n != s.ownTempSchema(cat)
}
