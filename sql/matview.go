package sql

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// execCreateTableAs executes CREATE MATERIALIZED VIEW (CREATE TABLE AS is
// ctas.go's).
func (p *Portal) execCreateTableAs(st *pg.CreateTableAsStmt) error {
	return p.createTableAs(st, false)
}

// createTableAs creates a materialized view; emitOnClose is EMIT ON WINDOW
// CLOSE (each window's rows appear once, when the watermark closes it).
func (p *Portal) createTableAs(st *pg.CreateTableAsStmt, emitOnClose bool) error {
	if st.Objtype != pg.ObjectType_OBJECT_MATVIEW {
		return p.rejectTableAs(st)
	}
	p.tag = "CREATE MATERIALIZED VIEW"
	if st.Into.SkipData {
		return repr.Unsupported("CREATE MATERIALIZED VIEW ... WITH NO DATA")
	}
	if err := refuseModifyingWith(st.Query, "materialized views must not use"); err != nil {
		return err
	}
	sql, err := viewSQL(st.Query, st.Into.ColNames)
	if err != nil {
		return err
	}
	if sql, err = p.st.s.e.styleFreeIntervals(sql, true, p.st.s.settings.timeZone, p.st.s.settings.textStyle().Interval); err != nil {
		return err
	}
	obj := &Object{Kind: planner.RelMaterializedView, Schema: schemaOf(st.Into.Rel), Name: st.Into.Rel.Relname, SQL: sql,
		EmitOnWindowClose: emitOnClose, TimeZone: p.st.s.settings.timeZone, Owner: p.st.s.newOwner()}
	s := p.st.s
	if err := s.e.createMatView(obj, st.IfNotExists, s); err != nil {
		return err
	}
	p.st.s.e.activateSources(obj.Deps)
	return nil
}

// rejectTableAs fails CREATE TABLE AS: with the error PostgreSQL gives
// when the query is invalid or names a column twice, else as unsupported.
func (p *Portal) rejectTableAs(st *pg.CreateTableAsStmt) error {
	if st.Query.GetSelectStmt() == nil {
		return repr.Unsupported("CREATE TABLE AS")
	}
	sql, err := viewSQL(st.Query, st.Into.ColNames)
	if err != nil {
		return err
	}
	e := p.st.s.e
	var cols []ColumnDef
	e.readLocked(func() {
		cols, _, err = e.describeQuery(sql, false, p.st.s.settings.timeZone)
	})
	if err == nil {
		err = distinctColumns(cols)
	}
	if err != nil {
		return err
	}
	return repr.Unsupported("CREATE TABLE AS")
}

// createMatViewLocked is createMatView with the backfill under the
// engine lock, which the caller holds (inside a transaction block).
func (e *Engine) createMatViewLocked(obj *Object, ifNotExists bool, interrupt <-chan struct{}, mem expr.Memory, notice func(*repr.Error)) error {
	if exists, err := e.nameTaken(obj, ifNotExists); exists || err != nil {
		return err
	}
	cols, deps, err := e.describeQuery(obj.SQL, true, obj.TimeZone)
	if err == nil {
		err = distinctColumns(cols)
	}
	if err != nil {
		return err
	}
	obj.Columns, obj.Deps = cols, deps
	// The backfill writes the view's state directly as of its time: no
	// earlier log record may be replayed into it after a restart.
	if err := e.checkpointLocked(); err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevID, prevClock := e.nextID, e.clock
	// Record the sizes planning reads (collectionSize).
	e.rowsSeen = map[uint64]int64{}
	defer func() { e.rowsSeen = nil }()
	// Automatic indexes first: the view depends on them, and catalog IDs
	// grow in dependency order.
	autos, err := e.viewAutoIndexes(obj, b)
	if err != nil {
		e.nextID = prevID
		return err
	}
	obj.ID = e.allocID(b)
	e.applyDefaultACL(obj)
	if err := e.cat.add(obj); err != nil {
		e.undoAutoIndexes(autos)
		e.nextID = prevID
		return err
	}
	err = e.installView(obj, b, interrupt, mem, notice)
	if err == nil {
		err = e.commitDDL(b)
	}
	if err != nil {
		e.cat.remove(obj)
		delete(e.colls, obj.ID)
		delete(e.views, obj.ID)
		e.undoAutoIndexes(autos)
		e.nextID, e.clock = prevID, prevClock
		return err
	}
	e.views[obj.ID].df.Commit()
	e.colls[obj.ID].Commit()
	return nil
}

