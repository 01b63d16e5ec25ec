package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// MergeFilters combines nested filters:
//
//	(Filter (Filter $in $a) $b) => (Filter $in $a ++ $b)
//
// One filter evaluates the inner predicates first, as before, and lowers to
// one operator. Always safe. Safe under retractions: Filter is linear.
var MergeFilters = Rule{Name: "MergeFilters", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	outer, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	inner, ok := outer.Input.(*ir.Filter)
	if !ok {
		return nil
	}
	preds := append(slices.Clone(inner.Preds), outer.Preds...)
	return &ir.Filter{Input: inner.Input, Preds: preds}
}}

// SplitFilterConjuncts flattens AND predicates into the filter's list:
//
//	(Filter $in [(And $a $b)]) => (Filter $in [$a $b])
//
// A filter keeps a row when every predicate is true, which is exactly when
// their AND is true (false and NULL both drop the row), so the split is
// exact; it lets pushdown move each conjunct on its own. Always safe. Safe
// under retractions: Filter is linear.
var SplitFilterConjuncts = Rule{Name: "SplitFilterConjuncts", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok || !hasAnd(f.Preds) {
		return nil
	}
	return &ir.Filter{Input: f.Input, Preds: conjuncts(f.Preds)}
}}

// FoldFilter constant-folds the predicates:
//
//	(Filter $in [(#0 > 1 + 1)]) => (Filter $in [(#0 > 2)])
//
// Saves work per row and exposes literal TRUE/FALSE predicates to
// RemoveTrueFilter and FalseFilterToEmpty. expr.Fold never folds volatile
// calls and leaves expressions that fail alone, so errors stay at run time.
// Safe under retractions: the predicate's value per row is unchanged.
var FoldFilter = Rule{Name: "FoldFilter", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	preds, changed := foldAll(f.Preds)
	if !changed {
		return nil
	}
	return &ir.Filter{Input: f.Input, Preds: preds}
}}

// RemoveTrueFilter drops literal TRUE predicates, and the filter when none
// remain:
//
//	(Filter $in [true $a]) => (Filter $in [$a]);  (Filter $in [true]) => $in
//
// Always safe. Safe under retractions: a TRUE filter is the identity.
var RemoveTrueFilter = Rule{Name: "RemoveTrueFilter", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	if len(f.Preds) > 0 && !slices.ContainsFunc(f.Preds, isTrue) {
		return nil
	}
	preds := slices.DeleteFunc(slices.Clone(f.Preds), isTrue)
	return ir.NewFilter(f.Input, preds...)
}}

// FalseFilterToEmpty replaces a filter with a literal FALSE or NULL
// predicate by the empty relation of the same column types:
//
//	(Filter $in [false]) => (Values $types)
//
// The input then need not be maintained at all. Safe: no row can pass, and
// the predicates before the literal cannot add rows (they could only have
// raised an error, which PostgreSQL does not promise either). Safe under
// retractions: the output is empty at every time.
var FalseFilterToEmpty = Rule{Name: "FalseFilterToEmpty", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok || !slices.ContainsFunc(f.Preds, isFalseOrNull) {
		return nil
	}
	return empty(f)
}}

// PushFilterThroughProject moves a filter below a projection, renumbering
// its columns to the projection's input:
//
//	(Filter (Project $in $cols) $p) => (Project (Filter $in $p[i := $cols[i]]) $cols)
//
// Filtering early lets the filter meet the filters and joins below it.
// Always safe: Project maps rows one to one. Safe under retractions: both
// operators are linear.
var PushFilterThroughProject = Rule{Name: "PushFilterThroughProject", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	p, ok := f.Input.(*ir.Project)
	if !ok {
		return nil
	}
	preds := remapAll(f.Preds, func(c int) int { return p.Cols[c] })
	return &ir.Project{Input: &ir.Filter{Input: p.Input, Preds: preds}, Cols: p.Cols}
}}

// PushFilterThroughMap moves the predicates that read only the map's input
// columns below the map:
//
//	(Filter (Map $in $exprs) $p) => (Map (Filter $in $p) $exprs)   when $p reads only $in
//
// The map then computes its expressions only for surviving rows, and the
// filter can continue down. Predicates over mapped columns stay above.
// Always safe: Map maps rows one to one and leaves input columns in place;
// fewer map evaluations can only remove run-time errors. Safe under
// retractions: both operators are linear.
var PushFilterThroughMap = Rule{Name: "PushFilterThroughMap", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	m, ok := f.Input.(*ir.Map)
	if !ok {
		return nil
	}
	n := ir.Arity(m.Input)
	down, keep := partition(f.Preds, func(p expr.Expr) bool { return colsBelow(p, n) })
	if len(down) == 0 {
		return nil
	}
	return ir.NewFilter(&ir.Map{Input: &ir.Filter{Input: m.Input, Preds: down}, Exprs: m.Exprs}, keep...)
}}

