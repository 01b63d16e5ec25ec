package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// SplitJoinOn flattens AND conjuncts of a join condition into the On list:
//
//	(Join $k $l $r [(And $a $b)]) => (Join $k $l $r [$a $b])
//
// A pair matches when every On predicate is true, exactly when their AND
// is true, for every join kind; the split lets PushJoinOnIntoInputs and
// lowering (equi-key extraction) see each conjunct. Safe under
// retractions: the matching relation is unchanged.
var SplitJoinOn = Rule{Name: "SplitJoinOn", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok || !hasAnd(j.On) {
		return nil
	}
	nj := *j
	nj.On = conjuncts(j.On)
	return &nj
}}

// FoldJoinOn constant-folds the join condition and drops literal TRUE
// conjuncts:
//
//	(Join $k $l $r [(#0 = #2) (1 = 1)]) => (Join $k $l $r [(#0 = #2)])
//
// Always safe: a TRUE conjunct never decides a match; expr.Fold leaves
// volatile and failing expressions alone. Safe under retractions: the
// matching relation is unchanged.
var FoldJoinOn = Rule{Name: "FoldJoinOn", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok {
		return nil
	}
	on, changed := foldAll(j.On)
	if !changed && !slices.ContainsFunc(on, isTrue) {
		return nil
	}
	nj := *j
	nj.On = slices.DeleteFunc(on, isTrue)
	return normalizeJoinKind(&nj)
}}

// FalseJoinOn replaces a join whose condition has a literal FALSE or NULL
// conjunct: an inner (or cross) join becomes the empty relation, and a left
// join becomes its left input padded with NULLs:
//
//	(Join inner $l $r [false]) => (Values $types)
//	(Join left $l $r [false])  => (Map $l [NULL ...])
//
// Neither input's state is needed any more (the right one not at all).
// Right and full joins are left alone. Safe under retractions: the plans
// are equal relations at every time.
var FalseJoinOn = Rule{Name: "FalseJoinOn", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok || !slices.ContainsFunc(j.On, isFalseOrNull) {
		return nil
	}
	switch j.Kind {
	case ir.JoinInner, ir.JoinCross:
		return empty(j)
	case ir.JoinLeft:
		return ir.NewMap(j.Left, nulls(j.Right.ColTypes())...)
	}
	return nil
}}

// PushJoinOnIntoInputs moves join conjuncts that read one input only into
// that input as a filter. For inner joins both sides qualify; for a left
// join only right-only conjuncts (they decide which right rows can match,
// while every left row is kept anyway), symmetrically for a right join;
// full joins keep their condition.
//
//	(Join inner $l $r [$pl $pr $pb]) => (Join inner (Filter $l $pl) (Filter $r $pr) [$pb])
//
// Filtering before the join shrinks both the join's arrangements and its
// output. Unsafe for conjuncts over the preserved side of an outer join
// (the row must still appear, padded) and for volatile conjuncts, which
// stay. Safe under retractions: the matching relation is unchanged and
// Filter is linear.
var PushJoinOnIntoInputs = Rule{Name: "PushJoinOnIntoInputs", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok {
		return nil
	}
	nl, n := ir.Arity(j.Left), ir.Arity(j)
	inner := j.Kind == ir.JoinInner || j.Kind == ir.JoinCross
	var left, right, keep []expr.Expr
	for _, p := range j.On {
		switch {
		case expr.IsVolatile(p):
			keep = append(keep, p)
		case colsWithin(p, 0, nl) && (inner || j.Kind == ir.JoinRight):
			left = append(left, p)
		case colsWithin(p, nl, n) && (inner || j.Kind == ir.JoinLeft):
			right = append(right, shift(p, -nl))
		default:
			keep = append(keep, p)
		}
	}
	if len(keep) == len(j.On) {
		return nil
	}
	nj := &ir.Join{Kind: j.Kind, Left: ir.NewFilter(j.Left, left...), Right: ir.NewFilter(j.Right, right...), On: keep}
	return normalizeJoinKind(nj)
}}

// NormalizeJoinKind makes the kind of an inner join say whether it has a
// condition: a cross join with On conjuncts is an inner join, and an inner
// join without any is a cross join.
//
//	(Join cross $l $r [$p]) => (Join inner $l $r [$p])
//
// Always safe (lowering treats both alike); printing then shows at a glance
// which joins lack a key. Safe under retractions: same relation.
var NormalizeJoinKind = Rule{Name: "NormalizeJoinKind", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok {
		return nil
	}
	if out := normalizeJoinKind(j); out != j {
		return out
	}
	return nil
}}

// normalizeJoinKind returns j with JoinCross/JoinInner chosen by whether On
// is empty (j itself when already so).
func normalizeJoinKind(j *ir.Join) *ir.Join {
	switch {
	case j.Kind == ir.JoinCross && len(j.On) > 0:
		nj := *j
		nj.Kind = ir.JoinInner
		return &nj
	case j.Kind == ir.JoinInner && len(j.On) == 0:
		nj := *j
		nj.Kind = ir.JoinCross
		return &nj
	}
	return j
}

// nulls returns one NULL literal per type.
func nulls(ts []repr.T) []expr.Expr {
	out := make([]expr.Expr, len(ts))
	for i, t := range ts {
		out[i] = &expr.Lit{D: repr.Null, T: t}
	}
	return out
}
