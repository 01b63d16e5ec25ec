package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// PlanScalarOver plans an expression over the columns of one relation
// (referenced by name, unqualified or qualified by the relation's name),
// e.g. a source's WATERMARK FOR expression. Subqueries are rejected. With a
// known want type the result is coerced to it by assignment rules.
func PlanScalarOver(cat Catalog, ex *pg_query.Node, rel *Relation, want repr.T) (expr.Expr, error) {
	b := newBuilder(cat, Options{})
	sc := &scope{}
	typs := make([]repr.T, len(rel.Columns))
	for i, c := range rel.Columns {
		sc.cols = append(sc.cols, scopeCol{table: rel.Name, name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
		typs[i] = c.Type
	}
	ec := &ectx{b: b, sc: sc, rel: &ir.Get{ID: rel.ID, Name: rel.Name, Types: typs}, clause: "WATERMARK", noSubquery: true}
	e, err := ec.expr(ex)
	if err != nil || want.Family == repr.FamUnknown {
		return e, err
	}
	return b.assign(e, want, "expression")
}

// PlanIndexExpr plans a key expression of an index over a row of rel, or
// with predicate the WHERE of a partial index, rejecting what PostgreSQL
// rejects there: aggregates (42803), window functions (42P20),
// set-returning functions and subqueries. Immutability is the caller's
// check (expr.IsImmutable).
func PlanIndexExpr(cat Catalog, rel *Relation, ex *pg_query.Node, predicate bool) (expr.Expr, error) {
	b := newBuilder(cat, Options{})
	sc := &scope{}
	for i, c := range rel.Columns {
		sc.cols = append(sc.cols, scopeCol{table: rel.Name, name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
	}
	ec := &ectx{b: b, sc: sc, rel: tableRel(rel), clause: "index expressions", noSubquery: true}
	if !predicate {
		return ec.expr(ex)
	}
	ec.clause = "index predicates"
	e, err := ec.expr(ex)
	if err != nil {
		return nil, err
	}
	return b.toBool(e, "WHERE", ex) // PostgreSQL's name for the clause here
}
