package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Catalog is what the planner needs from the statement layer (which
// implements it).
type Catalog interface {
	// Relation resolves a possibly schema-qualified name ("" schema = search
	// path: public, then pg_catalog). Missing: *repr.Error 42P01.
	Relation(schema, name string) (*Relation, error)
}

// RelKind is the kind of a catalog relation.
type RelKind uint8

// The relation kinds.
const (
	RelTable RelKind = iota
	RelView
	RelMaterializedView
	// RelSource is an unbounded, append-only input (CREATE SOURCE): views
	// read its updates; its rows are not stored.
	RelSource
)

// Relation is a table, view or materialized view as the planner sees it.
type Relation struct {
	ID           repr.CollectionID
	Schema, Name string
	Kind         RelKind
	Columns      []Column
	PrimaryKey   []int // column indices; nil if none
	// View is, for RelView, the defining SelectStmt node; the planner inlines
	// it (re-planned in a fresh scope).
	View *pg_query.Node
	// HasEventTime marks a source with WATERMARK FOR: EventTimeCol is the
	// column its watermark bounds (carried into ir.Get for exec).
	HasEventTime bool
	EventTimeCol int
	// AppendOnly marks a relation whose updates never retract a row (a
	// source in FORMAT PLAIN); top-k over it keeps only its top rows.
	AppendOnly bool
	// DeletionsChecked marks a relation whose deletions were checked
	// against its rows before any view sees them (a table; a FORMAT
	// DEBEZIUM source keeping its live rows): a view's Source need not
	// hold rows to drop deletions of rows it never saw (ir.Get).
	DeletionsChecked bool
	// RowType is the pg_type OID of the relation's row type (0: none, as
	// for system relations): a whole-row reference to it is
	// repr.CompositeOf(RowType), whose fields TypeCatalog knows.
	RowType uint32
	// Rows is the relation's number of rows when it was looked up (0:
	// unknown or empty). Only join ordering reads it, as an estimate
	// (ir.Get.Rows); no result depends on it.
	Rows int64
}

// Column is one column of a Relation.
type Column struct {
	Name    string
	Type    repr.T
	NotNull bool
	Default *pg_query.Node // nil means NULL
	// IdentityAlways marks a GENERATED ALWAYS AS IDENTITY column: INSERT
	// refuses explicit values (428C9) unless OVERRIDING SYSTEM VALUE.
	IdentityAlways bool
	// Identity marks any identity column (OVERRIDING USER VALUE replaces
	// explicit values by the default).
	Identity bool
	// System marks a system column (a catalog relation's tableoid): found
	// by name, never expanded by * or t.*, as PostgreSQL's system columns.
	System bool
}

// ResultColumn describes one output column of a query, as RowDescription
// reports it (TableID/ColumnAttr are 0 unless it is a plain table column).
type ResultColumn struct {
	Name       string
	Type       repr.T
	TableID    repr.CollectionID
	ColumnAttr int16
	// Fields names the fields of a record-valued column whose shape the
	// planner knows (a select-list call of a set-returning function with
	// several result columns), for field selection from an outer query.
	Fields []expr.TableCol
}

// Call is a function or operator call, or a cast, that planning
// resolved.
type Call struct {
	// Fn is the function or operator called; nil for a cast.
	Fn *expr.Func
	// Args are the types of the arguments as written, From[i] cast to
	// To[i] where they differ (planning casts Fn's arguments to the
	// overload it picked: PostgreSQL may have an operator for the types
	// as written, as int48pl for int4 + int8). A cast has one of each.
	From, To []repr.T
	// SQLFunction, when not 0, is the ID of a SQL function a call of
	// which planning inlined (sqlfunc.go): EXECUTE on it is checked.
	SQLFunction uint64
	// node is the call's or cast's expression, when planning built one
	// (LiveCalls).
	node expr.Expr
	// kept, in an entry with neither Fn nor From, are columns of rel that
	// count though nothing reads them (a derived table's ORDER BY).
	rel  ir.Rel
	kept []int
}

// Options control planning.
type Options struct {
	// MaterializedView rejects what cannot be maintained (volatile functions
	// like now()/random(): 0A000 naming them).
	MaterializedView bool
	// ParamTypes are the client-declared parameter types (Unknown where
	// unspecified); others are inferred from context (default text).
	ParamTypes []repr.T
	// Params, when non-nil, are the bound parameter values, substituted as
	// literals ($n).
	Params []repr.Datum
	// GenericParams, when Params is nil, plans $n as a expr.Param read
	// from the evaluation context, so that one plan serves every binding
	// (every parameter type must be known). A construct that needs the
	// value at plan time (LIMIT $1) fails to plan; the caller then plans
	// with the values.
	GenericParams bool
	// TimeZone is the session's time zone ("" is UTC): literals cast to
	// zone-dependent types ('2024-03-09 12:00'::timestamptz) are folded
	// in it at planning time, as PostgreSQL does when it parses them.
	TimeZone string
	// Trace, when set, records what planning resolved (trace.go).
	Trace *Trace
	// Calls, when set, collects every call and cast planning resolves
	// (in the views the statement reads too), folded or not, for the
	// caller's EXECUTE checks.
	Calls *[]Call
	// ModifyingCTEs are the results of the statement's top-level
	// data-modifying WITH queries (INSERT/UPDATE/DELETE ... RETURNING),
	// which the statement layer runs first (modifying.go), or
	// DescribeModifyingCTEs to plan their columns with no rows. A
	// data-modifying WITH query not in the map is 0A000.
	ModifyingCTEs map[*pg_query.CommonTableExpr]*CTEResult
	// Locked, when set, are the results of the statement's query blocks
	// with a locking clause below its top level, which the statement
	// layer runs first as queries of their own (LockedSubqueries). When
	// nil (views' definitions, EXPLAIN, generic plans), such a block is
	// 0A000.
	Locked *LockedSubqueries
	// CallProcedure plans a CALL: the functions a call finds are the
	// procedures of its name (SQLFunction.Procedure), not the functions.
	CallProcedure bool
	// CallHidden are procedures a CALL cannot mean (the arguments for
	// their OUT parameters are missing): the call does not find them.
	CallHidden []uint64
	// IntervalTexts, when set, has planning read interval text whose
	// meaning IntervalStyle sql_standard changes ('-1 2:03:04') in
	// IntervalStyle, as PostgreSQL reads a view's constants once, when
	// it is created: each such constant is folded, and its A_Const maps
	// to a text every style reads the same ("-1 days +02:03:04"), which
	// the caller writes into the view's stored query. Unset, a
	// materialized view refuses such text (its dataflow does not run in
	// a session's style) and other queries read it at run time, in the
	// session's style.
	IntervalTexts map[*pg_query.A_Const]string
	// IntervalStyle is the style IntervalTexts reads in.
	IntervalStyle repr.IntervalStyle
}

// Query is a planned SELECT/VALUES/set operation: Rel produces rows (as a
// multiset); the top-level ORDER BY/LIMIT/OFFSET are presentation applied by
// the caller (OrderBy over Rel's columns, which may include hidden sort
// columns beyond len(Columns)).
type Query struct {
	// Rel is the relation of the rows, nil when Rows holds them.
	Rel ir.Rel
	// Rows, when not nil, are the rows already evaluated at plan time
	// (an INSERT's VALUES list of plain literals, see constRows); Rel is
	// then nil and WithRel builds it for those that need a relation.
	Rows       []repr.Row
	Columns    []ResultColumn
	OrderBy    []expr.SortCol
	Limit      int64 // -1 = none
	Offset     int64
	ParamTypes []repr.T
	// Locks are the tables a SELECT ... FOR UPDATE/SHARE locks, whose
	// rows Rel carries after Columns (see locking.go).
	Locks []Lock
	// Routines marks a plan that calls PL/pgSQL functions, which run
	// statements of their own while it runs (so it must not run under
	// a lock those statements take).
	Routines bool
}

// Insert is a planned INSERT. Source produces rows of exactly the table's
// arity and column types: target-list order resolved, missing columns filled
// with their DEFAULT (or NULL), assignment casts applied.
type Insert struct {
	Table            *Relation
	Source           *Query
	Returning        []expr.Expr // over the inserted table row
	ReturningColumns []ResultColumn
	// OnConflict is the ON CONFLICT clause (nil: none).
	OnConflict *OnConflict
	// Template, when not nil, rebuilds Source.Rows for other parameter
	// values without planning again (insert_template.go).
	Template *InsertTemplate
}

// OnConflict is a planned ON CONFLICT clause. The statement layer checks
// the arbiter against the table's constraints (42P10).
type OnConflict struct {
	// DoUpdate is DO UPDATE (else DO NOTHING).
	DoUpdate bool
	// Cols is the conflict target's columns (table column indices), or
	// Constraint names it (ON CONSTRAINT); neither: any unique constraint
	// (DO NOTHING only).
	Cols       []int
	Constraint string
	// Exprs are the conflict target's elements planned over a table row
	// (a *expr.Col for a column), matched against the key parts of
	// unique indexes, which may be expressions (ON CONFLICT (lower(x)));
	// InferWhere is the target's WHERE (a partial index's predicate must
	// follow from it), nil if none.
	Exprs      []expr.Expr
	InferWhere expr.Expr
	// Set computes the updated row (len = table arity) and Where filters
	// the update, both over the existing row followed by the proposed
	// (EXCLUDED) row.
	Set   []expr.Expr
	Where expr.Expr
}

// Update is a planned UPDATE: rows of Table where Filter is true (nil: all
// rows) are replaced by Set evaluated over the old row (len = table arity).
// With From (UPDATE ... FROM, a WHERE with subqueries, a WITH list), the
// rows are those of the query From, whose rows are the old table row
// followed by the other FROM items' columns; Filter is nil, and Set and
// Returning read that joined row (Returning with the new table row).
type Update struct {
	Table            *Relation
	Filter           expr.Expr
	From             *Query
	Set              []expr.Expr
	Returning        []expr.Expr // over the new row
	ReturningColumns []ResultColumn
	ParamTypes       []repr.T
}

// Delete is a planned DELETE of the rows of Table where Filter is true (nil:
// all rows), or with From (DELETE ... USING, a WHERE with subqueries, a
// WITH list) of the rows the query From finds, as Update's From.
type Delete struct {
	Table            *Relation
	Filter           expr.Expr
	From             *Query
	Returning        []expr.Expr // over the deleted row
	ReturningColumns []ResultColumn
	ParamTypes       []repr.T
}

// TypeCatalog is implemented by a Catalog that holds named composite
// types (CREATE TYPE name AS (...)); the planner asks for it with a type
// assertion, so catalogs without types need not implement it.
type TypeCatalog interface {
	// CompositeType resolves a possibly schema-qualified type name to a
	// composite type (repr.CompositeOf its OID); ok is false when no
	// composite type has that name.
	CompositeType(schema, name string) (t repr.T, ok bool)
	// CompositeFields returns the name (as format_type prints it) and the
	// fields, in order, of the composite type with pg_type OID oid (ok
	// false when there is none).
	CompositeFields(oid uint32) (name string, fields []expr.TableCol, ok bool)
	// EnumLabels returns the name (as format_type prints it) and the
	// labels, in sort order, of the enum type with pg_type OID oid (ok
	// false when there is none). CompositeType resolves enum type names
	// too (to repr.EnumOf their OID).
	EnumLabels(oid uint32) (name string, labels []repr.EnumLabel, ok bool)
}