// installView builds the view's dataflow and backfills it (logging to b):
// its inputs' contents, then the history of the sources it reads (see
// source_history.go; notice gets what a source could not replay), then
// their watermarks. interrupt stops the backfill (exec.ErrCanceled); mem,
// the statement's memory account, refuses growth past the budget (53200:
// the view is not created).
func (e *Engine) installView(obj *Object, b *storage.Batch, interrupt <-chan struct{}, mem expr.Memory, notice func(*repr.Error)) error {
	if err := e.planSharedView(obj); err != nil {
		return err
	}
	mv, err := e.buildView(obj)
	if err != nil {
		return err
	}
	if err := e.persistObject(obj, b); err != nil {
		return err
	}
	t := e.tick(b)
	c := storage.NewCollection(obj.ID, obj.storeKey())
	c.Begin()
	e.colls[obj.ID] = c
	e.views[obj.ID] = mv
	bf := &backfill{e: e, mv: mv, c: c, t: t, b: b, interrupt: interrupt, mem: mem}
	if err := bf.step(exec.Input{Updates: e.collectionInputs(mv.df.Sources(), t)}); err != nil {
		return err
	}
	return bf.replaySources(notice)
}

// execDrop executes DROP TABLE / VIEW / MATERIALIZED VIEW with RESTRICT or
// CASCADE semantics.
func (p *Portal) execDrop(ds *pg.DropStmt) error {
	var kind planner.RelKind
	switch ds.RemoveType {
	case pg.ObjectType_OBJECT_TABLE:
		kind, p.tag = planner.RelTable, "DROP TABLE"
	case pg.ObjectType_OBJECT_VIEW:
		kind, p.tag = planner.RelView, "DROP VIEW"
	case pg.ObjectType_OBJECT_MATVIEW:
		kind, p.tag = planner.RelMaterializedView, "DROP MATERIALIZED VIEW"
	case pg.ObjectType_OBJECT_SEQUENCE:
		kind, p.tag = relSequence, "DROP SEQUENCE"
	case pg.ObjectType_OBJECT_INDEX:
		kind, p.tag = relIndex, "DROP INDEX"
		if ds.Concurrent && p.st.s.tx != txIdle {
			return errNotInBlock.New("DROP INDEX CONCURRENTLY")
		}
	case pg.ObjectType_OBJECT_TYPE:
		kind, p.tag = relType, "DROP TYPE"
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
		return p.execDropFunction(ds)
	default:
		return repr.Unsupported("DROP %s", strings.TrimPrefix(ds.RemoveType.String(), "OBJECT_"))
	}
	cascade := ds.Behavior == pg.DropBehavior_DROP_CASCADE
	s := p.st.s
	nameOf := func(i int) (schema, name string) {
		o := ds.Objects[i]
		var parts []string
		items := o.GetList().GetItems()
		if tn := o.GetTypeName(); tn != nil {
			items = tn.Names // DROP TYPE names a type
		}
		for _, n := range items {
			parts = append(parts, n.GetString_().Sval)
		}
		schema, name = "", parts[len(parts)-1]
		if len(parts) > 1 {
			schema = parts[len(parts)-2]
		}
		return schema, name
	}
	listed := func(i int) *Object { return s.e.cat.lookup(nameOf(i)) }
	return s.e.dropList(s, len(ds.Objects), listed, func(i int) error {
		schema, name := nameOf(i)
		return s.e.dropNamed(s, kind, schema, name, ds.MissingOk, cascade)
	})
}

// drop removes an object (and, with cascade, everything depending on it).
func (e *Engine) drop(s *Session, kind planner.RelKind, schema, name string, missingOK, cascade bool) (err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dropNamed(s, kind, schema, name, missingOK, cascade)
}

// dropNamed is drop's work; the caller holds e.mu.
func (e *Engine) dropNamed(s *Session, kind planner.RelKind, schema, name string, missingOK, cascade bool) (err error) {
	obj := e.cat.lookup(schema, name)
	if obj == nil {
		if missingOK && schema != "" && e.cat.namespaceOID(schema) == 0 {
			return skipped(repr.Errorf("00000", "schema \"%s\" does not exist, skipping", schema))
		}
		if missingOK {
			return skipped(repr.Errorf("00000", "%s \"%s\" does not exist, skipping", kindName(kind), name))
		}
		code := repr.CodeUndefinedTable
		if kind == relIndex || kind == relType {
			code = repr.CodeUndefinedObject // as PostgreSQL's DROP INDEX
		}
		return repr.Errorf(code, "%s \"%s\" does not exist", kindName(kind), name)
	}
	if isSystemRelation(obj.ID) {
		return repr.Errorf("42501", "permission denied: \"%s\" is a system relation", name)
	}
	if obj.Kind != kind {
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not %s", name, aKind(kind)).
			WithHint("Use DROP %s to remove a %s.", strings.ToUpper(kindName(obj.Kind)), kindName(obj.Kind))
	}
	if err := e.checkOwner(s, obj.Owner, kindName(obj.Kind), obj.Name); err != nil {
		return err
	}
	if err := e.cat.checkRowTypeDrop(obj, cascade); err != nil {
		return mergeDependents(err, e.dropDependents(obj))
	}
	if err := e.identityOwner(obj); err != nil {
		return err
	}
	if cascade { // the NOTICE lists what the 2BP01 would
		checks := []error{e.cat.checkRowTypeDrop(obj, false), e.dropDependents(obj)}
		if obj.Kind == relType || hasRowType(obj) {
			checks = append([]error{e.typeDropCheck(obj)}, checks...)
		}
		defer func() { s.noticeCascade(err, checks...) }()
	}
	if !cascade && obj.Kind == relType {
		if err := e.typeDropCheck(obj); err != nil {
			return err
		}
	}
	if cascade && (obj.Kind == relType || hasRowType(obj) && e.cat.checkRowTypeDrop(obj, false) != nil) {
		// the columns of the type (or row type) go first, with the views
		// reading them, in one atomic step
		return e.atomically(func() error {
			if err := e.dropTypeDependents(s, obj); err != nil {
				return err
			}
			return e.dropSteps(e.cat.byID[obj.ID], cascade)
		})
	}
	return e.dropLocked(obj, cascade)
}

