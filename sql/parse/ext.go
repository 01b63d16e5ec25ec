package parse

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Ext is an Eddy extension statement: a form PostgreSQL has no syntax for.
// Stmt.Ext holds one of *CreateSource, *CreateSink, *Subscribe,
// *EmitOnWindowClose or *DropObject; it is nil for plain PostgreSQL statements.
type Ext interface {
	extNode()
	// Construct names the statement form for messages, e.g. "CREATE SOURCE".
	Construct() string
}

// CreateSource is CREATE SOURCE, or CREATE TABLE fed by a connector:
//
//	CREATE SOURCE [IF NOT EXISTS] name [(element, ...)]
//	    [WITH (option, ...)] [FORMAT format ENCODE encode [(option, ...)]]
//	CREATE TABLE [IF NOT EXISTS] name [(element, ...)]
//	    WITH (connector = '...', option, ...) [FORMAT format ENCODE encode [(option, ...)]]
//
// An element is a PostgreSQL column definition, a table constraint, or
// WATERMARK FOR column AS expr. CREATE TABLE is an extension only when its
// WITH options name a connector or its elements include a watermark;
// otherwise (e.g. WITH (fillfactor = 70)) it is PostgreSQL's CreateStmt.
type CreateSource struct {
	// IsTable marks the CREATE TABLE form (with a connector option or a
	// watermark): a table, whose rows may come from a connector and may
	// also be written with DML, rather than a read-only source.
	IsTable     bool
	IfNotExists bool
	// Schema is "" when the name is unqualified. Names are normalized as
	// PostgreSQL does (unquoted identifiers lowercased).
	Schema, Name string
	// Columns are the column definitions, parsed by pg_query; their
	// locations are byte offsets into the whole input, like any AST.
	Columns []*pg.ColumnDef
	// Constraints are the table-level constraints (e.g. PRIMARY KEY (a, b)).
	Constraints []*pg.Constraint
	// Watermark is nil if the statement declares none (at most one may).
	Watermark *Watermark
	// Options are the WITH options in order of appearance.
	Options []Option
	// Format is "" (no FORMAT clause), "PLAIN", "UPSERT" or "DEBEZIUM";
	// Encode is "" or "JSON" or "CSV". Both are set or both are empty.
	Format, Encode string
	// EncodeOptions are the options in parentheses after ENCODE.
	EncodeOptions []Option
}

// Watermark is WATERMARK FOR Column AS Expr: rows whose Column is older than
// the largest Expr seen so far are late.
type Watermark struct {
	// Column is the normalized column name.
	Column string
	// Expr is the expression, parsed by pg_query as the target of
	// "SELECT <expr>"; its locations are byte offsets into the whole input.
	Expr *pg.Node
	// Location is the byte offset of the WATERMARK keyword in the input.
	Location int
}

// Option is one WITH (key = value) option.
//
// Key: an unquoted key is lowercased and may be dotted
// (properties.bootstrap.server, nexmark.table.type); a quoted part ("Key")
// keeps its case; a string-literal key ('connector') is taken verbatim.
//
// Value: a string literal's value (any PostgreSQL form: 'x', E'x', $$x$$,
// continued strings), a number as PostgreSQL normalizes it (1_000 -> 1000,
// -1.5), or an identifier or keyword (true, earliest) lowercased unless
// quoted. A bare key (WITH (snapshot)) has Value "" and Bare set.
type Option struct {
	Key, Value string
	// Bare marks an option written without a value.
	Bare bool
	// Location is the byte offset of the key in the input.
	Location int
}

// CreateSink is
//
//	CREATE SINK [IF NOT EXISTS] name (FROM relation | AS query)
//	    [WITH (option, ...)] [FORMAT format ENCODE encode [(option, ...)]]
//
// Exactly one of From and Query is set. Query is a SelectStmt node (which
// includes VALUES and set operations).
type CreateSink struct {
	IfNotExists   bool
	Schema, Name  string
	From          *pg.RangeVar
	Query         *pg.Node
	Options       []Option
	Format        string
	Encode        string
	EncodeOptions []Option
}

// Subscribe streams a relation's or a query's changes to the client:
//
//	SUBSCRIBE [TO] relation [WITH (option, ...)]
//	SUBSCRIBE [TO] (query) [WITH (option, ...)]
//	COPY (SUBSCRIBE ...) TO STDOUT [WITH] [(option, ...)]
//	DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR SUBSCRIBE ...
//
// Exactly one of Relation and Query (a SelectStmt node) is set. Options are
// the subscription's own (snapshot, progress); the sql layer validates them.
// After DECLARE, FETCH and CLOSE are ordinary PostgreSQL statements.
type Subscribe struct {
	Relation *pg.RangeVar
	Query    *pg.Node
	Options  []Option
	// ViaCopy marks COPY (SUBSCRIBE ...) TO STDOUT; CopyOptions are the
	// COPY statement's own options (e.g. format = binary).
	ViaCopy     bool
	CopyOptions []Option
	// CursorName is the cursor of DECLARE ... CURSOR FOR SUBSCRIBE, or "".
	CursorName string
}

// EmitOnWindowClose marks CREATE MATERIALIZED VIEW ... EMIT ON WINDOW CLOSE:
// the view emits a window's rows once, when the watermark closes the window,
// instead of maintaining them as they change. The statement's AST is the
// CreateTableAsStmt PostgreSQL parses once the trailing clause is removed
// (Stmt.SQL still contains it).
type EmitOnWindowClose struct {
	// Location is the byte offset of the EMIT keyword in the input.
	Location int
}

func (*CreateSource) extNode()      {}
func (*CreateSink) extNode()        {}
func (*Subscribe) extNode()         {}
func (*EmitOnWindowClose) extNode() {}

// Construct implements Ext.
func (s *CreateSource) Construct() string {
	if s.IsTable {
		return "CREATE TABLE ... WITH (connector)"
	}
	return "CREATE SOURCE"
}

// Construct implements Ext.
func (*CreateSink) Construct() string { return "CREATE SINK" }

// Construct implements Ext.
func (*Subscribe) Construct() string { return "SUBSCRIBE" }

// Construct implements Ext.
func (*EmitOnWindowClose) Construct() string { return "EMIT ON WINDOW CLOSE" }
