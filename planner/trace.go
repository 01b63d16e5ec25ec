package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// Trace records what planning resolved in a statement's AST, for a caller
// that prints the statement back the way PostgreSQL does (the statement
// layer's view deparser): each expression's type and coercions, the FROM
// item column each column reference names, and what each * expands to.
// Nodes planned more than once (decorrelation plans a subquery twice,
// grouping plans an expression over the FROM items and over the groups)
// keep their last planning, which has the same types. Planning with a
// Trace changes nothing else.
type Trace struct {
	// Exprs is the typed expression each expression node planned to,
	// before the enclosing operator, function or clause coerced it.
	Exprs map[*pg_query.Node]expr.Expr
	// Cols is the FROM item column each column reference resolved to.
	Cols map[*pg_query.ColumnRef]TraceCol
	// Stars are the columns each * or t.* of a select list expands to.
	Stars map[*pg_query.ColumnRef][]TraceCol
	// Natural are the common columns each NATURAL join merges (its USING
	// list, as PostgreSQL's pg_get_viewdef prints it).
	Natural map[*pg_query.JoinExpr][]string
	// RegrArgs maps each argument of a statistics aggregate call as
	// written (regr_slope(y, x)) to a copy of it in the formula the call
	// is rewritten into (regr.go), whose planning the trace records.
	RegrArgs map[*pg_query.Node]*pg_query.Node
}

// TraceCol names a column of a FROM item: Table is the item's qualifier
// (its alias, or the relation's or WITH query's name; for the merged
// column of a JOIN USING, the side's qualifier whose value it takes), ""
// for an item without one; Name is the column's name there.
type TraceCol struct {
	Table, Name string
}

// NewTrace returns an empty trace.
func NewTrace() *Trace {
	return &Trace{Exprs: map[*pg_query.Node]expr.Expr{}, Cols: map[*pg_query.ColumnRef]TraceCol{},
		Stars: map[*pg_query.ColumnRef][]TraceCol{}, Natural: map[*pg_query.JoinExpr][]string{},
		RegrArgs: map[*pg_query.Node]*pg_query.Node{}}
}

// ColumnName is the name PostgreSQL gives a select-list entry without an
// alias (FigureColname): a column's name, a function's, "case", ...,
// "?column?" when nothing names it.
func ColumnName(n *pg_query.Node) string { return columnName(n) }

// traceExpr records n's typed expression e.
func (b *builder) traceExpr(n *pg_query.Node, e expr.Expr) {
	if t := b.opts.Trace; t != nil && e != nil {
		t.Exprs[n] = e
	}
}

// traceCol records that ref names column name of the FROM item table in
// scope s or an enclosing one.
func (b *builder) traceCol(s *scope, ref *pg_query.ColumnRef, table, name string) {
	t := b.opts.Trace
	if t == nil {
		return
	}
	for cur := s; cur != nil; cur = cur.parent {
		if i, err := cur.lookup(table, name, 0); err == nil && i >= 0 {
			t.Cols[ref] = cur.traceColOf(cur.cols[i])
			return
		}
	}
}

// traceCol is c as the deparser names it.
func (c *scopeCol) traceCol() TraceCol {
	if c.table == "" && c.origin != "" {
		return TraceCol{Table: c.origin, Name: c.name}
	}
	return TraceCol{Table: c.table, Name: c.name}
}

// traceColOf is c, a column of s, as the deparser names it: a merged
// JOIN USING column whose type is not its side's (int USING bigint: the
// common type) is the join's own column, named bare as pg_get_viewdef
// prints it, not by the side whose value it takes.
func (s *scope) traceColOf(c scopeCol) TraceCol {
	if c.table == "" && c.origin != "" {
		if j, err := s.lookup(c.origin, c.name, 0); err == nil && j >= 0 && !s.cols[j].typ.Equivalent(c.typ) {
			return TraceCol{Name: c.name}
		}
	}
	return c.traceCol()
}

// traceStar records the columns of sc that the * ref expands to.
func (b *builder) traceStar(ref *pg_query.ColumnRef, sc *scope, cols []int) {
	t := b.opts.Trace
	if t == nil {
		return
	}
	out := make([]TraceCol, len(cols))
	for i, c := range cols {
		out[i] = sc.traceColOf(sc.cols[c])
	}
	t.Stars[ref] = out
}

// TraceScalar plans an expression over a row of rel (nil: no columns),
// as a column DEFAULT, CHECK constraint or index expression, recording
// what it resolved in tr; its columns are unqualified (Table "").
func TraceScalar(cat Catalog, rel *Relation, ex *pg_query.Node, tr *Trace) error {
	b := newBuilder(cat, Options{Trace: tr})
	sc := &scope{}
	var in ir.Rel = unitRel()
	if rel != nil {
		for i, c := range rel.Columns {
			sc.cols = append(sc.cols, scopeCol{name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
		}
		in = tableRel(rel)
	}
	ec := &ectx{b: b, sc: sc, rel: in, clause: "DEFAULT", noSubquery: true}
	_, err := ec.expr(ex)
	return err
}
