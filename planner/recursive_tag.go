package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// iterCol names the hidden iteration column of a tagged recursion; no
// SQL identifier can spell it unquoted and the rewrite builds the
// references itself.
const iterCol = "?iteration?"

// tagIterations rewrites a UNION ALL recursion whose recursive term
// applies DISTINCT, GROUP BY or LIMIT/OFFSET directly to the recursive
// reference so that a fixed point computes what PostgreSQL computes.
// PostgreSQL applies them to each iteration's new rows alone (the working
// table); tagging every row with its iteration (0 in the non-recursive
// term, the reference's plus 1 in the recursive term) and adding the tag
// to the DISTINCT or GROUP BY key (a LIMIT ranks within it: limitKey)
// makes the fixed point's groups those iterations. It returns the
// rewritten copy of the CTE and true, or false when the query does not
// have that shape (the checks then refuse it as before). The caller hides
// the tag column.
func tagIterations(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt) (*pg_query.CommonTableExpr, bool) {
	base, rec := sel.GetLarg(), sel.GetRarg()
	if !sel.All || base == nil || rec == nil || base.Op != pg_query.SetOperation_SETOP_NONE ||
		rec.Op != pg_query.SetOperation_SETOP_NONE || len(base.TargetList) == 0 && len(base.ValuesLists) == 0 ||
		len(rec.DistinctClause) == 0 && len(rec.GroupClause) == 0 && !hasLimit(rec) || hasAggregates(rec) ||
		len(rec.WindowClause) > 0 || len(rec.GroupClause) > 0 && len(rec.DistinctClause) > 0 {
		return tagNested(ce, sel)
	}
	for _, t := range rec.TargetList {
		for _, f := range t.GetResTarget().GetVal().GetColumnRef().GetFields() {
			if f.GetAStar() != nil {
				return nil, false // * would expand to the hidden column too
			}
		}
	}
	var ref *pg_query.RangeVar
	direct := true
	w := &recWalker{name: ce.Ctename}
	w.visit = func(_ recContext, rv *pg_query.RangeVar) error {
		ref, direct = rv, direct && len(w.levels) == 1
		return nil
	}
	if w.walk(rec.ProtoReflect(), recOK) != nil || ref == nil || !direct {
		return nil, false
	}
	alias := ref.Relname
	if ref.Alias != nil {
		if len(ref.Alias.Colnames) > 0 {
			return nil, false
		}
		alias = ref.Alias.Aliasname
	}
	out := proto.Clone(ce).(*pg_query.CommonTableExpr)
	osel := out.Ctequery.GetSelectStmt()
	tag := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(iterCol)}, -1)
	next := pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")}, tag, pg_query.MakeAConstIntNode(1, -1), -1)
	zero := pg_query.MakeAConstIntNode(0, -1)
	for _, row := range osel.Larg.ValuesLists { // VALUES (...), (...)
		l := row.GetList()
		l.Items = append(l.Items, zero)
	}
	if len(osel.Larg.TargetList) > 0 {
		osel.Larg.TargetList = append(osel.Larg.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, zero, -1))
	}
	osel.Rarg.TargetList = append(osel.Rarg.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, next, -1))
	switch {
	case len(rec.GroupClause) > 0:
		osel.Rarg.GroupClause = append(osel.Rarg.GroupClause, tag)
	case len(rec.DistinctClause) > 0 && rec.DistinctClause[0].GetNode() != nil:
		osel.Rarg.DistinctClause = append(osel.Rarg.DistinctClause, tag) // DISTINCT ON (...)
	}
	if len(out.Aliascolnames) > 0 {
		out.Aliascolnames = append(out.Aliascolnames, pg_query.MakeStrNode(iterCol))
	}
	return out, true
}

// tagNested is tagIterations for a recursive term whose DISTINCT, GROUP
// BY or LIMIT is in a FROM subquery that reads the reference, (SELECT
// DISTINCT n, d FROM r) s: the subquery also selects (and groups or
// distinguishes by) the reference's tag, and the term's select list adds
// s's tag plus 1. ok is false when the query does not have that shape.
func tagNested(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt) (*pg_query.CommonTableExpr, bool) {
	base, rec := sel.GetLarg(), sel.GetRarg()
	if !sel.All || base == nil || rec == nil || base.Op != pg_query.SetOperation_SETOP_NONE ||
		rec.Op != pg_query.SetOperation_SETOP_NONE || len(base.TargetList) == 0 && len(base.ValuesLists) == 0 ||
		len(rec.DistinctClause) > 0 || len(rec.GroupClause) > 0 || hasStar(rec) {
		return nil, false
	}
	out := proto.Clone(ce).(*pg_query.CommonTableExpr)
	osel := out.Ctequery.GetSelectStmt()
	var ref *pg_query.RangeVar
	var levels []*pg_query.SelectStmt
	w := &recWalker{name: ce.Ctename}
	w.visit = func(_ recContext, rv *pg_query.RangeVar) error {
		ref, levels = rv, append([]*pg_query.SelectStmt(nil), w.levels...)
		return nil
	}
	if w.walk(osel.Rarg.ProtoReflect(), recOK) != nil || ref == nil || len(levels) != 2 {
		return nil, false
	}
	sub := levels[1]
	rs := subselectOf(osel.Rarg.FromClause, sub)
	if rs == nil || rs.Lateral || rs.Alias == nil || !nestedTaggable(sub) || ref.Alias != nil && len(ref.Alias.Colnames) > 0 {
		return nil, false
	}
	alias := ref.Relname
	if ref.Alias != nil {
		alias = ref.Alias.Aliasname
	}
	tag := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(iterCol)}, -1)
	sub.TargetList = append(sub.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, tag, -1))
	switch {
	case len(sub.GroupClause) > 0:
		sub.GroupClause = append(sub.GroupClause, tag)
	case len(sub.DistinctClause) > 0 && sub.DistinctClause[0].GetNode() != nil: // DISTINCT ON (...): the tag first, in ORDER BY too
		sub.DistinctClause = append([]*pg_query.Node{tag}, sub.DistinctClause...)
		if len(sub.SortClause) > 0 {
			by := &pg_query.SortBy{Node: tag, SortbyDir: pg_query.SortByDir_SORTBY_DEFAULT, SortbyNulls: pg_query.SortByNulls_SORTBY_NULLS_DEFAULT, Location: -1}
			sub.SortClause = append([]*pg_query.Node{{Node: &pg_query.Node_SortBy{SortBy: by}}}, sub.SortClause...)
		}
	}
	if len(rs.Alias.Colnames) > 0 {
		rs.Alias.Colnames = append(rs.Alias.Colnames, pg_query.MakeStrNode(iterCol))
	}
	stag := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(rs.Alias.Aliasname), pg_query.MakeStrNode(iterCol)}, -1)
	next := pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")}, stag, pg_query.MakeAConstIntNode(1, -1), -1)
	osel.Rarg.TargetList = append(osel.Rarg.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, next, -1))
	tagBase(osel.Larg)
	if len(out.Aliascolnames) > 0 {
		out.Aliascolnames = append(out.Aliascolnames, pg_query.MakeStrNode(iterCol))
	}
	return out, true
}

