package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Subqueries in RETURNING of INSERT. RETURNING is evaluated per written
// row, as an expression over it; a subquery there needs a query. Such a
// statement is rewritten into the data-modifying WITH form
// (modifying.go), which the statement layer already runs with
// PostgreSQL's semantics:
//
//	[WITH w] INSERT INTO t [AS a] ... RETURNING list
//	=> WITH w, eddy_returning AS (INSERT INTO t [AS a] ... RETURNING *)
//	   SELECT list FROM eddy_returning AS a
//
// The SELECT sees the written rows as RETURNING * returned them, named
// like the target (a, or t), and reads every table as the statement
// found it, as PostgreSQL's RETURNING subqueries do. The statement layer
// keeps the write's command tag (INSERT 0 n). UPDATE and DELETE find
// their rows with a query instead, into which the subqueries are
// decorrelated (joinedReturning), so EXPLAIN shows them.

// ReturningCTE is the name of the rewritten statement's WITH query.
const ReturningCTE = "eddy_returning"

// RewriteReturning returns the data-modifying WITH form of INSERT n when
// its RETURNING list has subqueries, else nil. INSERT ... WITH RECURSIVE
// is left as it is.
func RewriteReturning(n *pg_query.Node) *pg_query.Node {
	if n == nil || n.GetInsertStmt() == nil || !listHasSubLink(returningList(n)) {
		return nil
	}
	rv := n.GetInsertStmt().Relation
	if w := *dmlWith(n); w != nil && w.Recursive {
		return nil
	}
	inner := proto.Clone(n).(*pg_query.Node)
	with := &pg_query.WithClause{Location: -1}
	if w := dmlWith(inner); *w != nil {
		with.Ctes = append(with.Ctes, (*w).Ctes...)
		*w = nil
	}
	star := &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Location: -1,
		Val: &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Location: -1,
			Fields: []*pg_query.Node{{Node: &pg_query.Node_AStar{AStar: &pg_query.A_Star{}}}}}}}}}}
	inner.GetInsertStmt().ReturningList = []*pg_query.Node{star}
	with.Ctes = append(with.Ctes, &pg_query.Node{Node: &pg_query.Node_CommonTableExpr{CommonTableExpr: &pg_query.CommonTableExpr{
		Ctename: ReturningCTE, Ctequery: inner, Location: -1}}})
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	from := &pg_query.Node{Node: &pg_query.Node_RangeVar{RangeVar: &pg_query.RangeVar{Relname: ReturningCTE, Inh: true,
		Relpersistence: "p", Alias: &pg_query.Alias{Aliasname: alias}, Location: -1}}}
	return &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		TargetList: returningList(n), FromClause: []*pg_query.Node{from}, WithClause: with,
		Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}}}
}
