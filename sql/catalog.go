package sql

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Object is a catalog entry: a table, a view or a materialized view. It is
// persisted as JSON under storage.CatalogKey(ID). IDs grow with creation,
// so an object only depends on objects with smaller IDs and ID order is a
// topological order of the dependency graph.
type Object struct {
	ID         uint64
	Kind       planner.RelKind
	Schema     string
	Name       string
	Columns    []ColumnDef
	PrimaryKey []int `json:",omitempty"`
	// PKeyName names the primary key constraint (and its index) when that
	// is not <Name>_pkey: it was named so, or the table was renamed after
	// (PostgreSQL keeps the name). Empty in older catalogs, which always
	// used <Name>_pkey.
	PKeyName string `json:",omitempty"`
	// SQL is the defining query of a view or materialized view.
	SQL string `json:",omitempty"`
	// Deps are the IDs of the relations the object's query reads, directly
	// or through plain views.
	Deps []uint64 `json:",omitempty"`
	// Source is the connector definition of a source or connector-fed table.
	Source *SourceDef `json:",omitempty"`
	// EmitOnWindowClose marks a materialized view whose windows emit once,
	// when closed by the watermark.
	EmitOnWindowClose bool `json:",omitempty"`
	// TimeZone is the creating session's time zone, in which a
	// materialized view's zone-dependent literals are folded whenever it
	// is planned ("" is UTC).
	TimeZone string `json:",omitempty"`
	// Plan is a materialized view's lowered dataflow, printed
	// (dataflow.Plan.String), stored when the view is created. A restart
	// runs this plan, never a new one planned from SQL, so the restored
	// operator state always meets the operators that wrote it, whatever a
	// newer optimizer would choose. Empty for views created before plans
	// were stored (they are planned again from SQL).
	Plan string `json:",omitempty"`
	// PlanRows are the sizes of the relations Plan's planning read (those
	// not empty), by ID: re-planning it to check a change uses them.
	PlanRows map[uint64]int64 `json:",omitempty"`
	// RowKey, for a materialized view whose plan ends in a grouped
	// aggregate, is its group key columns (the leading ones): each group
	// has one row, so the view's collection is keyed by them and a changed
	// group is one Set in Pebble (storage.Collection.Replace) rather than
	// the old row's delete and the new row's set. Nil for a multiset of
	// whole rows, and in older catalogs (their views keep that layout).
	RowKey []int `json:",omitempty"`
	// Sequence defines a sequence (Kind relSequence).
	Sequence *SequenceDef `json:",omitempty"`
	// Index defines an index (Kind relIndex, index.go).
	Index *IndexDef `json:",omitempty"`
	// Function defines a SQL function (Kind relFunction, function.go).
	Function *FuncDef `json:",omitempty"`
	// Comment is set by COMMENT ON.
	Comment string `json:",omitempty"`
	// Owner is the OID of the role that owns the object (0 is the
	// bootstrap superuser); ACL its privileges, nil for the default (the
	// owner holds all): see privilege.go.
	Owner uint32    `json:",omitempty"`
	ACL   []ACLItem `json:",omitempty"`

	// Enum defines an enum type (Kind relType, enum.go); nil for a
	// composite type.
	Enum *EnumDef `json:",omitempty"`

	// Constraints are the table's UNIQUE, CHECK and FOREIGN KEY
	// constraints (constraint.go).
	Constraints []Constraint `json:",omitempty"`

	// rel is the planner's view of the object, built once.
	rel *planner.Relation
	// fn is the planner's view of a function (nil for other kinds).
	fn *planner.SQLFunction
	// checks are the planned CHECK expressions, by constraint index
	// (nil for other kinds).
	checks []expr.Expr
	// owned are the sequences a table being created owns.
	owned []*Object
	// ixKey is an index's key compiled over its relation's rows
	// (indexkey.go; nil for other kinds); ownKey is the key of a
	// relation's own order (its primary key, else all its columns), the
	// access path every stored relation has (pointread.go).
	ixKey, ownKey *indexKey
}

// pkeyName returns the name of o's primary key constraint.
func (o *Object) pkeyName() string {
	if o.PKeyName != "" {
		return o.PKeyName
	}
	return o.Name + "_pkey"
}

// pkeyNameOf returns the PKeyName of table's primary key named name
// ("" when that is the default, table_pkey, or no name was given).
func pkeyNameOf(table, name string) string {
	if name == table+"_pkey" {
		return ""
	}
	return name
}