// nestedTaggable reports whether a FROM subquery reading the reference
// has the DISTINCT, GROUP BY or LIMIT that tagNested rewrites and nothing
// that would see the tag otherwise (*, aggregates, windows, set
// operations).
func nestedTaggable(s *pg_query.SelectStmt) bool {
	return s.Op == pg_query.SetOperation_SETOP_NONE && !(len(s.DistinctClause) > 0 && len(s.GroupClause) > 0) &&
		(len(s.DistinctClause) > 0 || len(s.GroupClause) > 0 || hasLimit(s)) &&
		!hasAggregates(s) && len(s.WindowClause) == 0 && !hasStar(s) && s.WithClause == nil
}

// hasLimit reports whether s has a LIMIT or an OFFSET.
func hasLimit(s *pg_query.SelectStmt) bool {
	return s.LimitCount != nil || s.LimitOffset != nil
}

// limitKey returns the columns a block's LIMIT ranks within: the outer
// values of a decorrelated block, and the iteration tag of a tagged
// recursion's term when the block outputs it (PostgreSQL applies a LIMIT
// in the recursive term to each iteration's rows alone).
func limitKey(p *planned) []int {
	key := identityCols(p.nOuter)
	for i, c := range p.cols {
		if c.Name == iterCol {
			key = append(key, p.nOuter+i)
		}
	}
	return key
}

// hasStar reports whether s's select list has a * (which would expand to
// the hidden tag too).
func hasStar(s *pg_query.SelectStmt) bool {
	for _, t := range s.TargetList {
		for _, f := range t.GetResTarget().GetVal().GetColumnRef().GetFields() {
			if f.GetAStar() != nil {
				return true
			}
		}
	}
	return false
}

// subselectOf finds the FROM subquery (possibly inside joins) whose query
// is sub.
func subselectOf(from []*pg_query.Node, sub *pg_query.SelectStmt) *pg_query.RangeSubselect {
	for _, n := range from {
		if rs := n.GetRangeSubselect(); rs != nil && rs.Subquery.GetSelectStmt() == sub {
			return rs
		}
		if j := n.GetJoinExpr(); j != nil {
			if rs := subselectOf([]*pg_query.Node{j.Larg, j.Rarg}, sub); rs != nil {
				return rs
			}
		}
	}
	return nil
}

// tagBase gives the non-recursive term's rows the tag 0.
func tagBase(base *pg_query.SelectStmt) {
	zero := pg_query.MakeAConstIntNode(0, -1)
	for _, row := range base.ValuesLists { // VALUES (...), (...)
		l := row.GetList()
		l.Items = append(l.Items, zero)
	}
	if len(base.TargetList) > 0 {
		base.TargetList = append(base.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, zero, -1))
	}
}

// checkLoopTopK refuses a TopK (DISTINCT ON, LIMIT, a row_number() bound)
// over the recursive reference of body unless perIteration: PostgreSQL
// applies it to each iteration's new rows (the working table), which a
// fixed point over the whole relation computes only when its groups are
// keyed by the iteration tag, as tagIterations arranges for DISTINCT ON
// and (through limitKey) for LIMIT and OFFSET.
func checkLoopTopK(body ir.Rel, id int, perIteration bool) error {
	if perIteration {
		return nil
	}
	var found bool
	var walk func(r ir.Rel) bool // reports whether r reads the LoopVar
	walk = func(r ir.Rel) bool {
		if v, ok := r.(*ir.LoopVar); ok {
			return v.ID == id
		}
		reads := false
		for _, c := range r.Children() {
			reads = walk(c) || reads
		}
		if _, ok := r.(*ir.TopK); ok && reads {
			found = true
		}
		return reads
	}
	walk(body)
	if found {
		return repr.Unsupported("DISTINCT ON, LIMIT or OFFSET over the recursive reference of WITH RECURSIVE other than in a UNION ALL recursion")
	}
	return nil
}

// hasWindowCalls reports whether n calls a window function anywhere.
func hasWindowCalls(n proto.Message) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m proto.Message) {
		if fc, ok := m.(*pg_query.FuncCall); ok && fc.Over != nil {
			found = true
		}
	})
	return found
}
