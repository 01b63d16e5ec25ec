package planner

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// multiAssignAlias names the derived table a SET (a, b) = (SELECT ...)
// column reads its value from.
const multiAssignAlias = "eddy_multiassign"

// expandMultiAssign rewrites the multiple-column assignments of an
// UPDATE's (or ON CONFLICT DO UPDATE's) SET list, SET (a, b) = (x, y) and
// SET (a, b) = (SELECT x, y ...), into one assignment per column: a = x,
// b = y, and a = (SELECT c1 FROM (SELECT x, y ...) AS s(c1, c2)), b = the
// same with c2. Each column's subquery is the same query, so it yields
// the same row (PostgreSQL evaluates it once: only a volatile subquery
// could tell), with no row making every column NULL and several 21000, as
// in PostgreSQL. The list is returned as is when it has none.
func expandMultiAssign(list []*pg_query.Node) ([]*pg_query.Node, error) {
	var out []*pg_query.Node
	for i, n := range list {
		rt := n.GetResTarget()
		m := rt.GetVal().GetMultiAssignRef()
		if m == nil {
			if out != nil {
				out = append(out, n)
			}
			continue
		}
		if out == nil {
			out = append([]*pg_query.Node(nil), list[:i]...)
		}
		val, err := multiAssignValue(m)
		if err != nil {
			return nil, err
		}
		c := proto.Clone(rt).(*pg_query.ResTarget)
		c.Val = val
		out = append(out, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: c}})
	}
	if out == nil {
		return list, nil
	}
	return out, nil
}

// multiAssignValue is the value one column of a multiple-column
// assignment takes: its entry of the row, or its column of the subquery.
func multiAssignValue(m *pg_query.MultiAssignRef) (*pg_query.Node, error) {
	mismatch := repr.Errorf(repr.CodeSyntax, "number of columns does not match number of values")
	if r := m.Source.GetRowExpr(); r != nil {
		if len(r.Args) != int(m.Ncolumns) {
			return nil, mismatch.WithPosition(r.Location + 1)
		}
		return r.Args[m.Colno-1], nil
	}
	sl := m.Source.GetSubLink() // the raw parse tree's EXPR sublink
	if sl == nil || sl.SubLinkType != pg_query.SubLinkType_EXPR_SUBLINK && sl.SubLinkType != pg_query.SubLinkType_MULTIEXPR_SUBLINK || sl.Subselect.GetSelectStmt() == nil {
		return nil, repr.Unsupported("SET (...) = %s", nodeName(m.Source))
	}
	sel := sl.Subselect.GetSelectStmt()
	if sel.Op == pg_query.SetOperation_SETOP_NONE && len(sel.ValuesLists) == 0 && !hasStar(sel.TargetList) && len(sel.TargetList) != int(m.Ncolumns) {
		return nil, mismatch.WithPosition(sl.Location + 1)
	}
	names := make([]*pg_query.Node, m.Ncolumns)
	for i := range names {
		names[i] = pg_query.MakeStrNode(fmt.Sprintf("c%d", i+1))
	}
	from := &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: proto.Clone(sl.Subselect).(*pg_query.Node), Alias: &pg_query.Alias{Aliasname: multiAssignAlias, Colnames: names}}}}
	col := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(multiAssignAlias), pg_query.MakeStrNode(fmt.Sprintf("c%d", m.Colno))}, sl.Location)
	pick := &pg_query.SelectStmt{
		Op:          pg_query.SetOperation_SETOP_NONE,
		LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT,
		TargetList:  []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(col, sl.Location)},
		FromClause:  []*pg_query.Node{from},
	}
	return &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{
		SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK,
		Subselect:   &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: pick}},
		Location:    sl.Location,
	}}}, nil
}

// hasStar reports whether a select list has a * entry.
func hasStar(targets []*pg_query.Node) bool {
	for _, t := range targets {
		if ref := t.GetResTarget().GetVal().GetColumnRef(); ref != nil {
			for _, f := range ref.Fields {
				if f.GetAStar() != nil {
					return true
				}
			}
		}
	}
	return false
}