// dropDependents is the 2BP01 DROP of obj without CASCADE raises when
// other objects depend on it, with PostgreSQL's DETAIL lines
// (dependencyLines, then the constraints and defaults a drop changes,
// then the sinks reading what it drops), or nil. It changes nothing, so
// a CASCADE calls it first for its NOTICE (cascadeNotice).
func (e *Engine) dropDependents(obj *Object) error {
	victims := e.dropSet(obj)
	_, _, depLines := e.dropSide(obj, victims)
	lines := e.dependencyLines(map[uint64]bool{}, obj)
	lines = append(lines, depLines...)
	for _, s := range e.sinksReading(victims) {
		lines = append(lines, fmt.Sprintf("sink %s depends on %s %s", s.def.Name, kindName(s.def.FromKind), s.def.FromName))
	}
	if len(lines) == 0 {
		return nil
	}
	return repr.Errorf(repr.CodeDependentObjects, "cannot drop %s because other objects depend on it", describe(obj)).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// dropLocked removes obj (and, with cascade, everything depending on it)
// under the engine's lock, atomically: its deletions become durable in
// one batch, and a failure or a panic restores the catalog (atomically).
func (e *Engine) dropLocked(obj *Object, cascade bool) error {
	return e.atomically(func() error { return e.dropSteps(obj, cascade) })
}

// dropSteps is dropLocked's work, inside atomically (or a block with DDL).
func (e *Engine) dropSteps(obj *Object, cascade bool) error {
	victims := e.dropSet(obj)
	if err := e.checkNotBackfilling(victims...); err != nil {
		return err
	}
	sinks := e.sinksReading(victims)
	fixes, owned, _ := e.dropSide(obj, victims)
	if !cascade {
		if err := e.dropDependents(obj); err != nil {
			return err
		}
	}
	if e.inDDLBlock() && (len(sinks) > 0 || anySource(victims)) {
		return errNotInBlock.New(fmt.Sprintf("DROP of %s %s, which a source or sink uses or feeds,", kindName(obj.Kind), obj.Name))
	}
	// The pending checkpoint must not follow the deletions (it would bring
	// rows back), and no log record may outlive the objects it names.
	if err := e.checkpointLocked(); err != nil {
		return err
	}
	if err := e.removeSinksLocked(sinks); err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	victims = append(victims, owned...)
	victims = append(victims, e.orphanedAutoIndexes(victims)...)
	for _, v := range victims {
		b.Delete(storage.CatalogKey(v.ID))
		b.DeletePrefix(storage.RowPrefix(v.ID))
		b.DeletePrefix(storage.StatePrefix(v.ID))
		if v.Kind == relSequence {
			b.Delete(seqKey(v.ID))
		}
	}
	for _, f := range fixes {
		if err := e.persistObject(f[1], b); err != nil {
			return err
		}
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	for _, v := range victims {
		e.cat.remove(v)
		delete(e.colls, v.ID)
		delete(e.views, v.ID)
		if v.Kind == relSequence {
			e.forgetSequence(v)
		}
		if c := e.colls[indexedBy(v)]; v.Kind == relIndex && c != nil {
			c.DropIndex(v.ID, nil)
		}
		e.dropIndexes(v.ID)
	}
	for _, f := range fixes {
		e.cat.replace(f[0], f[1])
	}
	faultDrop.Inject()
	if e.inDDLBlock() {
		// Their subscriptions end, and the sources only they read stop,
		// at COMMIT: a rollback brings them back.
		e.ddl.dropped = append(e.ddl.dropped, victims...)
		return nil
	}
	e.forgetSources(victims)
	e.endSubscriptions(victims)
	return nil
}

// anySource reports whether one of objs is a source or a connector-fed
// table.
func anySource(objs []*Object) bool {
	for _, o := range objs {
		if o.Source != nil {
			return true
		}
	}
	return false
}

// dropSet returns obj followed by every object that transitively depends
// on it.
func (e *Engine) dropSet(obj *Object) []*Object {
	seen := map[uint64]bool{obj.ID: true}
	out := []*Object{obj}
	for i := 0; i < len(out); i++ {
		for _, d := range e.cat.dependents(out[i].ID) {
			if !seen[d.ID] {
				seen[d.ID] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// parseStmts parses sql into statement nodes.
func parseStmts(sql string) ([]*pg.Node, error) {
	stmts, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	out := make([]*pg.Node, len(stmts))
	for i, s := range stmts {
		out[i] = s.AST
	}
	return out, nil
}
