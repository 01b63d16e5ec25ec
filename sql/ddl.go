package sql

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
	"github.com/eddydb/eddy/storage"
)

// execCreateTable executes CREATE TABLE.
func (p *Portal) execCreateTable(cs *pg.CreateStmt) error {
	p.tag = "CREATE TABLE"
	obj, err := tableObject(cs)
	if err != nil {
		return err
	}
	return p.st.s.e.createObject(obj, cs.IfNotExists)
}

// tableObject builds a table's catalog entry from its definition.
func tableObject(cs *pg.CreateStmt) (*Object, error) {
	if len(cs.InhRelations) > 0 || cs.Partspec != nil || cs.OfTypename != nil {
		return nil, pgerr.Unsupported("CREATE TABLE with inheritance, partitioning or OF type")
	}
	obj := &Object{Kind: planner.RelTable, Schema: schemaOf(cs.Relation), Name: cs.Relation.Relname}
	var pkNames []string
	pkDecls := 0
	for _, elt := range cs.TableElts {
		switch {
		case elt.GetColumnDef() != nil:
			cd := elt.GetColumnDef()
			col, pk, err := columnDef(cd)
			if err != nil {
				return nil, err
			}
			for _, c := range obj.Columns {
				if c.Name == col.Name {
					return nil, pgerr.New(pgerr.CodeDuplicateColumn, "column \"%s\" specified more than once", col.Name)
				}
			}
			if pk {
				pkNames = append(pkNames, col.Name)
				pkDecls++
			}
			obj.Columns = append(obj.Columns, col)
		case elt.GetConstraint() != nil:
			c := elt.GetConstraint()
			if c.Contype != pg.ConstrType_CONSTR_PRIMARY {
				return nil, pgerr.Unsupported("table constraint %s", strings.TrimPrefix(c.Contype.String(), "CONSTR_"))
			}
			for _, k := range c.Keys {
				pkNames = append(pkNames, k.GetString_().Sval)
			}
			pkDecls++
		default:
			return nil, pgerr.Unsupported("table element %s", stmtKind(elt))
		}
	}
	if pkDecls > 1 {
		return nil, pgerr.New("42P16", "multiple primary keys for table \"%s\" are not allowed", obj.Name)
	}
	for _, name := range pkNames {
		i := columnIndex(obj.Columns, name)
		if i < 0 {
			return nil, pgerr.New(pgerr.CodeUndefinedColumn, "column \"%s\" named in key does not exist", name)
		}
		obj.PrimaryKey = append(obj.PrimaryKey, i)
		obj.Columns[i].NotNull = true
	}
	return obj, nil
}

// columnDef converts one column definition; pk reports an inline PRIMARY KEY.
func columnDef(cd *pg.ColumnDef) (col ColumnDef, pk bool, err error) {
	t, err := typeFromName(cd.TypeName)
	if err != nil {
		return col, false, err
	}
	col = ColumnDef{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull}
	for _, cn := range cd.Constraints {
		c := cn.GetConstraint()
		switch c.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			col.NotNull = true
		case pg.ConstrType_CONSTR_NULL:
		case pg.ConstrType_CONSTR_PRIMARY:
			pk = true
		case pg.ConstrType_CONSTR_DEFAULT:
			if col.Default, err = parse.DeparseExpr(c.RawExpr); err != nil {
				return col, false, err
			}
		default:
			return col, false, pgerr.Unsupported("column constraint %s", strings.TrimPrefix(c.Contype.String(), "CONSTR_"))
		}
	}
	return col, pk, nil
}

// typeFromName resolves a parsed type name with its modifiers.
func typeFromName(tn *pg.TypeName) (types.T, error) {
	if len(tn.ArrayBounds) > 0 {
		return types.Unknown, pgerr.Unsupported("array types")
	}
	name := tn.Names[len(tn.Names)-1].GetString_().Sval
	var mods []int32
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return types.Unknown, pgerr.New(pgerr.CodeSyntax, "type modifiers must be simple constants or identifiers")
		}
		mods = append(mods, c.GetIval().Ival)
	}
	return types.TypeByName(name, mods)
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
	e.mu.Lock()
	defer e.mu.Unlock()
	if exists, err := e.nameTaken(obj, ifNotExists); exists || err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	obj.ID = e.allocID(b)
	if err := e.cat.add(obj); err != nil {
		return err
	}
	if err := e.persistObject(obj, b); err != nil {
		e.cat.remove(obj)
		return err
	}
	if err := e.db.Commit(b); err != nil {
		e.cat.remove(obj)
		return err
	}
	if obj.Kind == planner.RelTable {
		e.colls[obj.ID] = storage.NewCollection(obj.ID, obj.PrimaryKey)
	}
	return nil
}

// nameTaken reports whether obj's name is in use: an error (42P07), or
// true with no error under IF NOT EXISTS.
func (e *Engine) nameTaken(obj *Object, ifNotExists bool) (bool, error) {
	if obj.Schema != "public" {
		return false, pgerr.New(pgerr.CodeUndefinedObject, "schema \"%s\" does not exist", obj.Schema)
	}
	if e.cat.lookup(obj.Schema, obj.Name) == nil {
		return false, nil
	}
	if ifNotExists {
		return true, nil
	}
	return false, pgerr.New(pgerr.CodeDuplicateTable, "relation \"%s\" already exists", obj.Name)
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
	if vs.Replace {
		return pgerr.Unsupported("CREATE OR REPLACE VIEW")
	}
	sql, err := viewSQL(vs.Query, vs.Aliases)
	if err != nil {
		return err
	}
	e := p.st.s.e
	obj := &Object{Kind: planner.RelView, Schema: schemaOf(vs.View), Name: vs.View.Relname, SQL: sql}
	e.mu.RLock()
	cols, deps, err := e.describeQuery(sql, false)
	e.mu.RUnlock()
	if err != nil {
		return err
	}
	obj.Columns, obj.Deps = cols, deps
	return e.createObject(obj, false)
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
func (e *Engine) describeQuery(sql string, forView bool) ([]ColumnDef, []uint64, error) {
	n, err := parseOne(sql)
	if err != nil {
		return nil, nil, err
	}
	rc := &recordingCatalog{Catalog: e.cat, deps: map[uint64]bool{}}
	q, err := planner.PlanQuery(rc, n, planner.Options{MaterializedView: forView})
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
		return nil, pgerr.New(pgerr.CodeSyntax, "expected one statement")
	}
	return stmts[0], nil
}

var _ = exec.Update{}
