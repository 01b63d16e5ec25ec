package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// columnName is the default output name of a select-list expression, as
// PostgreSQL's FigureColname chooses it: a column's name, a function's
// name, the type of a cast of a constant, "case", "coalesce", "exists"...
// and "?column?" otherwise.
func columnName(n *pg_query.Node) string {
	if s := figure(n); s != "" {
		return s
	}
	return "?column?"
}

func figure(n *pg_query.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		return f[len(f)-1].GetString_().GetSval()
	case n.GetFuncCall() != nil:
		return funcName(n.GetFuncCall())
	case n.GetTypeCast() != nil:
		if s := figure(n.GetTypeCast().Arg); s != "" {
			return s
		}
		names := n.GetTypeCast().TypeName.Names
		return typeDisplayName(names[len(names)-1].GetString_().GetSval())
	case n.GetCaseExpr() != nil:
		if s := figure(n.GetCaseExpr().Defresult); s != "" && n.GetCaseExpr().Defresult != nil {
			return s
		}
		return "case"
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg_query.MinMaxOp_IS_LEAST {
			return "least"
		}
		return "greatest"
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	case n.GetSqlvalueFunction() != nil:
		return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(n.GetSqlvalueFunction().Op.String(), "SVFOP_"), "_N"))
	case n.GetSubLink() != nil:
		return subLinkName(n.GetSubLink())
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetAIndirection() != nil:
		ind := n.GetAIndirection().Indirection
		if f := ind[len(ind)-1].GetString_(); f != nil {
			return f.GetSval() // (x).name is named name
		}
		return figure(n.GetAIndirection().Arg)
	}
	return ""
}

// subLinkName names EXISTS columns "exists" and scalar subqueries after
// their single output column.
func subLinkName(sl *pg_query.SubLink) string {
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return "exists"
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		return "array"
	case pg_query.SubLinkType_EXPR_SUBLINK:
		sel := sl.Subselect.GetSelectStmt()
		if sel != nil && len(sel.TargetList) == 1 {
			rt := sel.TargetList[0].GetResTarget()
			if rt.Name != "" {
				return rt.Name
			}
			return figure(rt.Val)
		}
	}
	return ""
}

// typeDisplayName maps internal type names to the names PostgreSQL uses
// for a cast's column (int4 -> int4 stays; bpchar -> bpchar).
func typeDisplayName(s string) string { return s }
