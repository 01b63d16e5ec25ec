package sql

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// Indexes (CREATE INDEX) are catalog objects in the relations' name space
// whose rows are an arrangement of one table or materialized view: its
// collection's keys ordered by the index columns (storage/index.go),
// built at CREATE from the current contents and changed with the
// collection by every write, in memory and in Pebble. Ad hoc reads use
// them as access paths (pointread.go); UNIQUE indexes are enforced by the
// constraint checks (constraint_check.go), whose key counts come from the
// arrangement instead of a map of their own (keyindex.go). An index
// belongs to its relation: dropping the relation drops it, and an ALTER
// TABLE that rewrites the rows rebuilds it (or drops it with a dropped
// column, as PostgreSQL does).

// relIndex is the kind of an index's catalog entry.
const relIndex planner.RelKind = 101

// IndexDef defines an index (Kind relIndex).
type IndexDef struct {
	// Table is the indexed table or materialized view.
	Table uint64
	// Cols are the indexed columns, in index order; Desc marks the
	// columns declared DESC (kept for the catalog: the arrangement is
	// ascending, and scans of it are unordered reads).
	Cols []int
	Desc []bool `json:",omitempty"`
	// Unique indexes are enforced like UNIQUE constraints (23505).
	Unique bool `json:",omitempty"`
	// Method is the access method asked for (btree, hash, gin, ...):
	// every method is built as Eddy's one ordered arrangement.
	Method string `json:",omitempty"`
	// Exprs holds, per key part, the SQL text of an expression part
	// (whose Cols entry is -1), "" for a column part; nil when every
	// part is a column.
	Exprs []string `json:",omitempty"`
	// Where is the SQL text of a partial index's predicate: the index
	// holds only the rows for which it is true.
	Where string `json:",omitempty"`
	// NullsNotDistinct makes NULLs equal for the unique check (PG 15).
	NullsNotDistinct bool `json:",omitempty"`
	// Include are the INCLUDE columns: recorded (a dropped one drops the
	// index, as in PostgreSQL), not stored: every read goes to the row.
	Include []int `json:",omitempty"`
	// Implicit marks an automatic index, created for a materialized
	// view's join (autoindex.go) and dropped with the last view reading it.
	Implicit bool `json:",omitempty"`
}

// indexPart is one key part of CREATE INDEX as written: a column name or
// an expression.
type indexPart struct {
	name string
	expr *pg.Node
}

// accessMethods are the index access methods PostgreSQL knows. Every one
// is built as Eddy's ordered arrangement: an index never changes a
// query's answer, only how it is computed, so a migration written for
// PostgreSQL (a gin index on a jsonb column, a hash index) runs unchanged.
// pgwire has no NOTICE path yet, so the substitution is silent.
var accessMethods = map[string]bool{"btree": true, "hash": true, "gin": true, "gist": true, "spgist": true, "brin": true}

// execCreateIndex executes CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT
// EXISTS] [name] ON rel [USING method] (col | (expr) [COLLATE c] [opclass]
// [ASC|DESC] [NULLS FIRST|LAST], ...) [INCLUDE (cols)] [NULLS [NOT]
// DISTINCT] [WITH (params)] [TABLESPACE t] [WHERE predicate]. Collations,
// operator classes, NULLS FIRST/LAST, INCLUDE, storage parameters and the
// default tablespace are accepted and change nothing: the index is Eddy's
// one ordered arrangement, and none of them can change an answer.
func (p *Portal) execCreateIndex(is *pg.IndexStmt) error {
	p.tag = "CREATE INDEX"
	if is.Concurrent && p.st.s.tx != txIdle {
		return errNotInBlock.New("CREATE INDEX CONCURRENTLY")
	}
	method := strings.ToLower(is.AccessMethod)
	if method == "" {
		method = "btree"
	}
	if !accessMethods[method] {
		return repr.Errorf(repr.CodeUndefinedObject, "access method \"%s\" does not exist", is.AccessMethod)
	}
	if err := checkIndexOptions(is); err != nil {
		return err
	}
	def := &IndexDef{Unique: is.Unique, Method: method, NullsNotDistinct: is.NullsNotDistinct}
	var parts []indexPart
	for _, n := range is.IndexParams {
		el := n.GetIndexElem()
		parts = append(parts, indexPart{name: el.Name, expr: el.Expr})
		def.Desc = append(def.Desc, el.Ordering == pg.SortByDir_SORTBY_DESC)
	}
	if !anyTrue(def.Desc) {
		def.Desc = nil
	}
	if is.WhereClause != nil {
		text, err := indexExprText(is.WhereClause)
		if err != nil {
			return err
		}
		def.Where = text
	}
	obj := &Object{Kind: relIndex, Schema: schemaOf(is.Relation), Name: is.Idxname, Index: def}
	if err := p.st.s.checkOwnsRel(is.Relation); err != nil {
		return err
	}
	return p.st.s.e.createIndex(obj, is.Relation, parts, stringListOf(is.IndexIncludingParams), is.IfNotExists)
}

