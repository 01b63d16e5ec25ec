package sql

import (
	"fmt"
	"strings"
	"sync/atomic"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
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
}

// accessMethods are the index access methods PostgreSQL knows. Every one
// is built as Eddy's ordered arrangement: an index never changes a
// query's answer, only how it is computed, so a migration written for
// PostgreSQL (a gin index on a jsonb column, a hash index) runs unchanged.
// pgwire has no NOTICE path yet, so the substitution is silent.
var accessMethods = map[string]bool{"btree": true, "hash": true, "gin": true, "gist": true, "spgist": true, "brin": true}

// execCreateIndex executes CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT
// EXISTS] [name] ON rel [USING method] (col [ASC|DESC], ...).
func (p *Portal) execCreateIndex(is *pg.IndexStmt) error {
	p.tag = "CREATE INDEX"
	if is.WhereClause != nil {
		return pgerr.Unsupported("partial indexes (CREATE INDEX ... WHERE)")
	}
	if is.NullsNotDistinct {
		return pgerr.Unsupported("UNIQUE NULLS NOT DISTINCT")
	}
	method := strings.ToLower(is.AccessMethod)
	if method == "" {
		method = "btree"
	}
	if !accessMethods[method] {
		return pgerr.New(pgerr.CodeUndefinedObject, "access method \"%s\" does not exist", is.AccessMethod)
	}
	def := &IndexDef{Unique: is.Unique, Method: method}
	var names []string
	for _, n := range is.IndexParams {
		el := n.GetIndexElem()
		if el.Expr != nil || el.Name == "" {
			return pgerr.Unsupported("index expressions")
		}
		names = append(names, el.Name)
		def.Desc = append(def.Desc, el.Ordering == pg.SortByDir_SORTBY_DESC)
	}
	if !anyTrue(def.Desc) {
		def.Desc = nil
	}
	obj := &Object{Kind: relIndex, Schema: schemaOf(is.Relation), Name: is.Idxname, Index: def}
	return p.st.s.e.createIndex(obj, is.Relation, names, is.IfNotExists)
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// createIndex resolves an index's relation and columns, builds its
// arrangement from the relation's current contents and persists the
// catalog entry with the arrangement in one batch.
func (e *Engine) createIndex(obj *Object, rv *pg.RangeVar, cols []string, ifNotExists bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	rel, err := e.indexedRelation(rv)
	if err != nil {
		return err
	}
	if err := resolveIndexColumns(obj, rel, cols); err != nil {
		return err
	}
	if obj.Name == "" {
		obj.Name = e.chooseIndexName(rel, obj.Index.Cols)
	}
	if exists, err := e.nameTaken(obj, ifNotExists); exists || err != nil {
		return err
	}
	c := e.colls[rel.ID]
	if obj.Index.Unique {
		if err := checkUniqueRows(obj, rel, c); err != nil {
			return err
		}
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
	c.AddIndex(obj.ID, obj.Index.Cols, b)
	if err := e.cat.add(obj); err != nil {
		c.DropIndex(obj.ID, nil)
		e.nextID = prevID
		return err
	}
	if err := e.db.Commit(b); err != nil {
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
	e.mu.RLock()
	defer e.mu.RUnlock()
	want := map[pg.ReindexObjectType]planner.RelKind{pg.ReindexObjectType_REINDEX_OBJECT_INDEX: relIndex,
		pg.ReindexObjectType_REINDEX_OBJECT_TABLE: planner.RelTable}
	k, named := want[rs.Kind]
	if !named {
		return nil // SCHEMA, SYSTEM, DATABASE
	}
	o := e.cat.lookup(rs.Relation.Schemaname, rs.Relation.Relname)
	switch {
	case o == nil:
		return pgerr.ErrUndefinedTable.New(rs.Relation.Relname)
	case o.Kind != k && !(k == planner.RelTable && o.Kind == planner.RelMaterializedView):
		return pgerr.New(pgerr.CodeWrongObjectType, "\"%s\" is not %s", o.Name, aKind(k))
	}
	return nil
}

// indexedRelation resolves the relation of CREATE INDEX: a table or a
// materialized view with stored rows. The caller holds e.mu.
func (e *Engine) indexedRelation(rv *pg.RangeVar) (*Object, error) {
	rel := e.cat.lookup(rv.Schemaname, rv.Relname)
	if rel == nil {
		return nil, pgerr.ErrUndefinedTable.New(rv.Relname)
	}
	if isSystemRelation(rel.ID) {
		return nil, pgerr.New("42501", "permission denied: \"%s\" is a system relation", rel.Name)
	}
	if (rel.Kind != planner.RelTable && rel.Kind != planner.RelMaterializedView) || e.colls[rel.ID] == nil {
		return nil, pgerr.New(pgerr.CodeWrongObjectType, "cannot create index on relation \"%s\"", rel.Name).
			WithDetail("This operation is not supported for %ss.", kindName(rel.Kind))
	}
	return rel, nil
}

// resolveIndexColumns sets obj's index columns from their names.
func resolveIndexColumns(obj *Object, rel *Object, names []string) error {
	if obj.Index.Unique && rel.Kind != planner.RelTable {
		return pgerr.Unsupported("UNIQUE index on a %s", kindName(rel.Kind))
	}
	for _, n := range names {
		i := columnIndex(rel.Columns, n)
		if i < 0 {
			return pgerr.New(pgerr.CodeUndefinedColumn, "column \"%s\" does not exist", n)
		}
		obj.Index.Cols = append(obj.Index.Cols, i)
	}
	obj.Index.Table = rel.ID
	return nil
}

// chooseIndexName names an index as PostgreSQL does: table, columns and
// "idx", with a number appended until the name is free. The caller holds
// e.mu.
func (e *Engine) chooseIndexName(rel *Object, cols []int) string {
	parts := []string{rel.Name}
	for _, c := range cols {
		parts = append(parts, rel.Columns[c].Name)
	}
	base := strings.Join(parts, "_") + "_idx"
	name := base
	for n := 1; e.cat.lookup(rel.Schema, name) != nil; n++ {
		name = base + itoa(n)
	}
	return name
}

// checkUniqueRows fails CREATE UNIQUE INDEX over rows that already
// repeat a key (rows with a NULL among the key never conflict).
func checkUniqueRows(obj, rel *Object, c *storage.Collection) error {
	seen := map[string]bool{}
	var err error
	c.Scan(func(r types.Row, n int64) bool {
		key, ok := keyOf(r, obj.Index.Cols)
		if ok && (seen[key] || n > 1) {
			names, vals := keyText(rel, obj.Index.Cols, r)
			err = pgerr.New(pgerr.CodeUniqueViolation, "could not create unique index \"%s\"", obj.Name).
				WithDetail("Key (%s)=(%s) is duplicated.", names, vals)
			return false
		}
		seen[key] = true
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

// uniqueKeys returns obj's UNIQUE constraints followed by its UNIQUE
// indexes (as constraints named after the index), which the constraint
// checks enforce alike.
func (c *Catalog) uniqueKeys(obj *Object) []Constraint {
	var out []Constraint
	for _, k := range obj.Constraints {
		if k.Kind == "unique" {
			out = append(out, k)
		}
	}
	for _, ix := range c.indexesOf(obj.ID) {
		if ix.Index.Unique {
			out = append(out, Constraint{Name: ix.Name, Kind: "unique", Cols: ix.Index.Cols})
		}
	}
	return out
}

// arrangementOn returns the collection and index ID of an index of table
// whose leading columns are cols, if any: its entries under a key of cols
// are the rows with that key. The caller holds e.mu.
func (e *Engine) arrangementOn(table uint64, cols []int) (*storage.Collection, uint64, bool) {
	c := e.colls[table]
	if c == nil {
		return nil, 0, false
	}
	for _, ix := range e.cat.indexesOf(table) {
		if len(ix.Index.Cols) >= len(cols) && samePrefix(ix.Index.Cols[:len(cols)], cols) {
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
	err := c.LoadIndex(e.db, o.ID, o.Index.Cols)
	if err == nil {
		return nil
	}
	e.log.Warn("rebuilding index", "index", o.Name, "err", err)
	indexRebuilds.Add(1)
	b := e.db.NewBatch()
	defer b.Close()
	b.DeletePrefix(storage.RowPrefix(o.ID))
	c.AddIndex(o.ID, o.Index.Cols, b)
	return e.db.Commit(b)
}

// reindexRewritten rebuilds the indexes of a table whose rows ALTER TABLE
// rewrote into c (logging to b): each index's columns are found again by
// name in the new shape; an index on a dropped column is dropped. It
// returns the index entries to replace (old, new; the caller persists
// them) and to remove, for the caller to apply to the catalog once b is
// durable. The caller holds e.mu.
func (e *Engine) reindexRewritten(old, nu *Object, c *storage.Collection, b *storage.Batch) (fixes [][2]*Object, gone []*Object, err error) {
	for _, ix := range e.cat.indexesOf(old.ID) {
		cols, ok := remapColumns(old, nu, ix.Index.Cols)
		if !ok {
			b.Delete(storage.CatalogKey(ix.ID))
			b.DeletePrefix(storage.RowPrefix(ix.ID))
			gone = append(gone, ix)
			continue
		}
		b.DeletePrefix(storage.RowPrefix(ix.ID))
		c.AddIndex(ix.ID, cols, b)
		if !samePrefix(cols, ix.Index.Cols) {
			n := ix.clone()
			def := *ix.Index
			def.Cols = cols
			n.Index = &def
			fixes = append(fixes, [2]*Object{ix, n})
		}
	}
	return fixes, gone, nil
}

// remapColumns finds columns of old again, by name, in nu.
func remapColumns(old, nu *Object, cols []int) ([]int, bool) {
	out := make([]int, len(cols))
	for i, c := range cols {
		if out[i] = columnIndex(nu.Columns, old.Columns[c].Name); out[i] < 0 {
			return nil, false
		}
	}
	return out, true
}

// indexedBy returns the relation an index object indexes (0 for other
// objects).
func indexedBy(o *Object) uint64 {
	if o.Index == nil {
		return 0
	}
	return o.Index.Table
}