// PushFilterIntoJoin moves predicates from a filter above a join into the
// join. For inner and cross joins a predicate over one side's columns only
// goes into that input, and one over both sides becomes an On conjunct (so
// `FROM a, b WHERE a.x = b.y` becomes an equi-join instead of a cross
// join). For a left join only left-only predicates go down (into the left
// input), and symmetrically for a right join; a full join keeps them all.
//
//	(Filter (Join inner $l $r $on) [$pl $pr $pb]) => (Join inner (Filter $l $pl) (Filter $r $pr) $on ++ $pb)
//
// Unsafe cases avoided: a predicate on the NULL-padded side of an outer
// join must see the padded rows, so it stays above (see
// SimplifyOuterJoin); volatile predicates and predicates without columns
// stay above, since below the join they would be evaluated a different
// number of times. Safe under retractions: Filter is linear, and a filter
// over a preserved side's columns commutes with the join (a row and its
// padding share their fate).
var PushFilterIntoJoin = Rule{Name: "PushFilterIntoJoin", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	j, ok := f.Input.(*ir.Join)
	if !ok {
		return nil
	}
	nl, n := ir.Arity(j.Left), ir.Arity(j)
	inner := j.Kind == ir.JoinInner || j.Kind == ir.JoinCross
	var left, right, on, keep []expr.Expr
	for _, p := range f.Preds {
		switch {
		case expr.IsVolatile(p):
			keep = append(keep, p)
		case colsWithin(p, 0, nl) && (inner || j.Kind == ir.JoinLeft):
			left = append(left, p)
		case colsWithin(p, nl, n) && (inner || j.Kind == ir.JoinRight):
			right = append(right, shift(p, -nl))
		case inner && colsWithin(p, 0, n):
			on = append(on, p)
		default:
			keep = append(keep, p)
		}
	}
	if len(keep) == len(f.Preds) {
		return nil
	}
	nj := &ir.Join{Kind: j.Kind, Left: ir.NewFilter(j.Left, left...), Right: ir.NewFilter(j.Right, right...),
		On: append(slices.Clone(j.On), on...)}
	return ir.NewFilter(normalizeJoinKind(nj), keep...)
}}

// PushFilterThroughUnion copies a filter into every input of a union:
//
//	(Filter (Union $a $b) $p) => (Union (Filter $a $p) (Filter $b $p))
//
// Each input then filters before anything is combined. Always safe: every
// output row of a union comes from exactly one input. Safe under
// retractions: both operators are linear.
var PushFilterThroughUnion = Rule{Name: "PushFilterThroughUnion", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	u, ok := f.Input.(*ir.Union)
	if !ok {
		return nil
	}
	ins := make([]ir.Rel, len(u.Inputs))
	for i, in := range u.Inputs {
		ins[i] = &ir.Filter{Input: in, Preds: f.Preds}
	}
	return &ir.Union{Inputs: ins}
}}

// PushFilterThroughNegate moves a filter below a negation:
//
//	(Filter (Negate $in) $p) => (Negate (Filter $in $p))
//
// Always safe: negation changes signs, not rows. Safe under retractions:
// both operators are linear.
var PushFilterThroughNegate = Rule{Name: "PushFilterThroughNegate", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	n, ok := f.Input.(*ir.Negate)
	if !ok {
		return nil
	}
	return &ir.Negate{Input: &ir.Filter{Input: n.Input, Preds: f.Preds}}
}}

// PushFilterThroughThreshold moves deterministic predicates below a
// threshold:
//
//	(Filter (Threshold $in) $p) => (Threshold (Filter $in $p))
//
// The threshold then keeps state only for rows that pass. Safe because the
// threshold decides each distinct row on its own count, and a
// deterministic predicate keeps or drops all copies of a row alike;
// volatile predicates stay above. Safe under retractions: the predicate is
// a function of the row, so a row's net count is filtered as a whole.
var PushFilterThroughThreshold = Rule{Name: "PushFilterThroughThreshold", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	t, ok := f.Input.(*ir.Threshold)
	if !ok {
		return nil
	}
	down, keep := partition(f.Preds, func(p expr.Expr) bool { return !expr.IsVolatile(p) })
	if len(down) == 0 {
		return nil
	}
	return ir.NewFilter(&ir.Threshold{Input: &ir.Filter{Input: t.Input, Preds: down}}, keep...)
}}

// PushFilterThroughReduce moves predicates over group-key columns only
// below a Reduce, renumbered to the input's key columns:
//
//	(Filter (Reduce $in $key $aggs) $p) => (Reduce (Filter $in $p[i := $key[i]]) $key $aggs)
//
// Whole groups are dropped before they are aggregated, so their
// accumulators are never kept. Safe because a deterministic predicate over
// the key has one value for every row of a group; predicates over
// aggregate columns, volatile ones and those without columns stay above
// (a global aggregate emits a row even for an empty input). Safe under
// retractions: the group's fate does not depend on its contents.
var PushFilterThroughReduce = Rule{Name: "PushFilterThroughReduce", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	r, ok := f.Input.(*ir.Reduce)
	if !ok {
		return nil
	}
	down, keep := partition(f.Preds, func(p expr.Expr) bool {
		return !expr.IsVolatile(p) && colsWithin(p, 0, len(r.Key))
	})
	if len(down) == 0 {
		return nil
	}
	down = remapAll(down, func(c int) int { return r.Key[c] })
	nr := &ir.Reduce{Input: &ir.Filter{Input: r.Input, Preds: down}, Key: r.Key, Aggs: r.Aggs, EmitOnClose: r.EmitOnClose}
	return ir.NewFilter(nr, keep...)
}}