// indexParams are the storage parameters PostgreSQL's index access
// methods know; they tune storage, never an answer, so they are accepted
// and ignored.
var indexParams = map[string]bool{"fillfactor": true, "deduplicate_items": true, "fastupdate": true,
	"gin_pending_list_limit": true, "buffering": true, "pages_per_range": true, "autosummarize": true}

// checkIndexOptions refuses what PostgreSQL refuses among the clauses
// that change nothing: an unknown storage parameter (22023) or a
// tablespace other than the default (42704).
func checkIndexOptions(is *pg.IndexStmt) error {
	for _, n := range is.Options {
		if d := n.GetDefElem(); d != nil && !indexParams[d.Defname] {
			return repr.Errorf("22023", "unrecognized parameter \"%s\"", d.Defname)
		} else if d != nil && d.Defname == "fillfactor" {
			if err := checkOption(d, relOption{'i', 10, 100}, true); err != nil {
				return err
			}
		}
	}
	if is.TableSpace != "" && is.TableSpace != "pg_default" {
		return repr.Errorf(repr.CodeUndefinedObject, "tablespace \"%s\" does not exist", is.TableSpace)
	}
	return nil
}

// stringListOf returns the column names of INCLUDE's index elements.
func stringListOf(ns []*pg.Node) []string {
	var out []string
	for _, n := range ns {
		if el := n.GetIndexElem(); el != nil {
			out = append(out, el.Name)
		}
	}
	return out
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// createIndex resolves an index's relation, key parts and predicate,
// builds its arrangement from the relation's current contents and
// persists the catalog entry with the arrangement in one batch.
func (e *Engine) createIndex(obj *Object, rv *pg.RangeVar, parts []indexPart, include []string, ifNotExists bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	rel, err := e.indexedRelation(rv)
	if err != nil {
		return err
	}
	figured, err := resolveIndexParts(obj, rel, parts, include)
	if err != nil {
		return err
	}
	key, err := compileIndexKey(e.cat, rel, obj.Index)
	if err != nil {
		return err
	}
	if err := checkNewIndexKey(key); err != nil {
		return err
	}
	if obj.Name == "" {
		obj.Name = e.chooseIndexName(rel, figured)
	}
	if exists, err := e.nameTaken(obj, ifNotExists); exists || err != nil {
		return err
	}
	c := e.colls[rel.ID]
	if err := checkIndexRows(obj, key, c); err != nil {
		return err
	}
	// The arrangement is written as of the collection's contents in
	// memory: the pending checkpoint must reach Pebble first, so no log
	// record replayed after a restart predates it.
	if err := e.checkpointLocked(); err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevID := e.nextID
	obj.ID = e.allocID(b)
	if err := e.persistObject(obj, b); err != nil {
		e.nextID = prevID
		return err
	}
	c.AddIndexKey(obj.ID, key.storageKey(), b)
	if err := e.cat.add(obj); err != nil {
		c.DropIndex(obj.ID, nil)
		e.nextID = prevID
		return err
	}
	if err := e.commitDDL(b); err != nil {
		e.cat.remove(obj)
		c.DropIndex(obj.ID, nil)
		e.nextID = prevID
		return err
	}
	e.dropIndexes(rel.ID) // key-count indexes now come from the arrangement
	return nil
}

// execReindex executes REINDEX: an index always equals the one built
// from its relation's rows (it changes with every write, and start-up
// checks it), so there is nothing to rebuild; the named index or table
// must exist, as in PostgreSQL.
func (p *Portal) execReindex(rs *pg.ReindexStmt) error {
	p.tag = "REINDEX"
	e := p.st.s.e
	if err := p.checkReindexBlock(rs); err != nil {
		return err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	want := map[pg.ReindexObjectType]planner.RelKind{pg.ReindexObjectType_REINDEX_OBJECT_INDEX: relIndex,
		pg.ReindexObjectType_REINDEX_OBJECT_TABLE: planner.RelTable}
	k, named := want[rs.Kind]
	if !named {
		if rs.Kind == pg.ReindexObjectType_REINDEX_OBJECT_SCHEMA && e.cat.schemas[rs.Name] == nil {
			return repr.Errorf("3F000", "schema \"%s\" does not exist", rs.Name)
		}
		return nil // SCHEMA, SYSTEM, DATABASE
	}
	o := e.cat.lookup(rs.Relation.Schemaname, rs.Relation.Relname)
	switch {
	case o == nil:
		return repr.ErrUndefinedTable.New(rs.Relation.Relname)
	case o.Kind != k && !(k == planner.RelTable && o.Kind == planner.RelMaterializedView):
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not %s", o.Name, aKind(k))
	}
	return nil
}

// checkReindexBlock applies PostgreSQL's ExecReindex rules: REINDEX
// CONCURRENTLY and REINDEX SCHEMA, SYSTEM or DATABASE cannot run inside
// a transaction block (25001), and system catalogs are never reindexed
// concurrently (0A000).
func (p *Portal) checkReindexBlock(rs *pg.ReindexStmt) error {
	concurrent := false
	for _, n := range rs.Params {
		if d := n.GetDefElem(); d != nil && d.Defname == "concurrently" {
			concurrent = d.Arg == nil || optionText(d) != "false"
		}
	}
	inBlock := p.st.s.tx != txIdle
	switch rs.Kind {
	case pg.ReindexObjectType_REINDEX_OBJECT_INDEX, pg.ReindexObjectType_REINDEX_OBJECT_TABLE:
		if concurrent && inBlock {
			return errNotInBlock.New("REINDEX CONCURRENTLY")
		}
		return nil
	}
	if inBlock {
		word := strings.TrimPrefix(rs.Kind.String(), "REINDEX_OBJECT_")
		return errNotInBlock.New("REINDEX " + word)
	}
	if concurrent && rs.Kind == pg.ReindexObjectType_REINDEX_OBJECT_SYSTEM {
		return repr.Errorf(repr.CodeFeatureNotSupported, "cannot reindex system catalogs concurrently")
	}
	return nil
}

// indexedRelation resolves the relation of CREATE INDEX: a table or a
// materialized view with stored rows. The caller holds e.mu.
func (e *Engine) indexedRelation(rv *pg.RangeVar) (*Object, error) {
	rel := e.cat.lookup(rv.Schemaname, rv.Relname)
	if rel == nil {
		return nil, repr.ErrUndefinedTable.New(rv.Relname)
	}
	if isSystemRelation(rel.ID) {
		return nil, repr.Errorf("42501", "permission denied: \"%s\" is a system relation", rel.Name)
	}
	if (rel.Kind != planner.RelTable && rel.Kind != planner.RelMaterializedView) || e.colls[rel.ID] == nil {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "cannot create index on relation \"%s\"", rel.Name).
			WithDetail("This operation is not supported for %ss.", kindName(rel.Kind))
	}
	return rel, nil
}

// resolveIndexParts sets obj's key parts (a column, or -1 and the SQL
// text of an expression; an expression that is only a column is that
// column, as in PostgreSQL) and INCLUDE columns. It returns the names
// PostgreSQL's default index name is made of.
func resolveIndexParts(obj *Object, rel *Object, parts []indexPart, include []string) ([]string, error) {
	def := obj.Index
	if def.Unique && rel.Kind != planner.RelTable && rel.Kind != planner.RelMaterializedView {
		return nil, repr.Unsupported("UNIQUE index on a %s", kindName(rel.Kind))
	}
	var figured []string
	exprs := false
	for _, p := range parts {
		if p.expr != nil {
			if name := bareColumn(p.expr); name != "" {
				p = indexPart{name: name}
			}
		}
		if p.expr == nil {
			i := columnIndex(rel.Columns, p.name)
			if i < 0 {
				return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" does not exist", p.name)
			}
			def.Cols, def.Exprs = append(def.Cols, i), append(def.Exprs, "")
			figured = append(figured, p.name)
			continue
		}
		text, err := indexExprText(p.expr)
		if err != nil {
			return nil, err
		}
		def.Cols, def.Exprs, exprs = append(def.Cols, -1), append(def.Exprs, text), true
		figured = append(figured, figureName(p.expr))
	}
	if !exprs {
		def.Exprs = nil
	}
	for _, n := range include {
		i := columnIndex(rel.Columns, n)
		if i < 0 {
			return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" does not exist", n)
		}
		def.Include = append(def.Include, i)
		figured = append(figured, n) // PostgreSQL names INCLUDE columns too
	}
	def.Table = rel.ID
	return figured, nil
}

