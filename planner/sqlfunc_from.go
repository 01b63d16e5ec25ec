package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// A SQL function that returns one value (not SETOF, no OUT parameters)
// may be called in FROM, as PostgreSQL allows: the item has exactly one
// row whose one column is the call's value (NULL when the body returns
// no row, or a STRICT function gets a NULL argument), named by the
// alias's column list, else the alias, else the function. It is planned
// like a set-returning call (functionRows), over the query
// `SELECT (body)::ret`.

// scalarRowQuery returns the one-row query a call of scalar function fn
// in FROM stands for: its bound body's value (the body's expression, or
// its first row as a scalar subquery, as inlineCall takes it), cast to
// the result type, then the ordinality 1 when ordinality.
func scalarRowQuery(fn *SQLFunction, body *pg_query.SelectStmt, params []string, ordinality bool) *pg_query.SelectStmt {
	val := bodyExpr(body)
	if val == nil {
		if body.LimitCount == nil {
			body.LimitCount, body.LimitOption = pg_query.MakeAConstIntNode(1, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
		}
		val = &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{
			SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK, Location: -1,
			Subselect: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: body}}}}}
	} else {
		val = proto.Clone(val).(*pg_query.Node)
	}
	val = castTo(val, fn.Ret)
	if fn.Strict && len(params) > 0 {
		refs := make([]*pg_query.Node, len(params))
		for i, p := range params {
			refs[i] = pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(p)}, -1)
		}
		val = strictGuard(val, refs)
	}
	targets := []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(val, -1)}
	if ordinality {
		one := castTo(pg_query.MakeAConstIntNode(1, -1), repr.Int8)
		targets = append(targets, pg_query.MakeResTargetNodeWithVal(one, -1))
	}
	return &pg_query.SelectStmt{TargetList: targets, Op: pg_query.SetOperation_SETOP_NONE,
		LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
}

// scalarAlias returns the alias and column names of a scalar function's
// FROM item: the column is named by the column list, else the alias,
// else the function; then ordinality.
func scalarAlias(rf *pg_query.RangeFunction, fn *SQLFunction) *pg_query.Alias {
	alias := &pg_query.Alias{Aliasname: fn.Name}
	if rf.Alias != nil {
		alias = proto.Clone(rf.Alias).(*pg_query.Alias)
	}
	if len(alias.Colnames) == 0 {
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode(alias.Aliasname))
	}
	if rf.Ordinality && len(alias.Colnames) < 2 {
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode("ordinality"))
	}
	return alias
}
