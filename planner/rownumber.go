package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
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
// Any other use of a window function is 0A000.

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
	if rn == "" {
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

// windowCalls returns the window function calls of the select list.
func windowCalls(targets []*pg_query.Node) []*pg_query.FuncCall {
	var out []*pg_query.FuncCall
	for _, t := range targets {
		walk(t, func(x *pg_query.Node) bool {
			if x.GetSubLink() != nil {
				return false
			}
			if fc := x.GetFuncCall(); fc != nil && fc.Over != nil {
				out = append(out, fc)
			}
			return true
		})
	}
	return out
}

// planRowNumber plans the bounded row_number() of sel over its filtered
// FROM relation rel as a ranked TopK, recording the rank column for
// windowRef. Unbounded or other window functions are 0A000.
func (b *builder) planRowNumber(sel *pg_query.SelectStmt, calls []*pg_query.FuncCall, rel ir.Rel, sc *scope) (ir.Rel, error) {
	fc := calls[0]
	if name := funcName(fc); name != "row_number" {
		return nil, pgerr.Unsupported("window function %s()", name).WithPosition(fc.Location + 1)
	}
	lim, ok := b.rankLimits[sel]
	if !ok || len(calls) > 1 {
		return nil, pgerr.Unsupported("row_number() other than in a derived table filtered by rn <= N").WithPosition(fc.Location + 1)
	}
	w := fc.Over
	switch {
	case len(fc.Args) > 0 || fc.AggStar || fc.AggDistinct || fc.AggFilter != nil:
		return nil, pgerr.New(pgerr.CodeUndefinedFunction, "function row_number does not take arguments").WithPosition(fc.Location + 1)
	case w.Name != "" || w.Refname != "":
		return nil, pgerr.Unsupported("named windows")
	case w.FrameOptions != frameDefault:
		return nil, pgerr.Unsupported("window frames")
	case len(sel.GroupClause) > 0 || sel.HavingClause != nil:
		return nil, pgerr.Unsupported("window functions over aggregates")
	}
	ec := &ectx{b: b, sc: sc, rel: rel, clause: "window definition", noSubquery: true}
	n := ir.Arity(rel)
	var maps []scalar.Expr
	column := func(node *pg_query.Node) (int, error) {
		e, err := ec.expr(node)
		if err != nil {
			return 0, err
		}
		if e.Type().Family == types.FamUnknown {
			if e, err = b.coerce(e, types.Text); err != nil {
				return 0, err
			}
		}
		if c, ok := e.(*scalar.Col); ok {
			return c.Idx, nil
		}
		maps = append(maps, e)
		return n + len(maps) - 1, nil
	}
	key := identityCols(sc.outerCount())
	for _, p := range w.PartitionClause {
		col, err := column(p)
		if err != nil {
			return nil, err
		}
		key = append(key, col)
	}
	var order []dataflow.SortCol
	for _, o := range w.OrderClause {
		sb := o.GetSortBy()
		if sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
			return nil, pgerr.Unsupported("ORDER BY ... USING")
		}
		col, err := column(sb.Node)
		if err != nil {
			return nil, err
		}
		desc := sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC
		nullsFirst := desc
		if sb.SortbyNulls != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
			nullsFirst = sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_FIRST
		}
		order = append(order, dataflow.SortCol{Col: col, Desc: desc, NullsFirst: nullsFirst})
	}
	topk := &ir.TopK{Input: ir.NewMap(rel, maps...), Key: key, Order: order, Limit: lim.limit, Rank: true}
	b.windowCols[fc] = ir.Arity(topk) - 1
	return topk, nil
}

// windowRef returns the column of a planned window function call.
func (c *ectx) windowRef(fc *pg_query.FuncCall) (scalar.Expr, error) {
	col, ok := c.b.windowCols[fc]
	if !ok || col >= ir.Arity(c.rel) {
		return nil, pgerr.Unsupported("window functions in %s", c.clause).WithPosition(fc.Location + 1)
	}
	return c.colExpr(col), nil
}
