package sql

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// Schemas (namespaces).
//
// Every object lives in a schema (Object.Schema). The built-in schemas
// (pg_catalog, pg_toast, public, information_schema, eddy_catalog) have
// PostgreSQL's OIDs; a schema made by CREATE SCHEMA takes a catalog ID
// like any object, so its OID (relOID) is stable across restarts and
// never reused. A schema record is JSON under metaSchemaKey(ID); public
// (ID 0) has one only once its owner or privileges change. Data
// directories made before schemas existed hold no records: everything in
// them is in public, as before.

// SQLSTATEs of schemas and privileges (PostgreSQL's).
const (
	codeInvalidSchemaName     = "3F000"
	codeDuplicateSchema       = "42P06"
	codeInsufficientPrivilege = "42501"
)

// Schema is a namespace. Built-in schemas other than public are system
// schemas: nothing can be created in, dropped from or granted on them.
type Schema struct {
	// ID is the catalog ID of a created schema, 0 for a built-in one.
	ID   uint64 `json:",omitempty"`
	Name string
	// Owner is the owning role's OID (0 is the bootstrap superuser).
	Owner uint32 `json:",omitempty"`
	// ACL is the schema's privileges (privilege.go); nil means the
	// default: the owner holds every privilege.
	ACL []ACLItem `json:",omitempty"`

	oid    uint32 // built-in schemas' fixed OID
	system bool
	// temp marks a session's temporary schema pg_temp_N or its
	// pg_toast_temp_N (temp.go): never persisted.
	temp bool
}

// OID returns the schema's pg_namespace OID.
func (s *Schema) OID() uint32 {
	if s.ID == 0 {
		return s.oid
	}
	return relOID(s.ID)
}

// builtinSchemas returns fresh copies of the built-in schemas.
func builtinSchemas() map[string]*Schema {
	out := map[string]*Schema{}
	for _, n := range []struct {
		oid    uint32
		name   string
		system bool
	}{{oidPgCatalog, nsPgCatalog, true}, {99, "pg_toast", true}, {oidPublic, nsPublic, false},
		{oidInfoSchema, nsInfoSchema, true}, {oidEddyCatalog, nsEddyCatalog, true}} {
		out[n.name] = &Schema{Name: n.name, oid: n.oid, system: n.system}
	}
	out[nsPublic].Owner = oidDatabaseOwner // as in PostgreSQL 15
	return out
}

// metaSchemaPrefix prefixes the schema records; metaSchemaKey(id) is one.
var metaSchemaPrefix = storage.MetaKey("schema/")

func metaSchemaKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), metaSchemaPrefix...), id)
}

// schemaList returns the schemas in OID order.
func (c *Catalog) schemaList() []*Schema {
	out := make([]*Schema, 0, len(c.schemas))
	for _, s := range c.schemas {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID() < out[j].OID() })
	return out
}

// namespaceOID returns the OID of schema name (0 if none).
func (c *Catalog) namespaceOID(name string) uint32 {
	if s := c.schemas[name]; s != nil {
		return s.OID()
	}
	return 0
}

// namespaceName returns the name of the schema with OID oid ("" if none).
func (c *Catalog) namespaceName(oid uint32) string {
	for _, s := range c.schemas {
		if s.OID() == oid {
			return s.Name
		}
	}
	return ""
}

// objectsIn returns the objects of schema name in ID order.
func (c *Catalog) objectsIn(name string) []*Object {
	var out []*Object
	for _, o := range c.objects() {
		if o.Schema == name {
			out = append(out, o)
		}
	}
	return out
}

// restoreSchemas loads the schema records.
func (e *Engine) restoreSchemas() error {
	return e.db.Scan(metaSchemaPrefix, func(_, v []byte) error {
		var s Schema
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("decoding schema record: %w", err)
		}
		if b := e.cat.schemas[s.Name]; b != nil && s.ID == 0 {
			b.Owner, b.ACL = s.Owner, s.ACL // public's changed owner or privileges
			return nil
		}
		e.cat.schemas[s.Name] = &s
		return nil
	})
}

// persistSchema writes s's record to b.
func persistSchema(s *Schema, b *storage.Batch) error {
	v, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b.Set(metaSchemaKey(s.ID), v)
	return nil
}

