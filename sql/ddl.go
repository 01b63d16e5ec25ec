package sql

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// execCreateTable executes CREATE TABLE.
func (p *Portal) execCreateTable(cs *pg.CreateStmt) error {
	p.tag = "CREATE TABLE"
	if err := checkTableOptions(cs.Options); err != nil {
		return err
	}
	cs, lt, comments, err := p.st.s.e.expandLike(cs)
	if err != nil {
		return err
	}
	obj, err := tableObject(cs, lt.resolver(p.st.s.e.typeFromName))
	if err != nil {
		return err
	}
	for _, c := range comments {
		obj.Columns[columnIndex(obj.Columns, c.col)].Comment = c.text
	}
	obj.Owner = p.st.s.newOwner()
	for _, o := range obj.owned {
		o.Owner = obj.Owner
	}
	if err := p.st.s.e.createObjects(append([]*Object{obj}, obj.owned...), cs.IfNotExists); err != nil {
		return err
	}
	return p.st.s.noteOnCommit(cs.Relation, cs.Oncommit)
}

// typeResolver resolves a column's type name (a catalog's typeFromName).
type typeResolver func(*pg.TypeName) (repr.T, error)

// tableObject builds a table's catalog entry from its definition, its
// column types resolved by types; the sequences of its serial and
// identity columns are in obj.owned, named and linked when it is created
// (linkOwned).
func tableObject(cs *pg.CreateStmt, types typeResolver) (*Object, error) {
	if len(cs.InhRelations) > 0 || cs.Partspec != nil || cs.OfTypename != nil {
		return nil, repr.Unsupported("CREATE TABLE with inheritance, partitioning or OF type")
	}
	obj := &Object{Kind: planner.RelTable, Schema: schemaOf(cs.Relation), Name: cs.Relation.Relname}
	var pkNames []string
	pkDecls := 0
	var cons []*pg.Constraint
	var consCol []string
	for _, elt := range cs.TableElts {
		switch {
		case elt.GetColumnDef() != nil:
			cd := elt.GetColumnDef()
			col, pk, seq, err := columnDef(cd, types)
			if err != nil {
				return nil, err
			}
			for _, c := range obj.Columns {
				if c.Name == col.Name {
					return nil, repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" specified more than once", col.Name)
				}
			}
			if pk {
				pkNames = append(pkNames, col.Name)
				pkDecls++
				obj.PKeyName = pkeyConname(cd.Constraints)
			}
			if seq != nil {
				obj.owned = append(obj.owned, seq)
			}
			obj.Columns = append(obj.Columns, col)
			for _, cn := range cd.Constraints {
				c := cn.GetConstraint()
				switch {
				case isTableConstraint(c.Contype):
					cons, consCol = append(cons, c), append(consCol, col.Name)
				case len(cons) > 0 && c.Contype == pg.ConstrType_CONSTR_ATTR_DEFERRED:
					cons[len(cons)-1].Initdeferred = true // applies to the constraint before it
				case len(cons) > 0 && c.Contype == pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
					cons[len(cons)-1].Initdeferred = false
				}
			}
		case elt.GetConstraint() != nil:
			c := elt.GetConstraint()
			if c.Contype == pg.ConstrType_CONSTR_PRIMARY {
				for _, k := range c.Keys {
					pkNames = append(pkNames, k.GetString_().Sval)
				}
				pkDecls++
				obj.PKeyName = c.Conname
				continue
			}
			if !isTableConstraint(c.Contype) {
				return nil, repr.Unsupported("table constraint %s", strings.TrimPrefix(c.Contype.String(), "CONSTR_"))
			}
			cons, consCol = append(cons, c), append(consCol, "")
		default:
			return nil, repr.Unsupported("table element %s", stmtKind(elt))
		}
	}
	if pkDecls > 1 {
		return nil, repr.Errorf("42P16", "multiple primary keys for table \"%s\" are not allowed", obj.Name)
	}
	obj.PKeyName = pkeyNameOf(obj.Name, obj.PKeyName)
	for _, name := range pkNames {
		i := columnIndex(obj.Columns, name)
		if i < 0 {
			return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" named in key does not exist", name)
		}
		obj.PrimaryKey = append(obj.PrimaryKey, i)
		obj.Columns[i].NotNull = true
	}
	for i, c := range cons {
		if err := obj.addConstraint(c, consCol[i]); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// pkeyConname returns the name given to a column's PRIMARY KEY
// constraint ("" if none).
func pkeyConname(cons []*pg.Node) string {
	for _, n := range cons {
		if c := n.GetConstraint(); c != nil && c.Contype == pg.ConstrType_CONSTR_PRIMARY {
			return c.Conname
		}
	}
	return ""
}

// isTableConstraint reports whether a constraint kind is kept as a named
// constraint of the table (not a column property).
func isTableConstraint(k pg.ConstrType) bool {
	switch k {
	case pg.ConstrType_CONSTR_UNIQUE, pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_FOREIGN:
		return true
	}
	return false
}

// columnDef converts one column definition, its type resolved by types;
// pk reports an inline PRIMARY KEY, seq the sequence a serial or identity
// column owns.
func columnDef(cd *pg.ColumnDef, types typeResolver) (col ColumnDef, pk bool, seq *Object, err error) {
	serial := serialType(cd.TypeName)
	var t repr.T
	if serial != "" {
		t, err = repr.TypeByName(serial, nil)
	} else {
		t, err = types(cd.TypeName)
	}
	if err != nil {
		return col, false, nil, err
	}
	if err = checkColumnCollation(cd, t); err != nil {
		return col, false, nil, err
	}
	col = ColumnDef{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull}
	if serial != "" {
		col.NotNull = true
		seq = &Object{Kind: relSequence, Sequence: &SequenceDef{Type: serial, Increment: 1, OwnedCol: cd.Colname}}
		if err := seq.Sequence.fill(nil, nil, nil); err != nil {
			return col, false, nil, err
		}
	}
	sawNullable := false // PostgreSQL's transformColumnDefinition
	conflict := func() error {
		return repr.Errorf(repr.CodeSyntax, "conflicting NULL/NOT NULL declarations for column \"%s\" of table", cd.Colname)
	}
	for _, cn := range cd.Constraints {
		c := cn.GetConstraint()
		switch c.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			if sawNullable && !col.NotNull {
				return col, false, nil, conflict()
			}
			col.NotNull, sawNullable = true, true
		case pg.ConstrType_CONSTR_NULL:
			if sawNullable && col.NotNull {
				return col, false, nil, conflict()
			}
			sawNullable = true
		case pg.ConstrType_CONSTR_PRIMARY:
			pk = true
		case pg.ConstrType_CONSTR_DEFAULT:
			if serial != "" {
				return col, false, nil, repr.Errorf(repr.CodeSyntax, "multiple default values specified for column \"%s\" of table", cd.Colname)
			}
			if err = checkDefaultExpr(c.RawExpr); err != nil {
				return col, false, nil, err
			}
			if col.Default, err = defaultText(c.RawExpr); err != nil {
				return col, false, nil, err
			}
		case pg.ConstrType_CONSTR_IDENTITY:
			if serial != "" {
				return col, false, nil, repr.Errorf(repr.CodeSyntax, "both default and identity specified for column \"%s\" of table", cd.Colname)
			}
			if sawNullable && !col.NotNull { // an identity column is NOT NULL
				return col, false, nil, conflict()
			}
			sawNullable = true
			if seq, err = identitySequence(&col, c); err != nil {
				return col, false, nil, err
			}
		case pg.ConstrType_CONSTR_UNIQUE, pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_FOREIGN,
			pg.ConstrType_CONSTR_ATTR_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE,
			pg.ConstrType_CONSTR_ATTR_DEFERRED, pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
			// table constraints and their attributes, collected by tableObject
		default:
			return col, false, nil, repr.Unsupported("column constraint %s", strings.TrimPrefix(c.Contype.String(), "CONSTR_"))
		}
	}
	if col.Identity != 0 && col.Default != "" {
		return col, false, nil, repr.Errorf(repr.CodeSyntax, "both default and identity specified for column \"%s\" of table", cd.Colname)
	}
	return col, pk, seq, nil
}

