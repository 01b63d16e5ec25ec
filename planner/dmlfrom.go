package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// UPDATE ... FROM and DELETE ... USING (and an UPDATE or DELETE whose WHERE
// has subqueries or that has a WITH list) find their rows with a query:
// the target table cross-joined with the other FROM items, filtered by
// WHERE, as PostgreSQL joins them. The query's rows are the target's
// columns followed by the items' columns; SET and RETURNING are planned
// over that joined row. The statement layer changes each target row once
// even when several joined rows match it (see sql/dmljoin.go).

// joinsOthers reports whether an UPDATE or DELETE reads relations other
// than its target, and so finds its rows with a query (joinedTarget).
func joinsOthers(from []*pg_query.Node, where *pg_query.Node, with *pg_query.WithClause) bool {
	return len(from) > 0 || with != nil || hasSubLink(where)
}

// joinedTarget plans the query finding an UPDATE's or DELETE's rows: the
// target (rv, the table rel) joined with the items of from, filtered by
// where. sc names the query's columns, the target's first.
func (b *builder) joinedTarget(rel *Relation, rv *pg_query.RangeVar, from []*pg_query.Node, where *pg_query.Node) (*Query, *scope, error) {
	if rv.Schemaname == "" && b.lookupCTE(rv.Relname) != nil {
		// The target is always a table, never a CTE of the same name.
		rv = &pg_query.RangeVar{Schemaname: rel.Schema, Relname: rv.Relname, Inh: rv.Inh, Alias: rv.Alias, Location: rv.Location}
	}
	items := append([]*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rv}}}, from...)
	r, sc, err := b.planFrom(items, nil, nil)
	if err == nil && where != nil {
		r, err = b.filter(r, sc, where, "WHERE")
	}
	if err == nil {
		err = b.checkNowConsumed()
	}
	if err != nil {
		return nil, nil, err
	}
	q := &Query{Rel: r, Limit: -1}
	for _, c := range sc.cols {
		q.Columns = append(q.Columns, ResultColumn{Name: c.name, Type: c.typ, TableID: c.tableID, ColumnAttr: c.attr})
	}
	return q, sc, nil
}

// withDML plans a DML statement's WITH list (if any) and runs body with
// its CTEs in scope.
func (b *builder) withDML(w *pg_query.WithClause, body func() error) error {
	if w == nil {
		return body()
	}
	_, err := b.withCTEs(w, nil, func() (*planned, error) { return nil, body() })
	return err
}

// returningOver plans RETURNING over the row sc names (rel is its
// relation): the changed table row, or for a joined UPDATE or DELETE
// that row followed by the other FROM items' columns.
func (b *builder) returningOver(list []*pg_query.Node, sc *scope, rel ir.Rel) ([]expr.Expr, []ResultColumn, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	targets, err := b.expandTargets(list, sc)
	if err != nil {
		return nil, nil, err
	}
	ec := &ectx{b: b, sc: sc, rel: rel, clause: "RETURNING", noSubquery: true}
	var out []expr.Expr
	var cols []ResultColumn
	for _, t := range targets {
		e, err := b.targetExpr(t, ec)
		if err != nil {
			return nil, nil, err
		}
		out, cols = append(out, e), append(cols, resultColumn(t.name, e, sc))
	}
	return out, cols, nil
}

// setHasSubLink reports whether an UPDATE's SET list has a subquery.
func setHasSubLink(list []*pg_query.Node) bool {
	for _, n := range list {
		if hasSubLink(n.GetResTarget().Val) {
			return true
		}
	}
	return false
}

// joinedSetList plans the SET list of a joined UPDATE over from's rows.
// Subqueries in it are decorrelated into from: their values become
// columns after the FROM items' (the rows, and so the rows matched, stay
// the same).
func (b *builder) joinedSetList(rel *Relation, sc *scope, from *Query, list []*pg_query.Node) ([]expr.Expr, error) {
	ec := &ectx{b: b, sc: sc, rel: from.Rel, clause: "UPDATE"}
	set, err := ec.setList(rel, list)
	if err != nil {
		return nil, err
	}
	ts := ec.rel.ColTypes()
	for i := len(from.Columns); i < len(ts); i++ {
		from.Columns = append(from.Columns, ResultColumn{Name: "?subquery?", Type: ts[i]})
	}
	from.Rel = ec.rel
	return set, nil
}