// execCreateSchema executes CREATE SCHEMA [IF NOT EXISTS] name
// [AUTHORIZATION role]; schema elements are 0A000.
func (p *Portal) execCreateSchema(cs *pg.CreateSchemaStmt) error {
	p.tag = "CREATE SCHEMA"
	if len(cs.SchemaElts) > 0 {
		return repr.Unsupported("CREATE SCHEMA with schema elements")
	}
	name, owner := cs.Schemaname, p.st.s.newOwner()
	if cs.Authrole != nil {
		r, ok := p.st.s.e.role(p.roleSpecName(cs.Authrole))
		if !ok {
			return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", p.roleSpecName(cs.Authrole))
		}
		owner = r.OID
		if name == "" {
			name = r.Name
		}
	}
	if strings.HasPrefix(name, "pg_") {
		return repr.Errorf("42939", "unacceptable schema name \"%s\"", name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	return p.st.s.e.createSchema(p.st.s, name, owner, cs.IfNotExists)
}

// createSchema adds schema name durably.
func (e *Engine) createSchema(s *Session, name string, owner uint32, ifNotExists bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.checkDatabaseCreate(s); err != nil {
		return err
	}
	if e.cat.schemas[name] != nil {
		if ifNotExists {
			return nil
		}
		return repr.Errorf(codeDuplicateSchema, "schema \"%s\" already exists", name)
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevID := e.nextID
	sc := &Schema{ID: e.allocID(b), Name: name, Owner: owner}
	if err := persistSchema(sc, b); err != nil {
		e.nextID = prevID
		return err
	}
	if err := e.commitDDL(b); err != nil {
		e.nextID = prevID
		return err
	}
	e.cat.schemas[name] = sc
	e.cat.version++
	return nil
}

// execDropSchema executes DROP SCHEMA [IF EXISTS] name [, ...]
// [CASCADE | RESTRICT].
func (p *Portal) execDropSchema(ds *pg.DropStmt) error {
	p.tag = "DROP SCHEMA"
	cascade := ds.Behavior == pg.DropBehavior_DROP_CASCADE
	for _, o := range ds.Objects {
		err := p.st.s.e.dropSchema(p.st.s, o.GetString_().GetSval(), ds.MissingOk, cascade)
		if p.st.s.noticeSkipped(err) != nil {
			return err
		}
	}
	return nil
}

// dropSchema removes schema name; with cascade, first every object in it
// (latest first, so dependents go before what they depend on) and
// everything depending on those.
func (e *Engine) dropSchema(s *Session, name string, missingOK, cascade bool) (err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sc := e.cat.schemas[name]
	if sc == nil {
		if missingOK {
			return skipped(repr.Errorf("00000", "schema \"%s\" does not exist, skipping", name))
		}
		return repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	if sc.system || sc.ID == 0 {
		return repr.Errorf(repr.CodeDependentObjects, "cannot drop schema %s because it is required by the database system", name)
	}
	if err := e.checkOwner(s, sc.Owner, "schema", name); err != nil {
		return err
	}
	if cascade {
		check := e.schemaDependents(sc)
		defer func() { s.noticeCascade(err, check) }()
	}
	return e.dropSchemaLocked(sc, cascade)
}

// dropSchemaLocked removes schema sc, with cascade first its objects;
// the caller holds the engine's lock.
func (e *Engine) dropSchemaLocked(sc *Schema, cascade bool) error {
	name := sc.Name
	objs, sinks := e.cat.objectsIn(name), e.sinksIn(name)
	if err := e.schemaDependents(sc); err != nil && !cascade {
		return err
	}
	if e.inDDLBlock() && len(sinks) > 0 {
		return errNotInBlock.New(fmt.Sprintf("DROP SCHEMA %s, which holds sinks,", name))
	}
	return e.atomically(func() error { return e.dropSchemaContents(sc, objs, sinks) })
}

// schemaDependents is the 2BP01 DROP SCHEMA sc raises without CASCADE
// while objects are in it, or nil: PostgreSQL's DETAIL lines, each object
// in the schema (ID order) followed by the objects outside it that
// depend on it (dependencyLines), then its sinks. It changes nothing.
func (e *Engine) schemaDependents(sc *Schema) error {
	name := sc.Name
	objs, sinks := e.cat.objectsIn(name), e.sinksIn(name)
	if len(objs) == 0 && len(sinks) == 0 {
		return nil
	}
	seen := map[uint64]bool{}
	for _, o := range objs {
		seen[o.ID] = true
	}
	var lines []string
	for _, o := range objs {
		lines = append(lines, fmt.Sprintf("%s depends on schema %s", describe(o), name))
		lines = append(lines, e.dependencyLines(seen, o)...)
	}
	for _, sk := range sinks {
		lines = append(lines, fmt.Sprintf("sink %s.%s depends on schema %s", name, sk.def.Name, name))
	}
	return repr.Errorf(repr.CodeDependentObjects, "cannot drop schema %s because other objects depend on it", name).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// dropSchemaFault, set by tests, fails DROP SCHEMA ... CASCADE after it
// dropped an object, as a crash would interrupt it.
var dropSchemaFault func(*Object) error

// dropSchemaContents removes sc's sinks, its objects (latest first, so
// dependents go before what they depend on, with everything depending on
// them) and sc itself.
func (e *Engine) dropSchemaContents(sc *Schema, objs []*Object, sinks []*sinkState) error {
	if err := e.removeSinksLocked(sinks); err != nil {
		return err
	}
	for i := len(objs) - 1; i >= 0; i-- {
		if e.cat.byID[objs[i].ID] == nil {
			continue // dropped with an earlier one
		}
		if err := e.dropLocked(objs[i], true); err != nil {
			return err
		}
		if dropSchemaFault != nil {
			if err := dropSchemaFault(objs[i]); err != nil {
				return err
			}
		}
	}
	b := e.db.NewBatch()
	defer b.Close()
	b.Delete(metaSchemaKey(sc.ID))
	defACLs, err := e.dropSchemaDefaultACLs(sc.OID(), b)
	if err != nil {
		return err
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	e.cat.defACLs = defACLs
	delete(e.cat.schemas, sc.Name)
	e.cat.version++
	return nil
}

// renameSchema executes ALTER SCHEMA old RENAME TO nu: every object in it
// moves, and the stored queries naming it are rewritten.
func (e *Engine) renameSchema(s *Session, old, nu string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	sc := e.cat.schemas[old]
	if sc == nil {
		return repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", old)
	}
	if sc.system {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", old)
	}
	if err := e.checkOwner(s, sc.Owner, "schema", old); err != nil {
		return err
	}
	if e.cat.schemas[nu] != nil {
		return repr.Errorf(codeDuplicateSchema, "schema \"%s\" already exists", nu)
	}
	if strings.HasPrefix(nu, "pg_") {
		return repr.Errorf("42939", "unacceptable schema name \"%s\"", nu).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	if sc.ID == 0 {
		return repr.Unsupported("renaming schema public")
	}
	sinks := e.sinksIn(old)
	if len(sinks) > 0 && e.inDDLBlock() {
		return errNotInBlock.New(fmt.Sprintf("ALTER SCHEMA %s RENAME, which holds sinks,", old))
	}
	return e.atomically(func() error {
		if err := e.moveObjects(sc, nu, func(o *Object) bool { return o.Schema == old }); err != nil {
			return err
		}
		return e.moveSinks(sinks, nu)
	})
}

// moveObjects moves the objects in reports into schema nu, under the
// engine's lock, in one durable batch: their records, the stored queries
// of the views naming them and the defaults calling their sequences are
// rewritten. With sc set (ALTER SCHEMA RENAME), sc itself becomes nu.
func (e *Engine) moveObjects(sc *Schema, nu string, in func(*Object) bool) error {
	moved := map[uint64]string{} // ID -> old schema
	for _, o := range e.cat.objects() {
		if in(o) {
			moved[o.ID] = o.Schema
		}
	}
	var pairs [][2]*Object
	for _, o := range e.cat.objects() {
		c, changed, err := e.movedCopy(o, moved, nu)
		if err != nil {
			return err
		}
		if changed {
			pairs = append(pairs, [2]*Object{o, c})
		}
	}
	b := e.db.NewBatch()
	defer b.Close()
	var nsc *Schema
	if sc != nil {
		cp := *sc
		cp.Name = nu
		nsc = &cp
		if err := persistSchema(nsc, b); err != nil {
			return err
		}
	}
	for _, p := range pairs {
		if err := e.persistObject(p[1], b); err != nil {
			return err
		}
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	if sc != nil {
		delete(e.cat.schemas, sc.Name)
		e.cat.schemas[nu] = nsc
	}
	for _, p := range pairs {
		e.cat.remove(p[0])
	}
	for _, p := range pairs {
		if err := e.cat.add(p[1]); err != nil {
			return err
		}
		e.afterMove(p[0], p[1])
	}
	e.cat.version++
	return nil
}

// movedCopy returns o's copy after the objects in moved go to schema nu,
// and whether anything in it changed.
func (e *Engine) movedCopy(o *Object, moved map[uint64]string, nu string) (*Object, bool, error) {
	c := o.clone()
	changed := false
	if _, ok := moved[o.ID]; ok {
		c.Schema, changed = nu, true
	}
	for i, col := range c.Columns {
		if _, ok := moved[col.Seq]; ok && col.Seq != 0 {
			if seq := e.cat.byID[col.Seq]; seq != nil {
				c.Columns[i].Default = "nextval(" + quoteLiteral(qualifiedText(nu, seq.Name)) + ")"
				changed = true
			}
		}
	}
	if c.SQL != "" && (c.Kind == planner.RelView || c.Kind == planner.RelMaterializedView) {
		sql, ok, err := e.requalify(c.SQL, moved, nu)
		if err != nil {
			return nil, false, err
		}
		if ok {
			c.SQL, changed = sql, true
		}
	}
	return c, changed, nil
}

// requalify rewrites the names of moved objects in a stored query.
func (e *Engine) requalify(sql string, moved map[uint64]string, nu string) (string, bool, error) {
	n, err := parseOne(sql)
	if err != nil {
		return "", false, err
	}
	changed := false
	walkProto(n, func(m proto.Message) {
		rv, ok := m.(*pg.RangeVar)
		if !ok {
			return
		}
		o := e.cat.lookup(rv.Schemaname, rv.Relname)
		if o == nil || (rv.Schemaname == "" && o.Schema != nsPublic) {
			return
		}
		if _, ok := moved[o.ID]; ok {
			rv.Schemaname, changed = nu, true
		}
	})
	if !changed {
		return sql, false, nil
	}
	text, err := parse.Deparse(n)
	return text, true, err
}

// afterMove re-registers what the engine keeps by qualified name (a
// sequence moved to another schema or renamed).
func (e *Engine) afterMove(old, nu *Object) {
	if old.Kind != relSequence || qualified(old.Schema, old.Name) == qualified(nu.Schema, nu.Name) {
		return
	}
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	if st := e.seqs[qualified(old.Schema, old.Name)]; st != nil {
		delete(e.seqs, st.name)
		st.name = qualified(nu.Schema, nu.Name)
		e.seqs[st.name] = st
	}
}

// qualifiedText is schema.name as SQL text, public left out.
func qualifiedText(schema, name string) string {
	if schema == nsPublic || schema == "" {
		return pgQuoteIdent(name)
	}
	return pgQuoteIdent(schema) + "." + pgQuoteIdent(name)
}

// setSchema executes ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE
// name SET SCHEMA nu: the object moves with its indexes and owned
// sequences.
func (p *Portal) execSetSchema(st *pg.AlterObjectSchemaStmt) error {
	e, s := p.st.s.e, p.st.s
	p.tag = "ALTER " + strings.ReplaceAll(strings.TrimPrefix(st.ObjectType.String(), "OBJECT_"), "MATVIEW", "MATERIALIZED VIEW")
	if st.Relation == nil {
		return repr.Unsupported("ALTER %s SET SCHEMA", strings.TrimPrefix(st.ObjectType.String(), "OBJECT_"))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	obj := e.cat.lookup(st.Relation.Schemaname, st.Relation.Relname)
	if obj == nil {
		if st.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", st.Relation.Relname)
	}
	if isSystemRelation(obj.ID) {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied: \"%s\" is a system relation", obj.Name)
	}
	if err := e.checkOwner(s, obj.Owner, kindName(obj.Kind), obj.Name); err != nil {
		return err
	}
	if obj.isTemp() || isTempSchema(st.Newschema) || st.Newschema == tempSchemaAlias {
		return repr.Errorf(repr.CodeFeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if err := s.checkCreateIn(e.cat, st.Newschema, obj.Name); err != nil {
		return err
	}
	if st.Newschema == obj.Schema {
		return nil
	}
	if e.cat.lookup(st.Newschema, obj.Name) != nil {
		return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists in schema \"%s\"", obj.Name, st.Newschema)
	}
	return e.moveObjects(nil, st.Newschema, func(o *Object) bool {
		return o.ID == obj.ID || (o.Kind == relIndex && o.Index.Table == obj.ID) ||
			(o.Kind == relSequence && o.Sequence.OwnedBy == obj.ID)
	})
}