// serialType returns the integer type of a serial pseudo-type, or "".
func serialType(tn *pg.TypeName) string {
	if len(tn.Names) != 1 || len(tn.ArrayBounds) > 0 {
		return ""
	}
	switch tn.Names[0].GetString_().Sval {
	case "serial", "serial4":
		return "integer"
	case "bigserial", "serial8":
		return "bigint"
	case "smallserial", "serial2":
		return "smallint"
	}
	return ""
}

// identitySequence makes col an identity column and returns its sequence.
func identitySequence(col *ColumnDef, c *pg.Constraint) (*Object, error) {
	if col.Identity != 0 {
		return nil, repr.Errorf(repr.CodeSyntax, "multiple identity specifications for column \"%s\" of table", col.Name)
	}
	var typ string
	switch col.Type.OID() {
	case repr.Int2.OID():
		typ = "smallint"
	case repr.Int4.OID():
		typ = "integer"
	case repr.Int8.OID():
		typ = "bigint"
	default:
		return nil, repr.Errorf(repr.CodeInvalidParameter, "identity column type must be smallint, integer, or bigint")
	}
	def, err := sequenceDef(c.Options, typ)
	if err != nil {
		return nil, err
	}
	def.OwnedCol, def.Identity = col.Name, true
	col.Identity, col.NotNull = c.GeneratedWhen[0], true
	return &Object{Kind: relSequence, Sequence: def}, nil
}

