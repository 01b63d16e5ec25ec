package planner

import "github.com/eddydb/eddy/optimizer/ir"

// boundRecursion bounds the recursive CTE an ad hoc query's LIMIT reads
// directly: when rel is an Iterate under Maps and Projects only (each
// keeps every row), any n of the Iterate's rows give n rows of rel, so the
// loop may stop once it has n (ir.Iterate.Rows). PostgreSQL stops a
// recursion the same way, pulling rows only until the LIMIT is satisfied,
// so `WITH RECURSIVE t AS (SELECT 1 UNION ALL SELECT x+1 FROM t) SELECT *
// FROM t LIMIT 5` ends. A materialized view is never bounded: its LIMIT
// must see every row of every later change.
func (b *builder) boundRecursion(rel ir.Rel, limit, offset int64, order int) ir.Rel {
	if b.opts.MaterializedView || limit < 0 || order > 0 {
		return rel
	}
	return withLoopRows(rel, max(limit+offset, 1))
}

// withLoopRows returns rel with the Iterate below its Maps and Projects
// bounded to n rows, or rel itself when there is none.
func withLoopRows(rel ir.Rel, n int64) ir.Rel {
	switch r := rel.(type) {
	case *ir.Iterate:
		c := *r
		c.Rows = n
		return &c
	case *ir.Map, *ir.Project:
		in := rel.Children()[0]
		if bounded := withLoopRows(in, n); bounded != in {
			return rel.WithChildren([]ir.Rel{bounded})
		}
	}
	return rel
}
