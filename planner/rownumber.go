package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Top-N per group, the streaming idiom
//
//	SELECT ... FROM (SELECT ..., row_number() OVER (PARTITION BY k ORDER BY o) AS rn
//	                 FROM ...) t
//	WHERE rn <= N          -- or rn < N, rn = 1
//
// plans as TopK{Key: k, Order: o, Limit: N, Rank: true} inside the derived
// table, whose rank column is rn (so SELECT * still sees it); the bound is
// dropped from the outer WHERE, whose other conjuncts stay. Rows tied on o
// are numbered in an order fixed by the whole row, one of the orders
// PostgreSQL may produce (row_number() among peers is unspecified there).
// Every other use of window functions is planned as ir.Window (winfunc.go).

// rankLimit is the TopK limit of a bounded row_number().
type rankLimit struct{ limit int64 }

// frameDefault is PostgreSQL's FRAMEOPTION_DEFAULTS (RANGE UNBOUNDED
// PRECEDING to CURRENT ROW), the frame of an OVER clause without one.
const frameDefault = 1058

// boundRowNumber recognizes the outer query of the idiom: one derived
// table in FROM whose select list has a row_number() column that WHERE
// bounds from above. It records the limit for the derived table and
// returns the WHERE clause without the bound (unchanged otherwise).
func (b *builder) boundRowNumber(sel *pg_query.SelectStmt) *pg_query.Node {
	if len(sel.FromClause) != 1 || sel.WhereClause == nil {
		return sel.WhereClause
	}
	rs := sel.FromClause[0].GetRangeSubselect()
	if rs == nil || rs.Lateral || rs.Subquery.GetSelectStmt() == nil || rs.Alias != nil && len(rs.Alias.Colnames) > 0 {
		return sel.WhereClause
	}
	inner := rs.Subquery.GetSelectStmt()
	rn := rowNumberName(inner)
	if rn == "" || !rowNumberTopK(inner) {
		return sel.WhereClause
	}
	alias := ""
	if rs.Alias != nil {
		alias = rs.Alias.Aliasname
	}
	limit, found := int64(-1), false
	var rest []*pg_query.Node
	for _, c := range conjuncts(sel.WhereClause) {
		if n, ok := rankBound(c, rn, alias); ok {
			if !found || n < limit {
				limit = n
			}
			found = true
			continue
		}
		rest = append(rest, c)
	}
	if !found {
		return sel.WhereClause
	}
	b.rankLimits[inner] = rankLimit{limit: max(limit, 0)}
	switch len(rest) {
	case 0:
		return nil
	case 1:
		return rest[0]
	}
	return pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, rest, -1)
}

// rowNumberName returns the output name of the select list's one
// row_number() OVER (...) entry, or "".
func rowNumberName(sel *pg_query.SelectStmt) string {
	name := ""
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		fc := rt.GetVal().GetFuncCall()
		if fc == nil || fc.Over == nil || funcName(fc) != "row_number" {
			continue
		}
		if name != "" {
			return ""
		}
		name = rt.Name
		if name == "" {
			name = "row_number"
		}
	}
	return name
}

// conjuncts splits an AND tree into its terms.
func conjuncts(n *pg_query.Node) []*pg_query.Node {
	if be := n.GetBoolExpr(); be != nil && be.Boolop == pg_query.BoolExprType_AND_EXPR {
		var out []*pg_query.Node
		for _, a := range be.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg_query.Node{n}
}

// rankBound reports the limit a conjunct rn <= N, rn < N or rn = 1 (or
// the mirrored forms) puts on rn.
func rankBound(n *pg_query.Node, rn, alias string) (int64, bool) {
	a := n.GetAExpr()
	if a == nil || a.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
		return 0, false
	}
	op := opName(a.Name)
	l, r := a.Lexpr, a.Rexpr
	if isRankRef(r, rn, alias) {
		l, r = r, l
		op = map[string]string{">=": "<=", ">": "<", "=": "="}[op]
	}
	if !isRankRef(l, rn, alias) {
		return 0, false
	}
	c := r.GetAConst()
	if c == nil || c.GetIval() == nil {
		return 0, false
	}
	v := int64(c.GetIval().Ival)
	switch {
	case op == "<=":
		return v, true
	case op == "<":
		return v - 1, true
	case op == "=" && v == 1:
		return 1, true
	}
	return 0, false
}

