package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// SplitOrJoin plans an inner join whose condition is a disjunction of
// equi-joins as a union of equi-joins, each keeping the pairs its arm
// accepts and no earlier arm does:
//
//	(Join inner $l $r [(Or $a $b) $c...])
//	  => (Union (Join inner $l $r [$a $c...])
//	            (Join inner $l $r [$b ($a IS NOT TRUE) $c...]))
//
// A pair matches the original exactly when some arm is TRUE; it then
// appears in exactly one branch, the first arm that is TRUE, so the union
// is the same multiset. Each branch has an equality between the inputs,
// which lowering turns into a hash-join key, where the disjunction alone
// is a residual over every pair (a nested loop: PostgreSQL's join.sql ran
// 10M pairs). Declines unless every arm has such an equality, and when an
// arm is volatile (it is evaluated once per branch). It runs after join
// ordering (JoinOrder sees one join); each branch arranges both inputs
// again, trading state for time. Safe under retractions: each branch is a
// join, linear in each input, and the union is their sum.
var SplitOrJoin = Rule{Name: "SplitOrJoin", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok || j.Kind != ir.JoinInner {
		return nil
	}
	nl := ir.Arity(j.Left)
	i := slices.IndexFunc(j.On, func(p expr.Expr) bool { return splittableOr(p, nl) })
	if i < 0 {
		return nil
	}
	arms := j.On[i].(*expr.Or).Args
	rest := slices.Delete(slices.Clone(j.On), i, i+1)
	branches := make([]ir.Rel, len(arms))
	for k, arm := range arms {
		on := append(slices.Clone(rest), arm)
		for _, prev := range arms[:k] {
			on = append(on, isNotTrue(prev))
		}
		branches[k] = ir.NewJoin(ir.JoinInner, j.Left, j.Right, on...)
	}
	return ir.NewUnion(branches...)
}}

// splittableOr reports whether p is an OR each of whose arms has an
// equality between an expression of the left input (columns below nl)
// and one of the right, and none of whose arms is volatile.
func splittableOr(p expr.Expr, nl int) bool {
	or, ok := p.(*expr.Or)
	if !ok || expr.IsVolatile(p) {
		return false
	}
	for _, arm := range or.Args {
		if !slices.ContainsFunc(conjuncts([]expr.Expr{arm}), func(c expr.Expr) bool { return crossEquality(c, nl) }) {
			return false
		}
	}
	return true
}

// crossEquality reports whether c is `a = b` with a over one input and b
// over the other (a hash-join key for lowering).
func crossEquality(c expr.Expr, nl int) bool {
	call, ok := c.(*expr.Call)
	if !ok || call.Fn.Name != "=" || len(call.Args) != 2 {
		return false
	}
	a, b := call.Args[0], call.Args[1]
	left, right := colsWithin(a, 0, nl), colsWithin(b, nl, 1<<30)
	return left && right || colsWithin(b, 0, nl) && colsWithin(a, nl, 1<<30)
}

// isNotTrue is `p IS NOT TRUE`: COALESCE(NOT p, TRUE), TRUE when p is
// FALSE or NULL.
func isNotTrue(p expr.Expr) expr.Expr {
	return &expr.Coalesce{Args: []expr.Expr{&expr.Not{Arg: p}, &expr.Lit{D: repr.NewBool(true), T: repr.Bool}}, T: repr.Bool}
}
