package planner

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// planValues plans VALUES (...), (...): a constant relation whose column
// types unify each column's entries (names column1, column2, ...).
func (b *builder) planValues(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	if outer != nil {
		return nil, repr.Unsupported("VALUES in a correlated subquery")
	}
	rows, err := b.valuesRows(sel.ValuesLists, parent, nil)
	if err != nil {
		return nil, err
	}
	p := &planned{limit: -1, atMostOne: len(rows) == 1}
	for i, e := range rows[0] {
		p.cols = append(p.cols, ResultColumn{Name: fmt.Sprintf("column%d", i+1), Type: e.Type()})
	}
	p.rel = &ir.Values{Rows: rows, Types: colTypes(p.cols)}
	names := make([]string, len(p.cols))
	for i, c := range p.cols {
		names[i] = c.Name
	}
	if p.order, _, err = b.orderBy(sel.SortClause, names, nil, nil, 0); err != nil {
		return nil, err
	}
	return p, b.limit(sel, p)
}

// valuesRows builds and unifies VALUES rows. When want is non-nil (INSERT),
// each entry is assigned to the target column type instead, and DEFAULT
// entries are left nil for the caller.
func (b *builder) valuesRows(lists []*pg_query.Node, parent *scope, want []repr.T) ([][]expr.Expr, error) {
	ec := &ectx{b: b, sc: &scope{parent: parent, barrier: true}, rel: unitRel(), clause: "VALUES", noSubquery: true}
	var rows [][]expr.Expr
	for _, l := range lists {
		items := l.GetList().GetItems()
		if len(rows) > 0 && len(items) != len(rows[0]) {
			return nil, repr.Errorf(repr.CodeSyntax, "VALUES lists must all be the same length").WithPosition(location(items[0]) + 1)
		}
		row := make([]expr.Expr, len(items))
		for i, it := range items {
			if it.GetSetToDefault() != nil && want != nil {
				continue
			}
			e, err := ec.expr(it)
			if err != nil {
				return nil, err
			}
			row[i] = e
		}
		rows = append(rows, row)
	}
	if want != nil {
		return rows, nil
	}
	for c := range rows[0] {
		col := make([]expr.Expr, len(rows))
		for r := range rows {
			col[r] = rows[r][c]
		}
		col, err := b.unify(col, "VALUES", -1)
		if err != nil {
			return nil, err
		}
		for r := range rows {
			rows[r][c] = col[r]
		}
	}
	return rows, nil
}

// colTypes returns the types of result columns.
func colTypes(cols []ResultColumn) []repr.T {
	out := make([]repr.T, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}