// ColumnDef is a column as declared.
type ColumnDef struct {
	Name    string
	Type    repr.T
	NotNull bool   `json:",omitempty"`
	Default string `json:",omitempty"` // SQL text of the DEFAULT expression
	// Identity is 'a' (GENERATED ALWAYS) or 'd' (BY DEFAULT) for an
	// identity column, whose values come from sequence Seq.
	Identity byte `json:",omitempty"`
	// Seq is the sequence whose nextval the column's default calls (serial
	// and identity columns), 0 if none.
	Seq uint64 `json:",omitempty"`
	// Comment is set by COMMENT ON COLUMN.
	Comment string `json:",omitempty"`
	// ACL holds the column's own privileges (GRANT SELECT (c) ...),
	// PostgreSQL's attacl: nil when none were granted. They add to the
	// relation's.
	ACL []ACLItem `json:",omitempty"`
}

// Catalog holds the objects by ID and by qualified name. It is not safe for
// concurrent mutation; the Engine's lock guards it.
type Catalog struct {
	byID   map[uint64]*Object
	byName map[string]*Object // "schema.name"
	// schemas are the namespaces by name (schema.go).
	schemas map[string]*Schema
	// defACLs are the default privileges (defacl.go); replaced, never
	// changed in place.
	defACLs []*DefaultACL
	// objACLs are the functions', types' and database's ACLs (objacl.go;
	// nil: all default); replaced, never changed in place.
	objACLs *objectACLs
	// version counts changes (add, remove), so that plans cached against
	// the catalog can tell they are stale.
	version uint64
	// refs are the foreign keys by referenced table, as of refsVersion
	// (see Engine.referencing).
	refsMu      sync.Mutex
	refs        map[uint64][]fkRef
	refsVersion uint64
	// idx are the indexes by indexed relation, as of idxVersion (see
	// indexesOf; guarded by refsMu).
	idx        map[uint64][]*Object
	idxVersion uint64
	// keyOrders, in the shadow catalog of an ALTER TABLE, give the key
	// order the altered table's rows will be stored in (nil: the whole
	// row), which its collection does not have yet (Engine.keyOrder).
	keyOrders map[uint64][]int
	// size, when set, returns the current number of rows of a stored
	// relation, for the planner's estimates (Relation.Rows). Callers of
	// Relation hold the engine's lock, as for everything else here.
	size func(id uint64) int64
}

func newCatalog() *Catalog {
	return &Catalog{byID: map[uint64]*Object{}, byName: map[string]*Object{}, schemas: builtinSchemas()}
}

func qualified(schema, name string) string { return schema + "." + name }

// add registers o, building its planner relation.
func (c *Catalog) add(o *Object) error {
	if o.Kind == relFunction { // not in the relations' name space
		fn, err := o.planned()
		if err != nil {
			return err
		}
		o.fn, c.byID[o.ID] = fn, o
		c.version++
		return nil
	}
	rel, err := o.relation()
	if err != nil {
		return err
	}
	o.rel = rel
	if err := o.planChecks(c); err != nil {
		return err
	}
	if err := c.compileIndex(o); err != nil {
		return err
	}
	o.ownKey = ownKeyOf(o)
	c.byID[o.ID] = o
	c.byName[qualified(o.Schema, o.Name)] = o
	c.version++
	return nil
}

func (c *Catalog) remove(o *Object) {
	delete(c.byID, o.ID)
	if o.Kind != relFunction {
		delete(c.byName, qualified(o.Schema, o.Name))
	}
	c.version++
}

// lookup finds an object by possibly-empty schema and name. An empty
// schema searches public, then eddy_catalog (the system relations of
// pg_catalog, first on the search path, are not objects: see
// lookupSysRel).
func (c *Catalog) lookup(schema, name string) *Object {
	if schema == "" {
		if o := c.byName[qualified(nsPublic, name)]; o != nil {
			return o
		}
		schema = nsEddyCatalog
	}
	return c.byName[qualified(schema, name)]
}

// Relation implements planner.Catalog.
func (c *Catalog) Relation(schema, name string) (*planner.Relation, error) {
	if r := lookupSysRel(schema, name); r != nil {
		return r.rel, nil
	}
	o := c.lookup(schema, name)
	if o == nil {
		if schema != "" {
			name = schema + "." + name
		}
		return nil, repr.ErrUndefinedTable.New(name)
	}
	if o.Kind == relSequence {
		return nil, repr.Unsupported("reading sequence \"%s\" as a relation", o.Name)
	}
	if o.Kind == relIndex {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is an index", o.Name)
	}
	if o.Kind == relType {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is a composite type", o.Name)
	}
	if c.size != nil {
		if n := c.size(o.ID); n > 0 {
			rel := *o.rel
			rel.Rows = n
			return &rel, nil
		}
	}
	return o.rel, nil
}

