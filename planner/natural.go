package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Natural order. SQL leaves the order of rows without ORDER BY open, but
// PostgreSQL produces the rows of a set-returning function and of a VALUES
// list in the order the function or list gives them, and programs rely on
// it: SELECT unnest(a), string_agg(w, ' ') FROM regexp_split_to_table(s,
// ' ') w, ARRAY(SELECT x FROM unnest(a) x WHERE x <> 'b'), VALUES (3),
// (1), (2). Eddy's rows are multisets, consolidated in key order, so that
// order is carried explicitly, as a hidden bigint that counts a
// function's rows from 1 (the FlatMap's ordinality), and used where
// PostgreSQL's answer depends on it:
//
//   - a block whose FROM is one set-returning function, or no FROM, with no
//     ORDER BY, DISTINCT, grouping or window functions, is ordered by its
//     rows' natural keys: the FROM function's ordinal, then the ordinal of
//     each level of select-list set-returning calls (each call's rows in
//     lockstep, PostgreSQL's ProjectSet); a top-level VALUES statement by
//     its rows' positions;
//   - an order-sensitive aggregate without ORDER BY (array_agg,
//     string_agg, json_agg...) in a block whose FROM is one set-returning
//     function aggregates in the function's order (in a correlated
//     subquery: each outer row's expansion in its order).
//
// Elsewhere (tables, joins) the order stays Eddy's, as PostgreSQL's heap
// order is not one a view could keep.

// naturalName names the hidden ordinal column of a FROM function (a
// system column: never expanded by * or t.*).
const naturalName = "?natural order?"

// markNaturalFrom records that the FROM item of sel, when its FROM is
// one set-returning function call or one derived table, carries its
// natural order (tableFuncItem, keepOrder).
func (b *builder) markNaturalFrom(sel *pg_query.SelectStmt) {
	if len(sel.FromClause) != 1 {
		return
	}
	item := sel.FromClause[0]
	if rf := item.GetRangeFunction(); rf != nil && isTableFunc(rf) && !rf.Lateral {
		if b.natural == nil {
			b.natural = map[any]bool{}
		}
		b.natural[rf] = true
	}
	if rs := item.GetRangeSubselect(); rs != nil {
		if b.natural == nil {
			b.natural = map[any]bool{}
		}
		b.natural[rs] = true
		if vs := rs.Subquery.GetSelectStmt(); vs != nil && len(vs.ValuesLists) > 0 {
			b.natural[vs] = true
		}
	}
}

// naturalCols returns the scope's natural-order columns in key order, and
// their directions (none: the rows have no natural order).
func (s *scope) naturalCols() (idx []int, dirs []expr.SortCol) {
	for k := 1; ; k++ {
		found := false
		for i, c := range s.cols {
			if c.naturalKey == k && !c.outer {
				idx, dirs, found = append(idx, i), append(dirs, c.naturalDir), true
				break
			}
		}
		if !found {
			return idx, dirs
		}
	}
}

// naturalKeys returns the natural keys of ec's FROM rows as expressions
// over its relation, with their directions.
func (ec *ectx) naturalKeys() ([]expr.Expr, []expr.SortCol) {
	idx, dirs := ec.sc.naturalCols()
	keys := make([]expr.Expr, len(idx))
	for i, j := range idx {
		keys[i] = ec.colExpr(j)
	}
	return keys, dirs
}

// blockNatural returns the natural keys of a block's FROM rows, before
// its select-list functions, with their directions: none for no FROM (one
// row); ok is false when the block's rows have no natural order (a table,
// a join) or the block does not keep it (ORDER BY, DISTINCT, grouping,
// window functions).
func blockNatural(sel *pg_query.SelectStmt, ec *ectx, grouped, windowed bool) (keys []expr.Expr, dirs []expr.SortCol, ok bool) {
	if len(sel.SortClause) > 0 || len(sel.DistinctClause) > 0 || grouped || windowed {
		return nil, nil, false
	}
	if len(sel.FromClause) == 0 {
		return []expr.Expr{}, nil, true
	}
	keys, dirs = ec.naturalKeys()
	return keys, dirs, len(keys) > 0
}

// naturalOrder returns the ORDER BY of a block ordered by its natural
// keys (sorted as dirs, then ascending: a select-list function's ordinal
// has no entry), placed as hidden columns after its nOuter outer and nOut
// output columns.
func naturalOrder(keys []expr.Expr, dirs []expr.SortCol, nOuter, nOut int) []expr.SortCol {
	order := make([]expr.SortCol, len(keys))
	for i := range keys {
		if i < len(dirs) {
			order[i] = dirs[i]
		}
		order[i].Col = nOuter + nOut + i
	}
	return order
}

// keepOrder returns the relation of a derived table's planned query p
// and the scope columns of its order (appended after its own), when its
// enclosing block keeps the natural order of its one FROM item rs and p
// is ordered (a user's ORDER BY or its own natural order, with or
// without LIMIT): PostgreSQL's derived table yields its rows in that
// order. Else it is subqueryRel's relation, with no columns added.
func (b *builder) keepOrder(rs *pg_query.RangeSubselect, p *planned, table string) (ir.Rel, []scopeCol) {
	if !b.natural[rs] || len(p.order) == 0 {
		return b.subqueryRel(p), nil
	}
	proj := identityCols(p.nOuter + len(p.cols))
	ts := p.rel.ColTypes()
	var extra []scopeCol
	for i, o := range p.order {
		proj = append(proj, o.Col)
		extra = append(extra, scopeCol{table: table, name: naturalName, typ: ts[o.Col], system: true,
			naturalKey: i + 1, naturalDir: o})
	}
	return ir.NewProject(b.limitedRel(p, true), proj...), extra
}

// naturalValues returns a top-level VALUES statement's relation with each
// row's position appended as a hidden column, and the ORDER BY on it, for
// a query without ORDER BY whose relation is a constant VALUES list of
// several rows (else rel and order unchanged).
func naturalValues(sel *pg_query.SelectStmt, rel ir.Rel, order []expr.SortCol, nCols int) (ir.Rel, []expr.SortCol) {
	v, ok := rel.(*ir.Values)
	if !ok || len(sel.ValuesLists) < 2 || len(sel.SortClause) > 0 || len(v.Rows) < 2 || len(v.Types) != nCols {
		return rel, order
	}
	rows := make([][]expr.Expr, len(v.Rows))
	for i, r := range v.Rows {
		rows[i] = append(r[:len(r):len(r)], &expr.Lit{D: repr.NewInt(int64(i + 1)), T: repr.Int8})
	}
	types := append(v.Types[:len(v.Types):len(v.Types)], repr.Int8)
	return &ir.Values{Rows: rows, Types: types}, []expr.SortCol{{Col: nCols}}
}
