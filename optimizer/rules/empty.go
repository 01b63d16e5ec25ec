package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// PropagateEmpty replaces an operator that can only produce the empty
// relation by an empty Values of its column types, and drops empty inputs
// of a union:
//
//	(Filter (Values $t) $p) => (Values $t)     likewise Map, Project, Negate, Threshold, TopK, Window, FlatMap
//	(Reduce (Values $t) $key $aggs) => (Values $t')   when $key is non-empty
//	(Join inner $l (Values $t) $on) => (Values $t')   (either side; the
//	                                                   preserved side of an outer join)
//	(Union $a (Values $t)) => $a
//
// Empty relations come from FALSE filters and join conditions; removing
// the operators above them removes their state. Unsafe for a global
// aggregate (no key), which emits one row over an empty input, so it is
// left alone. Safe under retractions: the results are empty at every time.
var PropagateEmpty = Rule{Name: "PropagateEmpty", Apply: func(e ir.Rel) ir.Rel {
	switch e := e.(type) {
	case *ir.Filter, *ir.Map, *ir.Project, *ir.Negate, *ir.Threshold, *ir.TopK, *ir.SessionWindow, *ir.Window, *ir.FlatMap:
		if isEmpty(e.Children()[0]) {
			return empty(e)
		}
	case *ir.Reduce:
		if len(e.Key) > 0 && isEmpty(e.Input) {
			return empty(e)
		}
	case *ir.Join:
		return emptyJoin(e)
	case *ir.Union:
		return emptyUnion(e)
	}
	return nil
}}

// emptyJoin handles a join with an empty input: empty when a side whose
// rows are needed for any output row is empty; an outer join with an empty
// padded side is its preserved side padded with NULLs.
func emptyJoin(j *ir.Join) ir.Rel {
	le, re := isEmpty(j.Left), isEmpty(j.Right)
	keepL := j.Kind == ir.JoinLeft || j.Kind == ir.JoinFull
	keepR := j.Kind == ir.JoinRight || j.Kind == ir.JoinFull
	switch {
	case (le || !keepL) && (re || !keepR) && (le || re):
		return empty(j)
	case re && keepL:
		return ir.NewMap(j.Left, nulls(j.Right.ColTypes())...)
	case le && keepR:
		return padLeft(j.Right, j.Left)
	}
	return nil
}

// padLeft returns the rows of r preceded by one NULL column per column of
// l, as a join's right-preserved output with no left match.
func padLeft(r, l ir.Rel) ir.Rel {
	nl, nr := ir.Arity(l), ir.Arity(r)
	cols := make([]int, 0, nl+nr)
	for i := range nl {
		cols = append(cols, nr+i)
	}
	for i := range nr {
		cols = append(cols, i)
	}
	return ir.NewProject(ir.NewMap(r, nulls(l.ColTypes())...), cols...)
}

// emptyUnion drops empty inputs of u, unless that would change the output
// column types (taken from the first input).
func emptyUnion(u *ir.Union) ir.Rel {
	ins := slices.DeleteFunc(slices.Clone(u.Inputs), isEmpty)
	switch {
	case len(ins) == len(u.Inputs):
		return nil
	case len(ins) == 0:
		return empty(u)
	case !slices.Equal(ins[0].ColTypes(), u.ColTypes()):
		return nil
	}
	return ir.NewUnion(ins...)
}

// FoldValues constant-folds the expressions of a Values:
//
//	(Values [int4] [(1 + 1)]) => (Values [int4] [2])
//
// Lowering then sees plain literals. expr.Fold leaves failing
// expressions alone, so their errors stay at run time. Safe under
// retractions: Values is emitted once.
var FoldValues = Rule{Name: "FoldValues", Root: (*ir.Values)(nil), Apply: func(e ir.Rel) ir.Rel {
	v, ok := e.(*ir.Values)
	if !ok {
		return nil
	}
	rows := make([][]expr.Expr, len(v.Rows))
	changed := false
	for i, r := range v.Rows {
		var c bool
		rows[i], c = foldAll(r)
		changed = changed || c
	}
	if !changed {
		return nil
	}
	return &ir.Values{Rows: rows, Types: v.Types}
}}
