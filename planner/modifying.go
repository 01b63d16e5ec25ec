package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Data-modifying WITH queries: WITH d AS (DELETE ... RETURNING *) INSERT
// INTO archive SELECT * FROM d. The statement layer runs each such query
// once, in order, against the statement's snapshot, and hands their
// RETURNING rows to the planner (Options.ModifyingCTEs), which plans a
// reference to one as those rows (a constant relation): the rest of the
// statement sees the rows returned, not the changes, as in PostgreSQL.
// Only the statement's top-level WITH list may hold them (0A000
// elsewhere, as PostgreSQL's "must be at the top level").

// CTEResult is what a data-modifying WITH query returned.
type CTEResult struct {
	Columns []ResultColumn
	Rows    []repr.Row
	// stmt, set only to describe, is the query as a statement of its own
	// (CTEStatement), planned for its columns.
	stmt *pg_query.Node
}

// ModifyingCTEs returns the top-level data-modifying WITH queries of
// statement n (a SELECT, INSERT, UPDATE or DELETE), in order, and its
// WITH list.
func ModifyingCTEs(n *pg_query.Node) ([]*pg_query.CommonTableExpr, *pg_query.WithClause) {
	w := topWith(n)
	if w == nil {
		return nil, nil
	}
	var out []*pg_query.CommonTableExpr
	for _, c := range w.Ctes {
		if ce := c.GetCommonTableExpr(); ce != nil && isDML(ce.Ctequery) {
			out = append(out, ce)
		}
	}
	return out, w
}

// DescribeModifyingCTEs is the Options.ModifyingCTEs that plans statement
// n's data-modifying WITH queries with no rows, for their columns (nil
// when n has none).
func DescribeModifyingCTEs(n *pg_query.Node) map[*pg_query.CommonTableExpr]*CTEResult {
	ces, w := ModifyingCTEs(n)
	if len(ces) == 0 {
		return nil
	}
	m := make(map[*pg_query.CommonTableExpr]*CTEResult, len(ces))
	for _, ce := range ces {
		m[ce] = &CTEResult{stmt: CTEStatement(w, ce)}
	}
	return m
}

// CTEStatement returns data-modifying WITH query ce of WITH list w as a
// statement of its own, with the queries before it in w in scope.
func CTEStatement(w *pg_query.WithClause, ce *pg_query.CommonTableExpr) *pg_query.Node {
	n := proto.Clone(ce.Ctequery).(*pg_query.Node)
	var before []*pg_query.Node
	for _, c := range w.Ctes {
		if c.GetCommonTableExpr() == ce {
			break
		}
		before = append(before, c)
	}
	own := dmlWith(n)
	if len(before) == 0 {
		return n
	}
	merged := &pg_query.WithClause{Ctes: before, Location: -1}
	if *own != nil {
		merged.Ctes = append(merged.Ctes, (*own).Ctes...)
	}
	*own = merged
	return n
}

// topWith returns statement n's WITH list (nil: none).
func topWith(n *pg_query.Node) *pg_query.WithClause {
	if sel := n.GetSelectStmt(); sel != nil {
		return sel.WithClause
	}
	if !isDML(n) {
		return nil
	}
	return *dmlWith(n)
}

// dmlWith returns where the WITH list of INSERT, UPDATE or DELETE n is.
func dmlWith(n *pg_query.Node) **pg_query.WithClause {
	switch {
	case n.GetInsertStmt() != nil:
		return &n.GetInsertStmt().WithClause
	case n.GetUpdateStmt() != nil:
		return &n.GetUpdateStmt().WithClause
	}
	return &n.GetDeleteStmt().WithClause
}

func isDML(n *pg_query.Node) bool {
	return n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil || n.GetDeleteStmt() != nil
}

// modifyingCTE plans a reference target for data-modifying WITH query
// ce: its RETURNING rows as a constant relation.
func (b *builder) modifyingCTE(ce *pg_query.CommonTableExpr) (*cte, error) {
	res := b.opts.ModifyingCTEs[ce]
	switch {
	case !isDML(ce.Ctequery) || b.opts.ModifyingCTEs == nil:
		// Views, EXPLAIN, cursors, COPY: the statement layer does not run them.
		return nil, repr.Unsupported("data-modifying statement in WITH").WithPosition(ce.Location + 1)
	case res == nil:
		// PostgreSQL's refusal, 0A000 too.
		return nil, repr.Errorf(repr.CodeFeatureNotSupported, "WITH clause containing a data-modifying statement must be at the top level").
			WithPosition(ce.Location + 1)
	}
	if res.stmt != nil {
		cols, err := b.returningColumns(res.stmt)
		if err != nil {
			return nil, err
		}
		res = &CTEResult{Columns: cols}
	}
	cols, err := cteColumns(ce, res.Columns)
	if err != nil {
		return nil, err
	}
	return &cte{name: ce.Ctename, rel: constRel(cols, res.Rows), cols: cols,
		noReturning: len(returningList(ce.Ctequery)) == 0}, nil
}

// constRel is rows, of columns cols, as a constant relation.
func constRel(cols []ResultColumn, rows []repr.Row) *ir.Values {
	ts := colTypes(cols)
	out := make([][]expr.Expr, len(rows))
	for i, r := range rows {
		out[i] = make([]expr.Expr, len(r))
		for j, d := range r {
			out[i][j] = &expr.Lit{D: d, T: ts[j]}
		}
	}
	return &ir.Values{Rows: out, Types: ts}
}

// returningList is the RETURNING list of INSERT, UPDATE or DELETE n.
func returningList(n *pg_query.Node) []*pg_query.Node {
	switch {
	case n.GetInsertStmt() != nil:
		return n.GetInsertStmt().ReturningList
	case n.GetUpdateStmt() != nil:
		return n.GetUpdateStmt().ReturningList
	}
	return n.GetDeleteStmt().ReturningList
}

// returningColumns plans data-modifying statement n for the columns of
// its RETURNING list.
//
// The parameters it types ($1 compared with an integer column) are typed
// so in the statement too.
func (b *builder) returningColumns(n *pg_query.Node) ([]ResultColumn, error) {
	opts := b.opts
	opts.ParamTypes = b.paramTypes
	var cols []ResultColumn
	var params []repr.T
	var err error
	switch {
	case n.GetInsertStmt() != nil:
		var p *Insert
		if p, err = PlanInsert(b.cat, n.GetInsertStmt(), opts); err == nil {
			cols, params = p.ReturningColumns, p.Source.ParamTypes
		}
	case n.GetUpdateStmt() != nil:
		var p *Update
		if p, err = PlanUpdate(b.cat, n.GetUpdateStmt(), opts); err == nil {
			cols, params = p.ReturningColumns, p.ParamTypes
		}
	default:
		var p *Delete
		if p, err = PlanDelete(b.cat, n.GetDeleteStmt(), opts); err == nil {
			cols, params = p.ReturningColumns, p.ParamTypes
		}
	}
	for i, t := range params {
		if i >= len(b.paramTypes) {
			b.paramTypes = append(b.paramTypes, t)
		} else if b.paramTypes[i].Family == repr.FamUnknown {
			b.paramTypes[i] = t
		}
	}
	return cols, err
}