// indexExprText is the SQL text stored for an index expression or
// predicate: its column references unqualified (`lower(users.email)` is
// stored as `lower(email)`), so that renaming the table leaves it valid.
func indexExprText(n *pg.Node) (string, error) {
	walkProto(n, func(m proto.Message) {
		if cr, ok := m.(*pg.ColumnRef); ok && len(cr.Fields) > 1 {
			cr.Fields = cr.Fields[len(cr.Fields)-1:]
		}
	})
	return parse.DeparseExpr(n)
}

// bareColumn returns the name of a column reference written as an
// expression (`((a))`), "" for anything else.
func bareColumn(n *pg.Node) string {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return ""
	}
	return cr.Fields[0].GetString_().Sval
}

// chooseIndexName names an index as PostgreSQL does: table, key parts
// (a column's name, an expression's figured name) and "idx", with a
// number appended until the name is free. The caller holds e.mu.
func (e *Engine) chooseIndexName(rel *Object, parts []string) string {
	base := strings.Join(append([]string{rel.Name}, parts...), "_") + "_idx"
	name := base
	for n := 1; e.cat.lookup(rel.Schema, name) != nil; n++ {
		name = base + itoa(n)
	}
	return name
}

// checkIndexRows evaluates a new index's key over every row, failing as
// CREATE INDEX does in PostgreSQL when an expression fails on one, and,
// for a UNIQUE index, when rows repeat a key (rows outside a partial
// index, or with a NULL among the key while NULLs are distinct, never
// conflict).
func checkIndexRows(obj *Object, key *indexKey, c *storage.Collection) error {
	if key.plain() && !obj.Index.Unique {
		return nil
	}
	seen := map[string]bool{}
	ctx := &expr.Ctx{}
	var err error
	c.Scan(func(r repr.Row, n int64) bool {
		var k string
		var ok bool
		if k, ok, err = key.unique(ctx, r); err != nil || !ok || !obj.Index.Unique {
			return err == nil
		}
		if seen[k] || n > 1 {
			names, vals := key.text(ctx, r)
			err = repr.Errorf(repr.CodeUniqueViolation, "could not create unique index \"%s\"", obj.Name).
				WithDetail("Key (%s)=(%s) is duplicated.", names, vals)
			return false
		}
		seen[k] = true
		return true
	})
	return err
}

