package planner

import pg_query "github.com/pganalyze/pg_query_go/v6"

// withReads reports whether a query of the WITH list w reads name.
func withReads(w *pg_query.WithClause, name string) bool {
	for _, n := range w.Ctes {
		if ce := n.GetCommonTableExpr(); ce != nil && references(ce.Ctequery, name) > 0 {
			return true
		}
	}
	return false
}

// recursionUnderWith plans a recursive query whose UNION carries a WITH
// list not reading it (WITH RECURSIVE t AS (WITH s AS (...) SELECT ...
// FROM s UNION ALL SELECT ... FROM t)): both terms see the list's queries,
// so the recursion is planned with them in scope. The list is detached
// from the UNION while it is planned (not copied, so that planning state
// keyed by parse nodes still finds them) and put back after.
func (b *builder) recursionUnderWith(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*cte, error) {
	w := sel.WithClause
	sel.WithClause = nil
	defer func() { sel.WithClause = w }()
	var c *cte
	_, err := b.withCTEs(w, parent, func() (*planned, error) {
		var err error
		c, err = b.planRecursiveCTE(ce, sel, parent, outer)
		return nil, err
	})
	return c, err
}
