package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// Semi-joins. A conjunct of a WHERE clause only decides whether a row is
// kept: NULL and false both drop it. There, EXISTS (subquery) and
// x op ANY (subquery) (IN) need no three-valued answer, so instead of
// left-joining per-row statistics back (subLink) the rows are inner-joined
// to the distinct keys for which the condition holds. Each row matches at
// most one distinct key, so multiplicities are kept; the join is an
// ordinary inner join the optimizer orders with the FROM list's, so a
// selective subquery (Q18's big orders) can be joined first; and the state
// is the distinct keys and the join's arrangements, with no statistics
// per row and no cross join.

// semiJoin plans conjunct n of a filter over c.rel as a semi-join when it
// is EXISTS (...), or x op ANY (...) with op returning boolean, and reports
// whether it did. c.rel keeps its columns (and only its rows that satisfy
// n). Other conjuncts, and subqueries where they are not allowed, are left
// to the caller.
func (c *ectx) semiJoin(n *pg_query.Node) (bool, error) {
	sl := n.GetSubLink()
	if sl == nil || c.noSubquery {
		return false, nil
	}
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return false, nil
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return c.semiExists(sel)
	case pg_query.SubLinkType_ANY_SUBLINK:
		return true, c.semiAny(sel, sl)
	}
	return false, nil
}

// semiExists keeps the rows of c.rel for which the correlated subquery
// has a row: c.rel joined to the distinct outer values the subquery
// returns rows for. An uncorrelated EXISTS is left to subLink (one global
// count, no join key).
func (c *ectx) semiExists(sel *pg_query.SelectStmt) (bool, error) {
	saved := c.rel
	p, keys, err := c.correlate(sel, nil)
	if err != nil {
		return false, err
	}
	if len(keys) == 0 {
		c.rel = saved
		return false, nil
	}
	sub := c.b.existsRel(sel, p)
	c.semi(ir.NewDistinct(ir.NewProject(sub, identityCols(len(keys))...)), keys)
	return true, nil
}

// semiAny keeps the rows of c.rel for which x op y is true for some row y
// of the subquery (x and y rows when the left is a row). Uncorrelated
// x = ANY joins x to the subquery's distinct values (a NULL x or y never
// matches); otherwise the subquery is planned per distinct (x, outer
// values), its rows filtered by x op y, and the distinct keys that keep a
// row joined back NULL-safely.
func (c *ectx) semiAny(sel *pg_query.SelectStmt, sl *pg_query.SubLink) error {
	q, err := c.prepareQuantified(sel, sl)
	if err != nil {
		return err
	}
	if !q.correlated && q.op == "=" {
		return c.semiIn(q)
	}
	p, keys, err := c.correlate(sel, q.xs)
	if err != nil {
		return err
	}
	sub := c.b.subqueryRel(p)
	k := len(keys)
	cmp, err := c.subCompare(q, sub, k)
	if err != nil {
		return err
	}
	c.semi(ir.NewDistinct(ir.NewProject(ir.NewFilter(sub, cmp), identityCols(k)...)), keys)
	return nil
}

// semiIn is uncorrelated x IN (SELECT y ...), or (x1, x2) IN (SELECT y1,
// y2 ...): c.rel, extended with the xs that are not its columns, is joined
// on x = y (each pair) to the subquery's distinct rows without NULLs.
func (c *ectx) semiIn(q *quantifiedLink) error {
	sub := c.b.subqueryRel(q.probe)
	m, ts := len(q.xs), sub.ColTypes()
	ys := make([]expr.Expr, m)
	var nonNull []expr.Expr
	for i := range ys {
		y, err := c.b.coerce(&expr.Col{Idx: i, T: ts[i]}, q.ys[i])
		if err != nil {
			return err
		}
		ys[i] = y
		nonNull = append(nonNull, &expr.IsNull{Arg: &expr.Col{Idx: i, T: q.ys[i]}, Negate: true})
	}
	vals := ir.NewDistinct(ir.NewFilter(projectExprs(sub, 0, ys), and(nonNull...)))
	n := ir.Arity(c.rel)
	left := c.rel
	var maps []expr.Expr
	xcs := make([]expr.Expr, m)
	for i, x := range q.xs {
		if col, ok := x.(*expr.Col); ok {
			// Join on the column itself, so the join graph sees the key.
			xcs[i] = col
			continue
		}
		xcs[i] = &expr.Col{Idx: n + len(maps), T: x.Type()}
		maps = append(maps, x)
	}
	if len(maps) > 0 {
		left = ir.NewMap(c.rel, maps...)
	}
	w := ir.Arity(left)
	on := make([]expr.Expr, m)
	for i := range on {
		eq, err := c.op("=", -1, xcs[i], &expr.Col{Idx: w + i, T: q.ys[i]})
		if err != nil {
			return err
		}
		on[i] = eq
	}
	c.derive(ir.NewProject(ir.NewJoin(ir.JoinInner, left, vals, on...), identityCols(n)...))
	return nil
}

// semi inner-joins c.rel to keys, a relation of distinct rows whose
// columns are the values of c.rel's columns cols, NULL-safely, keeping
// c.rel's columns.
func (c *ectx) semi(keys ir.Rel, cols []int) {
	n := ir.Arity(c.rel)
	on := c.b.nullSafeKeys(c.rel, keys, cols, identityCols(len(cols)))
	c.derive(ir.NewProject(ir.NewJoin(ir.JoinInner, c.rel, keys, on...), identityCols(n)...))
}