// indexesOf returns the indexes of relation id, in ID order. The caller
// holds e.mu.
func (c *Catalog) indexesOf(id uint64) []*Object {
	c.refsMu.Lock()
	defer c.refsMu.Unlock()
	if c.idxVersion != c.version || c.idx == nil {
		c.idx = map[uint64][]*Object{}
		for _, o := range c.objects() {
			if o.Kind == relIndex {
				c.idx[o.Index.Table] = append(c.idx[o.Index.Table], o)
			}
		}
		c.idxVersion = c.version
	}
	return c.idx[id]
}

// uniqueKey is one UNIQUE constraint or UNIQUE index of a table, as the
// constraint checks and ON CONFLICT see it.
type uniqueKey struct {
	name     string
	deferred bool
	key      *indexKey
	// index is the UNIQUE index's ID (0: a constraint or the primary
	// key), whose arrangement counts the key's rows.
	index uint64
}

// uniqueKeys returns obj's UNIQUE constraints followed by its UNIQUE
// indexes (named after the index), which the constraint checks enforce
// alike.
func (c *Catalog) uniqueKeys(obj *Object) []uniqueKey {
	var out []uniqueKey
	for _, k := range obj.Constraints {
		if k.Kind == "unique" {
			out = append(out, uniqueKey{name: k.Name, deferred: k.Deferred, key: colsKey(obj, k.Cols, k.NullsNotDistinct)})
		}
	}
	for _, ix := range c.indexesOf(obj.ID) {
		if ix.Index.Unique && ix.ixKey != nil {
			out = append(out, uniqueKey{name: ix.Name, key: ix.ixKey, index: ix.ID})
		}
	}
	return out
}