// typeFromName resolves a parsed type name with its modifiers.
func typeFromName(tn *pg.TypeName) (repr.T, error) {
	if len(tn.ArrayBounds) > 0 {
		elem := &pg.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location}
		t, err := typeFromName(elem)
		return repr.ArrayOf(t), err // int[3][] is int[], as in PostgreSQL
	}
	name := tn.Names[len(tn.Names)-1].GetString_().Sval
	var mods []int32
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return repr.Unknown, repr.Errorf(repr.CodeSyntax, "type modifiers must be simple constants or identifiers")
		}
		mods = append(mods, c.GetIval().Ival)
	}
	return repr.TypeByName(name, mods)
}

func columnIndex(cols []ColumnDef, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func schemaOf(rv *pg.RangeVar) string {
	if rv.Schemaname == "" {
		return "public"
	}
	return rv.Schemaname
}

// createObject adds a table or view to the catalog durably.
func (e *Engine) createObject(obj *Object, ifNotExists bool) error {
	return e.createObjects([]*Object{obj}, ifNotExists)
}

// createObjects adds objects to the catalog durably in one batch: a table
// with the sequences its serial and identity columns own, or a sequence.
// IF NOT EXISTS applies to the first object; the others (owned sequences,
// whose names are chosen free) follow it.
func (e *Engine) createObjects(objs []*Object, ifNotExists bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exists, err := e.nameTaken(objs[0], ifNotExists); exists || err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevID := e.nextID
	var added []*Object
	undo := func() {
		for _, o := range added {
			e.cat.remove(o)
		}
		e.nextID = prevID
	}
	for _, obj := range objs {
		obj.ID = e.allocID(b)
		for i := 1; obj.Kind == relType && i < typeIDs; i++ {
			e.allocID(b) // the type's and its array type's OIDs (ctype.go)
		}
	}
	if err := e.linkOwned(objs); err != nil {
		e.nextID = prevID
		return err
	}
	for _, obj := range objs {
		e.applyDefaultACL(obj)
		if err := e.cat.add(obj); err != nil {
			undo()
			return err
		}
		added = append(added, obj)
		if err := e.persistObject(obj, b); err != nil {
			undo()
			return err
		}
		if obj.Kind == relSequence {
			b.Set(seqKey(obj.ID), encodeSeqValue(obj.Sequence.firstValue(), false))
		}
	}
	if err := e.commitDDL(b); err != nil {
		undo()
		return err
	}
	for _, obj := range objs {
		switch obj.Kind {
		case planner.RelTable:
			e.colls[obj.ID] = storage.NewCollection(obj.ID, obj.PrimaryKey)
		case relSequence:
			if err := e.registerSequence(obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkOwned prepares a new table (objs[0]) and the sequences it owns
// (objs[1:]): each sequence gets a free name (table_column_seq, then with
// a number appended) and the owning column its default, and the table's
// foreign keys are resolved. The caller holds e.mu.
func (e *Engine) linkOwned(objs []*Object) error {
	t := objs[0]
	if t.Kind == relSequence {
		return e.resolveOwner(t.Sequence, t.Sequence.ownedBy)
	}
	if t.Kind != planner.RelTable {
		return nil
	}
	if err := e.resolveForeignKeys(t); err != nil {
		return err
	}
	taken := func(name string) bool {
		for _, o := range objs {
			if o.Name == name && o.Kind == relSequence {
				return true
			}
		}
		return e.cat.lookup(t.Schema, name) != nil || name == t.Name
	}
	for _, seq := range objs[1:] {
		base := t.Name + "_" + seq.Sequence.OwnedCol + "_seq"
		name := base
		for n := 1; taken(name); n++ {
			name = base + itoa(n)
		}
		seq.Schema, seq.Name, seq.Sequence.OwnedBy = t.Schema, name, t.ID
		i := columnIndex(t.Columns, seq.Sequence.OwnedCol)
		t.Columns[i].Seq = seq.ID
		t.Columns[i].Default = "nextval(" + quoteLiteral(qualifiedText(t.Schema, name)) + ")"
	}
	return nil
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// nameTaken reports whether obj's name is in use: an error (42P07), or
// true with no error under IF NOT EXISTS.
func (e *Engine) nameTaken(obj *Object, ifNotExists bool) (bool, error) {
	e.ensureTempSchema(obj.Schema)
	if e.cat.schemas[obj.Schema] == nil {
		return false, repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", obj.Schema)
	}
	if e.cat.lookup(obj.Schema, obj.Name) == nil && e.backfillingName(obj.Schema, obj.Name) == nil {
		return false, nil
	}
	if obj.Kind == relType { // a relation's name is its row type's, as in PostgreSQL
		return false, repr.Errorf(repr.CodeDuplicateObject, "type \"%s\" already exists", obj.Name)
	}
	if ifNotExists {
		return true, skipped(repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists, skipping", obj.Name))
	}
	err := repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", obj.Name)
	if e.cat.lookup(obj.Schema, obj.Name) == nil {
		err = err.WithDetail("Another session is creating materialized view \"%s\" (its backfill is running).", obj.Name)
	}
	return false, err
}

func (e *Engine) persistObject(obj *Object, b *storage.Batch) error {
	v, err := encodeObject(obj)
	if err != nil {
		return err
	}
	b.Set(storage.CatalogKey(obj.ID), v)
	return nil
}

// recordingCatalog records every relation a plan resolves, for dependency
// tracking (plain views included, since the planner inlines them).
type recordingCatalog struct {
	*Catalog
	deps map[uint64]bool
}

func (r *recordingCatalog) Relation(schema, name string) (*planner.Relation, error) {
	rel, err := r.Catalog.Relation(schema, name)
	if err == nil {
		r.deps[uint64(rel.ID)] = true
	}
	return rel, err
}

func (r *recordingCatalog) list() []uint64 {
	out := make([]uint64, 0, len(r.deps))
	for id := range r.deps {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// execCreateView executes CREATE VIEW: the query is validated by planning
// it, and stored as text to be inlined wherever the view is used.
func (p *Portal) execCreateView(vs *pg.ViewStmt) error {
	p.tag = "CREATE VIEW"
	if err := checkViewOptions(vs.Options); err != nil {
		return err
	}
	if err := refuseModifyingWith(vs.Query, "views must not contain"); err != nil {
		return err
	}
	sql, err := viewSQL(vs.Query, vs.Aliases)
	if err != nil {
		return err
	}
	e := p.st.s.e
	if sql, err = e.styleFreeIntervals(sql, false, p.st.s.settings.timeZone, p.st.s.settings.textStyle().Interval); err != nil {
		return err
	}
	obj := &Object{Kind: planner.RelView, Schema: schemaOf(vs.View), Name: vs.View.Relname, SQL: sql, Owner: p.st.s.newOwner()}
	if vs.Replace {
		if done, err := e.replaceExisting(p.st.s, obj); done || err != nil {
			return err
		}
	}
	var cols []ColumnDef
	var deps []uint64
	e.readLocked(func() {
		cols, deps, err = e.describeQuery(sql, false, p.st.s.settings.timeZone)
	})
	if err != nil {
		return err
	}
	if err := distinctColumns(cols); err != nil {
		return err
	}
	obj.Columns, obj.Deps = cols, deps
	return e.createObject(obj, false)
}

// distinctColumns fails with 42701, as PostgreSQL does, when two of a new
// view's columns share a name (SELECT 1 AS a, 2 AS a; or v (a, a)), then
// with recordColumns' 42P16 when one is of the pseudo-type record.
func distinctColumns(cols []ColumnDef) error {
	seen := make(map[string]bool, len(cols))
	for _, c := range cols {
		if seen[c.Name] {
			return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" specified more than once", c.Name)
		}
		seen[c.Name] = true
	}
	return recordColumns(cols)
}

// recordColumns fails with 42P16, as PostgreSQL's CheckAttributeType does
// for a new table, view or materialized view, when a column has the
// pseudo-type record (an anonymous ROW(...), a derived table's whole row)
// or record[]: only a named composite type (a relation's row type, CREATE
// TYPE ... AS) may be stored.
func recordColumns(cols []ColumnDef) error {
	for _, c := range cols {
		t := c.Type
		switch {
		case t.Family == repr.FamRecord && t.Composite == 0:
			return repr.Errorf("42P16", "column \"%s\" has pseudo-type record", c.Name)
		case t.Family == repr.FamArray && t.Elem == repr.FamRecord && t.Composite == 0:
			return repr.Errorf("42P16", "column \"%s\" has pseudo-type record[]", c.Name)
		}
	}
	return nil
}

// viewSQL renders a view's query, applying column aliases.
func viewSQL(query *pg.Node, aliases []*pg.Node) (string, error) {
	sql, err := parse.Deparse(query)
	if err != nil || len(aliases) == 0 {
		return sql, err
	}
	var names []string
	for _, a := range aliases {
		names = append(names, quoteIdent(a.GetString_().Sval))
	}
	return "SELECT * FROM (" + sql + ") AS _view(" + strings.Join(names, ", ") + ")", nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// describeQuery plans sql (under the caller's lock) for its columns and
// the relations it reads.
func (e *Engine) describeQuery(sql string, forView bool, tz string) ([]ColumnDef, []uint64, error) {
	n, err := parseOne(sql)
	if err != nil {
		return nil, nil, err
	}
	rc := &recordingCatalog{Catalog: e.cat, deps: map[uint64]bool{}}
	q, err := planner.PlanQuery(rc, n, planner.Options{MaterializedView: forView, TimeZone: tz})
	if err != nil {
		return nil, nil, err
	}
	cols := make([]ColumnDef, len(q.Columns))
	for i, c := range q.Columns {
		cols[i] = ColumnDef{Name: c.Name, Type: c.Type}
	}
	return cols, rc.list(), nil
}

// parseOne parses a single statement.
func parseOne(sql string) (*pg.Node, error) {
	stmts, err := parseStmts(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, repr.Errorf(repr.CodeSyntax, "expected one statement")
	}
	return stmts[0], nil
}

var _ = repr.Update{}
