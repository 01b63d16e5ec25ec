package planner

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// planValues plans VALUES (...), (...): a constant relation whose column
// types unify each column's entries (names column1, column2, ...). Its
// entries may read the enclosing queries' columns (a derived table's
// VALUES in a subquery): decorrelated (outer set), each row is a Map over
// the outer values and the relation their union, keyed by the values.
func (b *builder) planValues(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	sc, base := &scope{parent: parent}, unitRel()
	if outer != nil {
		sc.cols, base = outer.cols, outer.rel
	}
	rows, rels, err := b.valuesRows(sel.ValuesLists, sc, base, nil)
	if err != nil {
		return nil, err
	}
	p := &planned{limit: -1, nOuter: len(sc.cols), atMostOne: len(rows) == 1}
	for i, e := range rows[0] {
		p.cols = append(p.cols, ResultColumn{Name: fmt.Sprintf("column%d", i+1), Type: e.Type()})
	}
	p.rel = valuesRel(rows, rels, colTypes(p.cols), base, p.nOuter)
	names := make([]string, len(p.cols))
	for i, c := range p.cols {
		names[i] = c.Name
	}
	if p.order, _, err = b.orderBy(sel.SortClause, names, typedCols(p.cols), nil, p.nOuter); err != nil {
		return nil, err
	}
	if b.natural[sel] && outer == nil && sel.LimitCount == nil && sel.LimitOffset == nil {
		p.rel, p.order = naturalValues(sel, p.rel, p.order, len(p.cols))
	}
	return p, b.limit(sel, p)
}

// valuesRel is the relation of VALUES rows over base's nOuter outer
// values: the constant relation when no entry reads a column (crossed
// with the outer values when there are some), else the union of one Map
// per row over its relation (rels[r] when rels is not nil: base, or base
// extended with the row's subqueries' columns).
func valuesRel(rows [][]expr.Expr, rels []ir.Rel, ts []repr.T, base ir.Rel, nOuter int) ir.Rel {
	reads := false
	for _, row := range rows {
		for _, e := range row {
			reads = reads || len(expr.Columns(e)) > 0
		}
	}
	if !reads {
		var rel ir.Rel = &ir.Values{Rows: rows, Types: ts}
		if nOuter > 0 {
			rel = ir.NewJoin(ir.JoinCross, base, rel)
		}
		return rel
	}
	var rel ir.Rel
	for i, row := range rows {
		over := base
		if rels != nil {
			over = rels[i]
		}
		r := projectExprs(over, nOuter, row)
		if rel == nil {
			rel = r
		} else {
			rel = ir.NewUnion(rel, r)
		}
	}
	return rel
}

// valuesRows builds and unifies VALUES rows, expressions over rel (whose
// names sc resolves), and returns with them the relation each row's
// entries are over (nil when every row's is rel): rel, or for a row with
// subqueries rel extended with their columns (decorrelated as a select list's, so a row's subquery
// runs once per row of rel, once when rel is the unit row). When want is
// non-nil (INSERT), each entry is assigned to the target column type
// instead, and DEFAULT entries are left nil for the caller.
func (b *builder) valuesRows(lists []*pg_query.Node, sc *scope, rel ir.Rel, want []repr.T) ([][]expr.Expr, []ir.Rel, error) {
	var rows [][]expr.Expr
	var rels []ir.Rel
	plain := &ectx{b: b, sc: sc, rel: rel, clause: "VALUES", noSubquery: true}
	for _, l := range lists {
		items := l.GetList().GetItems()
		if len(rows) > 0 && len(items) != len(rows[0]) {
			return nil, nil, repr.Errorf(repr.CodeSyntax, "VALUES lists must all be the same length").WithPosition(location(items[0]) + 1)
		}
		ec := plain
		if slices.ContainsFunc(items, mayHaveSubLink) {
			ec = &ectx{b: b, sc: sc, rel: rel, clause: "VALUES"}
			if rels == nil {
				rels = make([]ir.Rel, len(rows), len(lists))
				for i := range rels {
					rels[i] = rel
				}
			}
		}
		row := make([]expr.Expr, len(items))
		for i, it := range items {
			if it.GetSetToDefault() != nil && want != nil {
				continue
			}
			e, err := ec.expr(it)
			if err != nil {
				return nil, nil, err
			}
			row[i] = e
		}
		rows = append(rows, row)
		if rels != nil {
			rels = append(rels, ec.rel)
		}
	}
	if want != nil {
		return rows, rels, nil
	}
	for c := range rows[0] {
		col := make([]expr.Expr, len(rows))
		for r := range rows {
			col[r] = rows[r][c]
		}
		col, err := b.unify(col, "VALUES", -1)
		if err != nil {
			return nil, nil, err
		}
		for r := range rows {
			rows[r][c] = col[r]
		}
	}
	return rows, rels, nil
}

// colTypes returns the types of result columns.
func colTypes(cols []ResultColumn) []repr.T {
	out := make([]repr.T, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}

// mayHaveSubLink is hasSubLink without reflection for the entries bulk
// VALUES lists are made of (constants, casts, operators and plain calls
// over them), which it answers by their fields; others ask hasSubLink.
func mayHaveSubLink(n *pg_query.Node) bool {
	switch {
	case n == nil, n.GetAConst() != nil, n.GetColumnRef() != nil, n.GetParamRef() != nil, n.GetSetToDefault() != nil:
		return false
	case n.GetTypeCast() != nil:
		return mayHaveSubLink(n.GetTypeCast().Arg)
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg_query.A_Expr_Kind_AEXPR_OP:
		return mayHaveSubLink(n.GetAExpr().Lexpr) || mayHaveSubLink(n.GetAExpr().Rexpr)
	case n.GetFuncCall() != nil && n.GetFuncCall().Over == nil && n.GetFuncCall().AggFilter == nil && len(n.GetFuncCall().AggOrder) == 0:
		return slices.ContainsFunc(n.GetFuncCall().Args, mayHaveSubLink)
	}
	return hasSubLink(n)
}