// dependents returns the objects that depend on id, in ID order.
func (c *Catalog) dependents(id uint64) []*Object {
	var out []*Object
	for _, o := range c.byID {
		for _, d := range o.Deps {
			if d == id {
				out = append(out, o)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// objects returns every object in ID order.
func (c *Catalog) objects() []*Object {
	out := make([]*Object, 0, len(c.byID))
	for _, o := range c.byID {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// relation builds the planner's description of o, parsing its view query
// and column defaults.
func (o *Object) relation() (*planner.Relation, error) {
	rel := &planner.Relation{
		ID: repr.CollectionID(o.ID), Schema: o.Schema, Name: o.Name,
		Kind: o.Kind, PrimaryKey: o.PrimaryKey,
	}
	if hasRowType(o) {
		rel.RowType = rowTypeOID(o.ID)
	}
	for _, c := range o.Columns {
		col := planner.Column{Name: c.Name, Type: c.Type, NotNull: c.NotNull,
			Identity: c.Identity != 0, IdentityAlways: c.Identity == 'a'}
		if c.Default != "" {
			n, err := parseExpr(c.Default)
			if err != nil {
				return nil, fmt.Errorf("column %s default: %w", c.Name, err)
			}
			col.Default = n
		}
		rel.Columns = append(rel.Columns, col)
	}
	if o.Source != nil && o.Source.Watermark != nil {
		rel.HasEventTime, rel.EventTimeCol = true, o.Source.Watermark.Column
	}
	if o.Kind == planner.RelSource && o.Source != nil {
		rel.AppendOnly = o.Source.appendOnly()
		rel.DeletionsChecked = o.Source.retracting()
	}
	if o.Kind == planner.RelTable {
		rel.DeletionsChecked = true
	}
	if o.Kind == planner.RelView {
		stmts, err := parse.Parse(o.SQL)
		if err != nil || len(stmts) != 1 {
			return nil, fmt.Errorf("view %s: parsing its query: %v", o.Name, err)
		}
		rel.View = stmts[0].AST
	}
	return rel, nil
}

// parseExpr parses a standalone SQL expression.
func parseExpr(sql string) (*pg.Node, error) {
	stmts, err := parse.Parse("SELECT " + sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 || stmts[0].AST.GetSelectStmt() == nil || len(stmts[0].AST.GetSelectStmt().TargetList) != 1 {
		return nil, repr.Errorf(repr.CodeSyntax, "invalid expression %q", sql)
	}
	return stmts[0].AST.GetSelectStmt().TargetList[0].GetResTarget().Val, nil
}

func encodeObject(o *Object) ([]byte, error) { return json.Marshal(o) }

func decodeObject(b []byte) (*Object, error) {
	var o Object
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("decoding catalog entry: %w", err)
	}
	return &o, nil
}

// kindName is the user-facing name of an object kind, as in error messages.
func kindName(k planner.RelKind) string {
	switch k {
	case planner.RelView:
		return "view"
	case planner.RelMaterializedView:
		return "materialized view"
	case planner.RelSource:
		return "source"
	case relSequence:
		return "sequence"
	case relIndex:
		return "index"
	case relType:
		return "type"
	case relFunction:
		return "function"
	}
	return "table"
}

// aKind is kindName with its indefinite article ("a table", "an index").
func aKind(k planner.RelKind) string {
	if k == relIndex {
		return "an index"
	}
	return "a " + kindName(k)
}

// ownKeyOf returns the key of o's own order, that of its collection: its
// primary key's or group key's columns (storeKey), else all its columns.
func ownKeyOf(o *Object) *indexKey {
	cols := o.storeKey()
	if cols == nil {
		cols = make([]int, len(o.Columns))
		for i := range cols {
			cols[i] = i
		}
	}
	return colsKey(o, cols, false)
}

// compileIndex compiles an index's key over its relation, which is in
// the catalog already (IDs grow with creation).
func (c *Catalog) compileIndex(o *Object) error {
	if o.Kind != relIndex {
		return nil
	}
	rel := c.byID[o.Index.Table]
	if rel == nil {
		return fmt.Errorf("index %s: relation %d is not in the catalog", o.Name, o.Index.Table)
	}
	k, err := compileIndexKey(c, rel, o.Index)
	o.ixKey = k
	return err
}

// planChecks plans the object's CHECK constraints over its rows.
func (o *Object) planChecks(cat planner.Catalog) error {
	o.checks = nil
	for i, k := range o.Constraints {
		if k.Kind != "check" {
			continue
		}
		if o.checks == nil {
			o.checks = make([]expr.Expr, len(o.Constraints))
		}
		n, err := parseExpr(k.Check)
		if err != nil {
			return err
		}
		if o.checks[i], err = planner.PlanRowExpr(cat, o.rel, n); err != nil {
			return err
		}
	}
	return nil
}

// storeKey returns the key columns of obj's collection: the primary key of
// a table, the group key of a view keyed by it (RowKey), nil for a
// multiset.
func (o *Object) storeKey() []int {
	if o.PrimaryKey != nil {
		return o.PrimaryKey
	}
	return o.RowKey
}
