package rules

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// RemoveJoinOfOwnGroups drops an inner join of a relation with the groups
// it was itself joined into:
//
//	(Join inner $p (Reduce (Join inner $p $x ...) $k $aggs) [$p.i = #k_i ...])
//	  => (Project (Reduce ...) [k_0 ... k_n, the Reduce's columns])
//
// when every column of $p is equated with a group-key column that is that
// same column of the same $p under the Reduce (read through filters,
// projections and maps), $p has a certain unique key (its rows are
// distinct, each with multiplicity one) and those columns are never NULL.
// Then every group matches exactly one row of $p, the one its key came
// from, so the join only copies the key. Decorrelated scalar subqueries
// take this shape: TPC-H Q20's `ps_availqty > (SELECT 0.5 * sum(...)
// WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey)` joined the
// partsupp keys with the sums grouped by those keys, and the join kept a
// private copy of every sum. Other conditions in the join, or a $p column
// not equated, decline. Safe under retractions: at every time the
// groups' keys are rows of $p at that time, so the two plans are equal
// relations at every time.
var RemoveJoinOfOwnGroups = Rule{Name: "RemoveJoinOfOwnGroups", Root: (*ir.Join)(nil), Apply: func(e ir.Rel) ir.Rel {
	j, ok := e.(*ir.Join)
	if !ok || j.Kind != ir.JoinInner || len(j.On) == 0 {
		return nil
	}
	if out := ownGroupsRight(j.Left, j.Right, j.On, false); out != nil {
		return out
	}
	return ownGroupsRight(j.Right, j.Left, j.On, true)
}}

// ownGroupsRight applies RemoveJoinOfOwnGroups with p the relation and r
// the candidate Reduce; flipped says p is the join's right input (so the
// conditions' columns of p follow r's and the output puts r first).
func ownGroupsRight(p, r ir.Rel, on []expr.Expr, flipped bool) ir.Rel {
	red, ok := r.(*ir.Reduce)
	if !ok || len(red.Key) == 0 || red.EmitOnClose || len(uniqueKeys(p)) == 0 {
		return nil
	}
	np, nr := ir.Arity(p), ir.Arity(r)
	pBase, rBase := 0, np
	if flipped {
		pBase, rBase = nr, 0
	}
	keyOf := make([]int, np) // p's column -> the Reduce's output column equated with it
	for i := range keyOf {
		keyOf[i] = -1
	}
	for _, c := range on {
		a, b, _, ok := colEquality(c)
		if !ok {
			return nil
		}
		pc, rc := a-pBase, b-rBase
		if pc < 0 || pc >= np {
			pc, rc = b-pBase, a-rBase
		}
		if pc < 0 || pc >= np || rc < 0 || rc >= len(red.Key) || keyOf[pc] >= 0 && keyOf[pc] != rc {
			return nil
		}
		keyOf[pc] = rc
	}
	notNull := ir.NotNull(p)
	var path string
	for i, k := range keyOf {
		if k < 0 || !notNull[i] {
			return nil
		}
		at, ok := occurrenceOf(red.Input, red.Key[k], p, i)
		if !ok || i > 0 && at != path {
			return nil
		}
		path = at
	}
	cols := make([]int, 0, np+nr)
	if flipped {
		cols = append(cols, seq(nr)...)
	}
	cols = append(cols, keyOf...)
	if !flipped {
		cols = append(cols, seq(nr)...)
	}
	return &ir.Project{Input: r, Cols: cols}
}

// occurrenceOf reports whether column c of rel is column pc of a
// relation equal to p that rel joins (inner) below filters, projections
// and maps, so that every row of rel carries a row of p in that column,
// and returns the occurrence as the sides taken at each join on the way
// down: columns with one path carry the same row of p (a plan is a DAG,
// so a node's identity would not tell two occurrences of p apart).
func occurrenceOf(rel ir.Rel, c int, p ir.Rel, pc int) (string, bool) {
	var path []byte
	for {
		switch n := rel.(type) {
		case *ir.Filter:
			rel = n.Input
		case *ir.Project:
			rel, c = n.Input, n.Cols[c]
		case *ir.Map:
			if c >= ir.Arity(n.Input) {
				return "", false
			}
			rel = n.Input
		case *ir.Join:
			if n.Kind != ir.JoinInner && n.Kind != ir.JoinCross {
				return "", false
			}
			side := n.Left
			if nl := ir.Arity(n.Left); c >= nl {
				side, c = n.Right, c-nl
				path = append(path, 'R')
			} else {
				path = append(path, 'L')
			}
			if ir.Equal(side, p) {
				return string(path), c == pc
			}
			rel = side
		default:
			return "", false
		}
	}
}

// seq returns 0, 1, ..., n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
