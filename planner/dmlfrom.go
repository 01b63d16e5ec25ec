package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// UPDATE ... FROM and DELETE ... USING (and an UPDATE or DELETE whose WHERE
// or RETURNING has subqueries or that has a WITH list) find their rows
// with a query:
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
	q := &Query{Rel: r, Limit: -1, Routines: b.routines}
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
	return b.returningList(list, &ectx{b: b, sc: sc, rel: rel, clause: "RETURNING", noSubquery: true})
}

// returningList plans the RETURNING list over ec's scope.
func (b *builder) returningList(list []*pg_query.Node, ec *ectx) ([]expr.Expr, []ResultColumn, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	targets, err := b.expandTargets(list, ec.sc)
	if err != nil {
		return nil, nil, err
	}
	var out []expr.Expr
	var cols []ResultColumn
	for _, t := range targets {
		e, err := b.targetExpr(t, ec)
		if err != nil {
			return nil, nil, err
		}
		out, cols = append(out, e), append(cols, resultColumn(t.name, e, ec.sc))
	}
	return out, cols, nil
}

// joinedReturning plans the RETURNING list of a joined UPDATE (set: the
// new row over from's rows) or DELETE (set nil). The statement layer
// evaluates it over the changed row followed by from's other columns, so
// subqueries in it are decorrelated into from, as in joinedSetList.
// They must see the row as RETURNING does, the new one: the target's
// changed columns are then read from their new values, appended to from
// (a volatile SET expression, which the statement layer evaluates again,
// is 0A000 there).
func (b *builder) joinedReturning(list []*pg_query.Node, sc *scope, from *Query, set []expr.Expr) ([]expr.Expr, []ResultColumn, error) {
	if !listHasSubLink(list) {
		return b.returningOver(list, sc, from.Rel)
	}
	ec := &ectx{b: b, sc: sc, rel: from.Rel, clause: "RETURNING"}
	if set != nil {
		var err error
		if ec.sc, ec.rel, err = newRowScope(sc, from.Rel, set); err != nil {
			return nil, nil, err
		}
	}
	out, cols, err := b.returningList(list, ec)
	if err != nil {
		return nil, nil, err
	}
	ts := ec.rel.ColTypes()
	for i := len(from.Columns); i < len(ts); i++ {
		from.Columns = append(from.Columns, ResultColumn{Name: "?returning?", Type: ts[i]})
	}
	from.Rel = ec.rel
	return out, cols, nil
}

// newRowScope returns the scope and relation over which a joined
// UPDATE's RETURNING reads the new row: rel with the target's new row
// appended (in column order, so that t.* expands to it), and sc with the
// target's names moved to it (the old values stay, nameless, where they
// were).
func newRowScope(sc *scope, rel ir.Rel, set []expr.Expr) (*scope, ir.Rel, error) {
	arity := ir.Arity(rel)
	types := rel.ColTypes()
	nsc := &scope{parent: sc.parent, cols: make([]scopeCol, arity)}
	copy(nsc.cols, sc.cols)
	for i := len(sc.cols); i < arity; i++ {
		nsc.cols[i] = scopeCol{name: "?subquery?", typ: types[i], hidden: true}
	}
	var news []expr.Expr
	for j, e := range set {
		if expr.IsVolatile(e) {
			return nil, nil, repr.Unsupported("subqueries in RETURNING of an UPDATE ... FROM setting a column to a volatile expression")
		}
		news = append(news, e)
		nsc.cols = append(nsc.cols, sc.cols[j])
		nsc.cols[j] = scopeCol{name: "?old " + sc.cols[j].name + "?", typ: sc.cols[j].typ, hidden: true}
	}
	return nsc, ir.NewMap(rel, news...), nil
}

// listHasSubLink reports whether a list of expressions (RETURNING) has
// a subquery.
func listHasSubLink(list []*pg_query.Node) bool {
	return hasSubLink(&pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: list}}})
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
