package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// SimplifyOuterJoinUnderJoin is SimplifyOuterJoin for an outer join that
// an inner join's condition reads through projections, maps and filters:
//
//	(Join inner $x (Project (Map (Join left $l $r $on) [f(#r)]) ...) [(#x > f(#r))])
//	  => the same with (Join inner $l $r $on)
//
// An On predicate that is never true when every column padded by the
// outer join is NULL (through the maps: a strict expression of such a
// column is NULL too; the other input's columns count as not NULL)
// removes every padded row, so the outer join need not pad. Decorrelated
// scalar subqueries compared in a join condition take this shape (TPC-H
// Q20's ps_availqty > (SELECT 0.5 * sum(l_quantity) ...)): the inner join
// keeps less state, and its input can be read from a shared arrangement.
// Safe under retractions: the two plans are equal relations at every
// time.
var SimplifyOuterJoinUnderJoin = Rule{Name: "SimplifyOuterJoinUnderJoin", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok || j.Kind != ir.JoinInner || len(j.On) == 0 {
		return nil
	}
	nl, n := ir.Arity(j.Left), ir.Arity(j)
	for side, in := range []ir.Rel{j.Left, j.Right} {
		lo, hi := [2]int{0, nl}[side], [2]int{nl, n}[side]
		// within reports, for a column of the join, its column in the
		// input (-1: the other input's, never NULL by padding).
		within := func(c int) int {
			if c >= lo && c < hi {
				return c - lo
			}
			return -1
		}
		out := unpadUnder(in, func(null func(int) bool) bool {
			return slices.ContainsFunc(j.On, func(p expr.Expr) bool {
				return rejectsNullsOf(p, func(c int) bool { k := within(c); return k >= 0 && null(k) })
			})
		})
		if out != nil {
			nj := *j
			if side == 0 {
				nj.Left = out
			} else {
				nj.Right = out
			}
			return &nj
		}
	}
	return nil
}}

// unpadUnder returns r with the outer join it reads through Projects,
// Maps and Filters made inner (or full made one-sided) on each side
// whose padding rejects says is rejected, or nil if there is none.
// rejects is asked with the set of r's columns that are NULL in every row
// that side pads.
func unpadUnder(r ir.Rel, rejects func(null func(int) bool) bool) ir.Rel {
	switch r := r.(type) {
	case *ir.Project:
		in := unpadUnder(r.Input, func(null func(int) bool) bool {
			return rejects(func(c int) bool { return null(r.Cols[c]) })
		})
		if in == nil {
			return nil
		}
		return &ir.Project{Input: in, Cols: r.Cols}
	case *ir.Filter:
		if in := unpadUnder(r.Input, rejects); in != nil {
			return &ir.Filter{Input: in, Preds: r.Preds}
		}
	case *ir.Map:
		base := ir.Arity(r.Input)
		in := unpadUnder(r.Input, func(null func(int) bool) bool {
			return rejects(mapNulls(r.Exprs, base, null))
		})
		if in != nil {
			return &ir.Map{Input: in, Exprs: r.Exprs}
		}
	case *ir.Join:
		return unpadJoin(r, rejects)
	}
	return nil
}

// mapNulls extends null, over a Map's input columns (base of them), to
// its output: a map column is NULL where its expression is sure to be.
func mapNulls(exprs []expr.Expr, base int, null func(int) bool) func(int) bool {
	nulls := make([]bool, len(exprs))
	out := func(c int) bool {
		if c < base {
			return null(c)
		}
		return nulls[c-base]
	}
	for i, e := range exprs {
		nulls[i] = nullWhen(e, out) // reads only the columns before it
	}
	return out
}

// unpadJoin makes outer join j inner on each padded side whose padding
// rejects says is rejected; nil if it changes nothing.
func unpadJoin(j *ir.Join, rejects func(null func(int) bool) bool) ir.Rel {
	nl, n := ir.Arity(j.Left), ir.Arity(j)
	padsLeft := j.Kind == ir.JoinRight || j.Kind == ir.JoinFull
	padsRight := j.Kind == ir.JoinLeft || j.Kind == ir.JoinFull
	kind := j.Kind
	if padsRight && rejects(func(c int) bool { return c >= nl && c < n }) {
		kind = map[ir.JoinKind]ir.JoinKind{ir.JoinLeft: ir.JoinInner, ir.JoinFull: ir.JoinRight}[kind]
	}
	if padsLeft && rejects(func(c int) bool { return c < nl }) {
		kind = map[ir.JoinKind]ir.JoinKind{ir.JoinRight: ir.JoinInner, ir.JoinFull: ir.JoinLeft}[kind]
	}
	if kind == j.Kind {
		return nil
	}
	nj := *j
	nj.Kind = kind
	return normalizeJoinKind(&nj)
}
