package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// ORDER BY x USING op (in a query's, an aggregate's, a window's or an
// ordered-set aggregate's ORDER BY). PostgreSQL accepts an operator that
// is the "<" or ">" member of a btree operator family of x's type: "<"
// sorts ascending and ">" descending, with NULLs last and first by
// default as ASC and DESC do. Eddy's orderings are its types' default
// btree orderings, so the operator resolves over (x, x) as an expression
// would (42883 when none exists) and must be "<" or ">"; for text the
// pattern operators ~<~ and ~>~ are the same orderings, since Eddy
// compares text bytewise as the "C" collation does. Any other operator
// that exists is PostgreSQL's 42809.

// sortDirFor is sb's direction and NULLs placement (Col unset) for a sort
// key of type t, resolving USING op.
func sortDirFor(sb *pg_query.SortBy, t repr.T) (expr.SortCol, error) {
	if sb.SortbyDir != pg_query.SortByDir_SORTBY_USING {
		return sortDir(sb), nil
	}
	desc, err := usingDesc(sb, t)
	if err != nil {
		return expr.SortCol{}, err
	}
	c := expr.SortCol{Desc: desc, NullsFirst: desc}
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		c.NullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		c.NullsFirst = false
	}
	return c, nil
}

// usingDesc reports whether USING op sorts a key of type t descending,
// or PostgreSQL's error for an operator that does not exist over (t, t)
// (42883) or is not an ordering operator (42809).
func usingDesc(sb *pg_query.SortBy, t repr.T) (bool, error) {
	op := opName(sb.UseOp)
	if t.Family == repr.FamUnknown {
		t = repr.Text
	}
	if (op == "~<~" || op == "~>~") && t.Family == repr.FamText {
		return op == "~>~", nil
	}
	fn, _, err := expr.ResolveOp(op, []repr.T{t, t})
	if err != nil {
		return false, withPos(err, sb.Location)
	}
	if (op != "<" && op != ">") || fn.Ret.Family != repr.FamBool {
		return false, repr.Errorf(repr.CodeWrongObjectType, "operator %s is not a valid ordering operator", op).
			WithHint("Ordering operators must be \"<\" or \">\" members of btree operator families.").
			WithPosition(sb.Location + 1)
	}
	return op == ">", nil
}

// typedCols stands for the output columns cols where orderBy has no
// expressions (set operations, VALUES): only their types are read.
func typedCols(cols []ResultColumn) []expr.Expr {
	out := make([]expr.Expr, len(cols))
	for i, c := range cols {
		out[i] = &expr.Col{Idx: i, T: c.Type}
	}
	return out
}

// colType is the type of column col of rel widened by maps.
func colType(rel ir.Rel, maps []expr.Expr, col int) repr.T {
	if ts := rel.ColTypes(); col < len(ts) {
		return ts[col]
	}
	return maps[col-ir.Arity(rel)].Type()
}
