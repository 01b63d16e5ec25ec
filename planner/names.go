package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// columnName is the default output name of a select-list expression, as
// PostgreSQL's FigureColname chooses it: a column's name, a function's
// name, the type of a cast, "case", "coalesce", "row", "exists"... and
// "?column?" otherwise.
func columnName(n *pg_query.Node) string {
	if s, _ := figure(n); s != "" {
		return s
	}
	return "?column?"
}

// Name strengths, as in FigureColnameInternal: a weak name (a cast's
// type, "case") gives way to an outer cast's type; a strong one (a
// column's, a function's) does not.
const (
	nameNone = iota
	nameWeak
	nameStrong
)

// figure returns n's default name and its strength; the name is empty
// exactly when the strength is nameNone.
func figure(n *pg_query.Node) (string, int) {
	switch {
	case n == nil:
		return "", nameNone
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		for i := len(f) - 1; i >= 0; i-- { // the last name, past a * (t.*::text is "t")
			if s := f[i].GetString_(); s != nil {
				return s.GetSval(), nameStrong
			}
		}
	case n.GetAIndirection() != nil:
		return indirectionName(n.GetAIndirection())
	case n.GetFuncCall() != nil:
		return opName(n.GetFuncCall().Funcname), nameStrong
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif", nameStrong
	case n.GetTypeCast() != nil:
		return castName(n.GetTypeCast())
	case n.GetCollateClause() != nil:
		return figure(n.GetCollateClause().Arg)
	case n.GetGroupingFunc() != nil:
		return "grouping", nameStrong
	case n.GetSubLink() != nil:
		return subLinkName(n.GetSubLink())
	case n.GetCaseExpr() != nil:
		if s, st := figure(n.GetCaseExpr().Defresult); st > nameWeak {
			return s, st
		}
		return "case", nameWeak
	case n.GetAArrayExpr() != nil:
		return "array", nameStrong
	case n.GetRowExpr() != nil:
		return "row", nameStrong
	case n.GetCoalesceExpr() != nil:
		return "coalesce", nameStrong
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg_query.MinMaxOp_IS_LEAST {
			return "least", nameStrong
		}
		return "greatest", nameStrong
	case n.GetSqlvalueFunction() != nil:
		op := n.GetSqlvalueFunction().Op.String()
		return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(op, "SVFOP_"), "_N")), nameStrong
	}
	return "", nameNone
}

// indirectionName names (x).f[1] after its last field name, ignoring
// subscripts and "*", and x[1] after x.
func indirectionName(ind *pg_query.A_Indirection) (string, int) {
	name := ""
	for _, i := range ind.Indirection {
		if s := i.GetString_(); s != nil {
			name = s.GetSval()
		}
	}
	if name != "" {
		return name, nameStrong
	}
	return figure(ind.Arg)
}

// castName names a cast after its argument when that name is strong,
// else after the cast's type (the last part of its name: "int4", "text").
func castName(tc *pg_query.TypeCast) (string, int) {
	if s, st := figure(tc.Arg); st > nameWeak {
		return s, st
	}
	if tc.TypeName == nil || len(tc.TypeName.Names) == 0 {
		return "", nameNone
	}
	names := tc.TypeName.Names
	return names[len(names)-1].GetString_().GetSval(), nameWeak
}

// subLinkName names EXISTS columns "exists", ARRAY(...) "array" and
// scalar subqueries after their first output column (its default name,
// "?column?" included, is strong); other sublinks have no name.
func subLinkName(sl *pg_query.SubLink) (string, int) {
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return "exists", nameStrong
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		return "array", nameStrong
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if s := firstColumnName(sl.Subselect.GetSelectStmt()); s != "" {
			return s, nameStrong
		}
	}
	return "", nameNone
}

// firstColumnName is the name of a query's first output column: a set
// operation's comes from its leftmost arm, VALUES's is "column1". It is
// empty when the query has no plain first column (SELECT *).
func firstColumnName(sel *pg_query.SelectStmt) string {
	for sel != nil && sel.Op != pg_query.SetOperation_SETOP_NONE {
		sel = sel.Larg
	}
	switch {
	case sel == nil:
		return ""
	case len(sel.ValuesLists) > 0:
		return "column1"
	case len(sel.TargetList) == 0:
		return ""
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil {
		return ""
	}
	if rt.Name != "" {
		return rt.Name
	}
	if ref := rt.Val.GetColumnRef(); ref != nil && ref.Fields[len(ref.Fields)-1].GetAStar() != nil {
		return "" // the star's first column: unknown without planning
	}
	return columnName(rt.Val)
}