// isRankRef reports whether n is a reference to column rn of the derived
// table (bare or qualified by its alias).
func isRankRef(n *pg_query.Node, rn, alias string) bool {
	ref := n.GetColumnRef()
	if ref == nil {
		return false
	}
	table, name, err := refName(ref)
	return err == nil && name == rn && (table == "" || table == alias)
}

// rowNumberTopK reports whether sel's window functions are the one bare
// row_number() of the idiom over its ungrouped FROM relation, with an
// inline window without a frame: only then does the enclosing query's
// bound become a TopK (anything else takes the general path, winfunc.go,
// and the bound stays a filter). sel must not pick rows after numbering
// them (LIMIT, OFFSET, DISTINCT ON), which the bound would then precede.
func rowNumberTopK(sel *pg_query.SelectStmt) bool {
	if sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.ValuesLists) > 0 || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.WindowClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil ||
		isDistinctOn(sel) {
		return false
	}
	calls := blockWindowCalls(sel)
	if len(calls) != 1 {
		return false
	}
	fc, w := calls[0], calls[0].Over
	if slices.ContainsFunc(slices.Concat(w.PartitionClause, w.OrderClause), hasSubLink) {
		return false // the general path decorrelates them
	}
	if funcName(fc) != "row_number" || len(fc.Args) > 0 || fc.AggStar || fc.AggDistinct || fc.AggFilter != nil ||
		len(fc.AggOrder) > 0 || w.Name != "" || w.Refname != "" || w.FrameOptions != frameDefault {
		return false
	}
	var aggs []*pg_query.FuncCall
	for _, n := range append(append([]*pg_query.Node(nil), sel.TargetList...), sel.SortClause...) {
		collectAggs(n, &aggs)
	}
	return len(aggs) == 0
}

// planRowNumber plans the bounded row_number() fc of sel over its
// filtered FROM relation rel as a ranked TopK, returning the rank column
// as the call's value.
func (b *builder) planRowNumber(sel *pg_query.SelectStmt, fc *pg_query.FuncCall, rel ir.Rel, sc *scope) (ir.Rel, map[*pg_query.FuncCall]expr.Expr, error) {
	lim := b.rankLimits[sel]
	w := fc.Over
	ec := &ectx{b: b, sc: sc, rel: rel, clause: "window definition", noSubquery: true}
	n := ir.Arity(rel)
	var maps []expr.Expr
	column := func(node *pg_query.Node) (int, error) {
		e, err := ec.typedExpr(node)
		if err != nil {
			return 0, err
		}
		if c, ok := e.(*expr.Col); ok {
			return c.Idx, nil
		}
		maps = append(maps, e)
		return n + len(maps) - 1, nil
	}
	key := identityCols(sc.outerCount())
	for _, p := range w.PartitionClause {
		col, err := column(p)
		if err != nil {
			return nil, nil, err
		}
		key = append(key, col)
	}
	var order []expr.SortCol
	for _, o := range w.OrderClause {
		sb := o.GetSortBy()
		col, err := column(sb.Node)
		if err != nil {
			return nil, nil, err
		}
		d, err := sortDirFor(sb, colType(rel, maps, col))
		if err != nil {
			return nil, nil, err
		}
		d.Col = col
		order = append(order, d)
	}
	topk := &ir.TopK{Input: ir.NewMap(rel, maps...), Key: key, Order: order, Limit: lim.limit, Rank: true}
	rank := ir.Arity(topk) - 1
	return topk, map[*pg_query.FuncCall]expr.Expr{fc: &expr.Col{Idx: rank, T: repr.Int8}}, nil
}
