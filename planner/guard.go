package planner

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Guards. PostgreSQL evaluates a CASE branch, or a COALESCE argument, only
// for the rows that reach it, and so a subquery there only for them: its
// failures (a division by zero inside it) cannot come from other rows.
// While such a branch is built, ectx.guard is the condition under which
// a row reaches it (the WHEN holds and no earlier one did; the earlier
// arguments are NULL), and a subquery planned there takes its domain from
// the rows that satisfy it (guardedDomain). The other rows' outer values
// are then not in the domain: the join back gives them NULLs, which the
// branch never reads for them. A guard reading a column the domain base
// lacks (a subquery's value) is not applied.

// withGuard runs build with c.guard narrowed by conds (all must hold).
func (c *ectx) withGuard(conds []expr.Expr, build func() (expr.Expr, error)) (expr.Expr, error) {
	saved := c.guard
	defer func() { c.guard = saved }()
	if saved != nil {
		conds = append([]expr.Expr{saved}, conds...)
	}
	if len(conds) > 0 {
		c.guard = and(conds...)
	}
	return build()
}

// isTrue is `e IS TRUE`: never NULL.
func isTrue(e expr.Expr) expr.Expr {
	return &expr.Coalesce{Args: []expr.Expr{e, &expr.Lit{D: repr.NewBool(false), T: repr.Bool}}, T: repr.Bool}
}

// guardedDomain returns rel (the domain base, of nb columns, or c.rel)
// keeping only the rows that satisfy c.guard, when it reads columns rel
// has.
func (c *ectx) guardedDomain(rel ir.Rel) ir.Rel {
	g := c.guard
	if g == nil {
		return rel
	}
	n := ir.Arity(rel)
	if slices.ContainsFunc(expr.Columns(g), func(col int) bool { return col >= n }) {
		return rel
	}
	return ir.NewFilter(rel, g)
}