// exprIndexes returns the indexes of obj that compute their keys (an
// expression or a predicate), whose evaluation a write must check.
func (c *Catalog) exprIndexes(obj *Object) []*Object {
	var out []*Object
	for _, ix := range c.indexesOf(obj.ID) {
		if ix.ixKey != nil && !ix.ixKey.plain() {
			out = append(out, ix)
		}
	}
	return out
}

// arrangementOn returns the collection and index ID of an index of table
// whose leading key parts are columns cols, over every row, if any: its
// entries under a key of cols are the rows with that key. The caller
// holds e.mu.
func (e *Engine) arrangementOn(table uint64, cols []int) (*storage.Collection, uint64, bool) {
	c := e.colls[table]
	if c == nil {
		return nil, 0, false
	}
	for _, ix := range e.cat.indexesOf(table) {
		if ix.Index.Where == "" && len(ix.Index.Cols) >= len(cols) && samePrefix(ix.Index.Cols[:len(cols)], cols) {
			return c, ix.ID, true
		}
	}
	return nil, 0, false
}

// indexRebuilds counts the indexes rebuilt at start-up because the stored
// arrangement did not match (tests check it stays 0).
var indexRebuilds atomic.Int64

// restoreIndex loads an index's arrangement at start-up, rebuilding it
// (durably) if the stored one does not match its relation's rows.
func (e *Engine) restoreIndex(o *Object) error {
	c := e.colls[o.Index.Table]
	if c == nil {
		return fmt.Errorf("index %s: relation %d has no rows", o.Name, o.Index.Table)
	}
	key := o.ixKey.storageKey()
	err := c.LoadIndexKey(e.db, o.ID, key)
	if err == nil {
		return nil
	}
	e.log.Warn("rebuilding index", "index", o.Name, "err", err)
	indexRebuilds.Add(1)
	b := e.db.NewBatch()
	defer b.Close()
	b.DeletePrefix(storage.RowPrefix(o.ID))
	c.AddIndexKey(o.ID, key, b)
	return e.db.Commit(b)
}

// reindexRewritten rebuilds the indexes of a table whose rows ALTER TABLE
// rewrote into c (logging to b): each index's columns are found again by
// name in the new shape and its expressions and predicate planned again
// over it; an index on a dropped column (in its key, expressions,
// predicate or INCLUDE) is dropped, as in PostgreSQL. It returns the
// index entries to replace (old, new; the caller persists them) and to
// remove, for the caller to apply to the catalog once b is durable. The
// caller holds e.mu.
func (e *Engine) reindexRewritten(old, nu *Object, c *storage.Collection, b *storage.Batch) (fixes [][2]*Object, gone []*Object, err error) {
	for _, ix := range e.cat.indexesOf(old.ID) {
		def, ok := remapIndex(old, nu, ix.Index)
		if !ok {
			b.Delete(storage.CatalogKey(ix.ID))
			b.DeletePrefix(storage.RowPrefix(ix.ID))
			gone = append(gone, ix)
			continue
		}
		n := ix.clone()
		n.Index = def
		key, err := compileIndexKey(e.cat, nu, def)
		if err == nil {
			err = checkIndexRows(n, key, c)
		}
		if err != nil {
			return nil, nil, err
		}
		b.DeletePrefix(storage.RowPrefix(ix.ID))
		c.AddIndexKey(ix.ID, key.storageKey(), b)
		fixes = append(fixes, [2]*Object{ix, n})
	}
	return fixes, gone, nil
}