// PushFilterThroughTopK moves predicates over the TopK's partition key
// columns only below it:
//
//	(Filter (TopK $in $key ...) $p) => (TopK (Filter $in $p) $key ...)
//
// Safe because such a predicate keeps or drops a whole partition, so the
// ranking inside each surviving partition is unchanged; predicates over
// other columns would change which rows rank first and stay above, as do
// volatile ones. Safe under retractions: a partition's fate does not depend
// on its contents.
var PushFilterThroughTopK = Rule{Name: "PushFilterThroughTopK", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	t, ok := f.Input.(*ir.TopK)
	if !ok {
		return nil
	}
	down, keep := partition(f.Preds, func(p expr.Expr) bool {
		cols := expr.Columns(p)
		return !expr.IsVolatile(p) && len(cols) > 0 && subset(cols, t.Key)
	})
	if len(down) == 0 {
		return nil
	}
	nt := *t
	nt.Input = &ir.Filter{Input: t.Input, Preds: down}
	return ir.NewFilter(&nt, keep...)
}}

// SimplifyOuterJoin turns an outer join into a less outer one when a
// filter above it rejects the NULL-padded rows:
//
//	(Filter (Join left $l $r $on) [(#r = 1)]) => (Filter (Join inner $l $r $on) [(#r = 1)])
//
// A predicate that cannot be true when all of one side's columns are NULL
// (it is NULL whenever one of them is: a strict call, cast or NOT over
// such a column; or an AND with such an argument; or an OR of such
// arguments) removes every row padded on that side, so that side need not
// be padded. An inner join keeps less state and lets PushFilterIntoJoin
// move more predicates. Safe under retractions: the two plans are equal
// relations at every time.
var SimplifyOuterJoin = Rule{Name: "SimplifyOuterJoin", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	j, ok := f.Input.(*ir.Join)
	if !ok {
		return nil
	}
	nl, n := ir.Arity(j.Left), ir.Arity(j)
	rejL := slices.ContainsFunc(f.Preds, func(p expr.Expr) bool { return rejectsNulls(p, 0, nl) })
	rejR := slices.ContainsFunc(f.Preds, func(p expr.Expr) bool { return rejectsNulls(p, nl, n) })
	kind := j.Kind
	if rejR && (kind == ir.JoinLeft || kind == ir.JoinFull) {
		kind = map[ir.JoinKind]ir.JoinKind{ir.JoinLeft: ir.JoinInner, ir.JoinFull: ir.JoinRight}[kind]
	}
	if rejL && (kind == ir.JoinRight || kind == ir.JoinFull) {
		kind = map[ir.JoinKind]ir.JoinKind{ir.JoinRight: ir.JoinInner, ir.JoinFull: ir.JoinLeft}[kind]
	}
	if kind == j.Kind {
		return nil
	}
	nj := *j
	nj.Kind = kind
	return &ir.Filter{Input: normalizeJoinKind(&nj), Preds: f.Preds}
}}

// rejectsNulls reports whether predicate e is never true for a row whose
// columns [lo, hi) are all NULL.
func rejectsNulls(e expr.Expr, lo, hi int) bool {
	return rejectsNullsOf(e, func(c int) bool { return c >= lo && c < hi })
}

// rejectsNullsOf reports whether predicate e is never true for a row in
// which every column null reports is NULL.
func rejectsNullsOf(e expr.Expr, null func(int) bool) bool {
	switch e := e.(type) {
	case *expr.And:
		return slices.ContainsFunc(e.Args, func(a expr.Expr) bool { return rejectsNullsOf(a, null) })
	case *expr.Or:
		for _, a := range e.Args {
			if !rejectsNullsOf(a, null) {
				return false
			}
		}
		return true
	}
	return nullWhen(e, null)
}

// nullWhen reports whether e is NULL for every row in which every column
// null reports is NULL.
func nullWhen(e expr.Expr, null func(int) bool) bool {
	switch e := e.(type) {
	case *expr.Col:
		return null(e.Idx)
	case *expr.Cast:
		return nullWhen(e.Arg, null)
	case *expr.Not:
		return nullWhen(e.Arg, null)
	case *expr.Call:
		return e.Fn.Strict && slices.ContainsFunc(e.Args, func(a expr.Expr) bool { return nullWhen(a, null) })
	}
	return false
}

// partition splits es into the elements for which ok holds and the rest,
// each in the original order.
func partition(es []expr.Expr, ok func(expr.Expr) bool) (yes, no []expr.Expr) {
	for _, e := range es {
		if ok(e) {
			yes = append(yes, e)
		} else {
			no = append(no, e)
		}
	}
	return yes, no
}

// subset reports whether every element of a is in b.
func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
