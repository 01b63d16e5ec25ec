package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// iterCol names the hidden iteration column of a tagged recursion; no
// SQL identifier can spell it unquoted and the rewrite builds the
// references itself.
const iterCol = "?iteration?"

// tagIterations rewrites a UNION ALL recursion whose recursive term
// applies DISTINCT or GROUP BY directly to the recursive reference so
// that a fixed point computes what PostgreSQL computes. PostgreSQL
// applies that DISTINCT or GROUP BY to each iteration's new rows alone
// (the working table); tagging every row with its iteration (0 in the
// non-recursive term, the reference's plus 1 in the recursive term) and
// adding the tag to the DISTINCT or GROUP BY key makes the fixed point's
// groups those iterations. It returns the rewritten copy of the CTE and
// true, or false when the query does not have that shape (the checks then
// refuse it as before). The caller hides the tag column.
func tagIterations(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt) (*pg_query.CommonTableExpr, bool) {
	base, rec := sel.GetLarg(), sel.GetRarg()
	if !sel.All || base == nil || rec == nil || base.Op != pg_query.SetOperation_SETOP_NONE ||
		rec.Op != pg_query.SetOperation_SETOP_NONE || len(base.TargetList) == 0 && len(base.ValuesLists) == 0 ||
		len(rec.DistinctClause) == 0 && len(rec.GroupClause) == 0 || hasAggregates(rec) ||
		len(rec.WindowClause) > 0 || len(rec.GroupClause) > 0 && len(rec.DistinctClause) > 0 {
		return nil, false
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