// remapIndex finds an index's columns again, by name, in nu; ok is false
// when one of them (or one its expressions or predicate name) is gone.
func remapIndex(old, nu *Object, def *IndexDef) (*IndexDef, bool) {
	out := *def
	out.Cols = make([]int, len(def.Cols))
	for i, c := range def.Cols {
		if out.Cols[i] = c; c >= 0 {
			if out.Cols[i] = columnIndex(nu.Columns, old.Columns[c].Name); out.Cols[i] < 0 {
				return nil, false
			}
		}
	}
	var ok bool
	if out.Include, ok = remapColumns(old, nu, def.Include); !ok {
		return nil, false
	}
	texts := append(append([]string(nil), def.Exprs...), def.Where)
	for _, t := range texts {
		if t == "" {
			continue
		}
		n, err := parseExpr(t)
		if err != nil {
			return nil, false
		}
		for _, name := range columnRefs(n) {
			if columnIndex(nu.Columns, name) < 0 {
				return nil, false
			}
		}
	}
	return &out, true
}

// remapColumns finds columns of old again, by name, in nu.
func remapColumns(old, nu *Object, cols []int) ([]int, bool) {
	if cols == nil {
		return nil, true
	}
	out := make([]int, len(cols))
	for i, c := range cols {
		if out[i] = columnIndex(nu.Columns, old.Columns[c].Name); out[i] < 0 {
			return nil, false
		}
	}
	return out, true
}

// renameInIndexes returns changed copies (old, new) of the indexes of
// table that use column from: their stored expressions and predicate now
// name it to (PostgreSQL stores them by column number; Eddy by name), and
// their keys are compiled again under the new name.
// The caller holds e.mu.
func (e *Engine) renameInIndexes(table *Object, from, to string) ([][2]*Object, error) {
	var out [][2]*Object
	for _, ix := range e.cat.indexesOf(table.ID) {
		def := *ix.Index
		def.Exprs = append([]string(nil), def.Exprs...)
		// A column part named from is renamed too: its key's names (the
		// DETAIL of a violation) are compiled with the entry.
		i := columnIndex(table.Columns, from)
		changed := slices.Contains(def.Cols, i) || slices.Contains(def.Include, i)
		for i, t := range def.Exprs {
			var err error
			if def.Exprs[i], err = renameColumnIn(t, from, to, &changed); err != nil {
				return nil, err
			}
		}
		var err error
		if def.Where, err = renameColumnIn(def.Where, from, to, &changed); err != nil {
			return nil, err
		}
		if changed {
			n := ix.clone()
			n.Index = &def
			out = append(out, [2]*Object{ix, n})
		}
	}
	return out, nil
}

// renameColumnIn renames column references from to to in the SQL text of
// an expression ("" stays ""), setting *changed when it does.
func renameColumnIn(text, from, to string, changed *bool) (string, error) {
	if text == "" {
		return "", nil
	}
	n, err := parseExpr(text)
	if err != nil {
		return "", err
	}
	hit := false
	walkProto(n, func(m proto.Message) {
		cr, ok := m.(*pg.ColumnRef)
		if !ok || len(cr.Fields) == 0 {
			return
		}
		if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil && s.Sval == from {
			s.Sval, hit = to, true
		}
	})
	if !hit {
		return text, nil
	}
	*changed = true
	return parse.DeparseExpr(n)
}

// indexedBy returns the relation an index object indexes (0 for other
// objects).
func indexedBy(o *Object) uint64 {
	if o.Index == nil {
		return 0
	}
	return o.Index.Table
}
