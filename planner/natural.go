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
//   - a window function over a window without PARTITION BY and ORDER BY
//     (OVER ()) sees the rows in that order, as PostgreSQL's WindowAgg
//     reads its input unsorted then: row_number, ntile, lag, lead and
//     ROWS frames count positions in it, first_value and the
//     order-sensitive aggregates read the partition in it (naturalWindow);
//     when every window of the block is empty, its output keeps the
//     natural order too;
//   - a FROM list whose first item has a natural order and each later
//     item is a set-returning function reading the item before it
//     (FROM generate_series(1, 3) a, unnest(ARRAY[a, -a]) b) is ordered
//     by the items' keys in turn: PostgreSQL must run such a chain as
//     nested loops, each function rescanned per row of the item it
//     reads (markNaturalChain, lateralNatural). A function reading no
//     earlier item may be joined in any order, so its list has none;
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
	if len(sel.FromClause) > 1 {
		b.markNaturalChain(sel.FromClause)
		return
	}
	if len(sel.FromClause) == 1 {
		b.markNaturalItem(sel.FromClause[0])
	}
}

// markNaturalItem marks a FROM item with a natural order: a
// set-returning function (not LATERAL), a derived table, or a join of
// such an item, INNER or LEFT, with a set-returning function (which
// lateralNatural keys when it reads the left side). It reports whether
// item was one.
func (b *builder) markNaturalItem(item *pg_query.Node) bool {
	if b.natural == nil {
		b.natural = map[any]bool{}
	}
	if rf := item.GetRangeFunction(); rf != nil && isTableFunc(rf) && !rf.Lateral {
		b.natural[rf] = true
		return true
	}
	if rs := item.GetRangeSubselect(); rs != nil {
		b.natural[rs] = true
		if vs := rs.Subquery.GetSelectStmt(); vs != nil && len(vs.ValuesLists) > 0 {
			b.natural[vs] = true
		}
		return true
	}
	j := item.GetJoinExpr()
	if j == nil || j.IsNatural || len(j.UsingClause) > 0 || j.Alias != nil ||
		j.Jointype != pg_query.JoinType_JOIN_INNER && j.Jointype != pg_query.JoinType_JOIN_LEFT {
		return false
	}
	rf := j.Rarg.GetRangeFunction()
	if rf == nil || !isTableFunc(rf) || b.callsSQLFunction(rf) || !b.markNaturalItem(j.Larg) {
		return false
	}
	b.natural[rf] = true
	return true
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

// emptyWindows reports whether every window function call of sel has an
// empty window (no PARTITION BY, no ORDER BY): PostgreSQL's WindowAgg then
// reads and returns its input in order, with no sort.
func emptyWindows(sel *pg_query.SelectStmt, calls []*pg_query.FuncCall) bool {
	named, err := namedWindows(sel.WindowClause)
	if err != nil {
		return false
	}
	for _, fc := range calls {
		def, err := overWindow(fc.Over, named)
		if err != nil || len(def.partition) > 0 || len(def.order) > 0 {
			return false
		}
	}
	return true
}

// naturalWindow orders a call's empty window by the FROM rows' natural
// keys, when they have them, for the functions whose result over an
// empty window depends on the rows' order: row_number, ntile, lag and
// lead, ROWS frames, first_value, last_value, nth_value and the
// order-sensitive aggregates (a RANGE or GROUPS frame is then the
// whole partition, all rows being peers: it becomes ROWS UNBOUNDED
// PRECEDING AND UNBOUNDED FOLLOWING, the same rows in order; with an
// EXCLUDE clause it is left alone). rank, dense_rank, percent_rank and
// cume_dist see every row as a peer and stay unordered.
func (c *ectx) naturalWindow(wc *winCall, frame expr.Frame) {
	keys, dirs := c.naturalKeys()
	if len(keys) == 0 || len(wc.spec.part) > 0 || len(wc.spec.order) > 0 {
		return
	}
	switch k := wc.fn.Kind; {
	case k == expr.WinRowNumber || k == expr.WinNtile || k == expr.WinLag || k == expr.WinLead:
	case k.UsesFrame() && frame.Rows():
	case k == expr.WinAgg && !wc.fn.Agg.Def().Ordered:
		return // the whole partition's sum, count...: no order to keep
	case k.UsesFrame() && frame.Exclude == expr.ExcludeNoOthers:
		wc.fn.Frame = expr.Frame{Mode: expr.RowsMode, Start: expr.FrameBound{Kind: expr.UnboundedPreceding},
			End: expr.FrameBound{Kind: expr.UnboundedFollowing}}
	default:
		return
	}
	for i, k := range keys {
		var d expr.SortCol
		if i < len(dirs) {
			d = dirs[i]
		}
		wc.spec.order = append(wc.spec.order, k)
		wc.spec.dirs = append(wc.spec.dirs, expr.SortCol{Desc: d.Desc, NullsFirst: d.NullsFirst})
	}
}

// markNaturalChain marks the items of a FROM list of several items whose
// first has a natural order (markNaturalItem) and whose others
// are set-returning functions: lateralNatural then gives each function
// reading the item before it the next natural key.
func (b *builder) markNaturalChain(items []*pg_query.Node) {
	for _, item := range items[1:] {
		if rf := item.GetRangeFunction(); rf == nil || !isTableFunc(rf) || b.callsSQLFunction(rf) {
			return
		}
	}
	if !b.markNaturalItem(items[0]) {
		return
	}
	for _, item := range items[1:] {
		b.natural[item.GetRangeFunction()] = true
	}
}

// lateralNatural returns the natural key a set-returning function of a
// marked FROM list takes after lcols, the earlier items' columns: one
// more than theirs when its calls read a column of the item just before
// (prev, b.naturalPrev), which has a natural key; else 0 (no natural
// order).
func lateralNatural(lcols []scopeCol, calls []expr.TableCall, prev [2]int) int {
	last := 0
	for _, c := range lcols {
		if !c.outer {
			last = max(last, c.naturalKey)
		}
	}
	lo, hi := prev[0], prev[1]
	prevKeyed := false
	for i := lo; i < hi && i < len(lcols); i++ {
		prevKeyed = prevKeyed || lcols[i].naturalKey == last && last > 0
	}
	if !prevKeyed {
		return 0
	}
	for _, c := range calls {
		for _, a := range c.Args {
			for _, col := range expr.Columns(a) {
				if col >= lo && col < hi && !lcols[col].outer {
					return last + 1
				}
			}
		}
	}
	return 0
}
