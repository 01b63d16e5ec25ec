package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// FuseProjectIntoReduce lets a Reduce read the columns of a projection's
// input directly:
//
//	(Reduce (Project $in $cols) $key $aggs) => (Reduce $in $cols[$key] $cols[$aggs])
//
// The projection stage disappears. Always safe: grouping on, or
// aggregating, a projected column is grouping on, or aggregating, the
// column it copies, and the output types are the same. Safe under
// retractions: the Reduce sees the same updates per group.
var FuseProjectIntoReduce = Rule{Name: "FuseProjectIntoReduce", Root: (*ir.Reduce)(nil), Apply: func(e ir.Rel) ir.Rel {
	r, ok := e.(*ir.Reduce)
	if !ok {
		return nil
	}
	p, ok := r.Input.(*ir.Project)
	if !ok {
		return nil
	}
	return remapReduce(r, p.Input, func(c int) int { return p.Cols[c] })
}}

// PruneMapUnderReduce drops the expressions of a map below a Reduce that
// neither the group key nor an aggregate reads:
//
//	(Reduce (Map $in [$a $b]) [#n] [count(*)]) => (Reduce (Map $in [$a]) [#n] [count(*)])
//
// The dropped expressions are never computed. Safe: expressions have no
// side effects, so not computing an unread one can only remove a run-time
// error. Safe under retractions: the Reduce sees the same updates.
var PruneMapUnderReduce = Rule{Name: "PruneMapUnderReduce", Root: (*ir.Reduce)(nil), Apply: func(e ir.Rel) ir.Rel {
	r, ok := e.(*ir.Reduce)
	if !ok {
		return nil
	}
	m, ok := r.Input.(*ir.Map)
	if !ok {
		return nil
	}
	in, cm, pruned := pruneMap(m, reduceColumns(r))
	if !pruned {
		return nil
	}
	return remapReduce(r, in, cm)
}}

// RemoveDistinctOfDistinct drops a DISTINCT over all columns of a relation
// that is already a DISTINCT:
//
//	(Reduce (Reduce $in $k []) [#0 ... #n-1] []) => (Reduce $in $k [])
//
// Its rows are already unique with multiplicity one, so the outer operator
// (and its state) is redundant. Safe under retractions: the inner Reduce's
// output has multiplicity at most one at every time.
var RemoveDistinctOfDistinct = Rule{Name: "RemoveDistinctOfDistinct", Root: (*ir.Reduce)(nil), Apply: func(e ir.Rel) ir.Rel {
	outer, ok := e.(*ir.Reduce)
	if !ok || len(outer.Aggs) > 0 || !ir.IsIdentity(outer.Key, ir.Arity(outer.Input)) {
		return nil
	}
	inner, ok := outer.Input.(*ir.Reduce)
	if !ok || len(inner.Aggs) > 0 || len(inner.Key) == 0 {
		return nil
	}
	return inner
}}

// RemoveDistinctOfKey replaces a DISTINCT whose key includes a unique key
// of its input by a projection:
//
//	(Reduce $in $k []) => (Project $in $k)   if $k includes a key of $in
//
// The input's rows already differ in $k, each with multiplicity one, so
// grouping changes nothing, and the Reduce would keep a copy of every
// row (decorrelating Q20's subquery over partsupp keyed a DISTINCT of
// partsupp's primary key: 80,000 groups at SF 0.1, and the joins above
// it arranged them privately instead of reading partsupp's own rows).
// Safe under retractions: at every committed time the input's
// multiplicities are 0 or 1, so the projection's changes sum to the
// DISTINCT's (an update of a row without changing $k is a -1 and a +1 of
// the same projected row, which cancel).
var RemoveDistinctOfKey = Rule{Name: "RemoveDistinctOfKey", Root: (*ir.Reduce)(nil), Apply: func(e ir.Rel) ir.Rel {
	r, ok := e.(*ir.Reduce)
	if !ok || len(r.Aggs) > 0 || len(r.Key) == 0 || r.EmitOnClose {
		return nil
	}
	for _, k := range uniqueKeys(r.Input) {
		if subset(k, r.Key) {
			return &ir.Project{Input: r.Input, Cols: slices.Clone(r.Key)}
		}
	}
	return nil
}}

// uniqueKeys returns keys of r that are certain: column lists whose
// values no two of r's rows share, each row with multiplicity one (a
// collection's primary key, a Reduce's grouping key, kept through
// filters, maps and projections that keep all of a key's columns). Unlike
// estimate's, no key is guessed.
func uniqueKeys(r ir.Rel) [][]int {
	switch n := r.(type) {
	case *ir.Get:
		if len(n.Key) > 0 {
			return [][]int{n.Key}
		}
	case *ir.Filter:
		return uniqueKeys(n.Input)
	case *ir.Map:
		return uniqueKeys(n.Input)
	case *ir.Project:
		return projectKeys(uniqueKeys(n.Input), n.Cols)
	case *ir.Reduce:
		if len(n.Key) > 0 && !n.EmitOnClose {
			key := make([]int, len(n.Key))
			for i := range key {
				key[i] = i
			}
			return [][]int{key}
		}
	}
	return nil
}

// reduceColumns returns the input columns r reads: its key and the
// arguments of its aggregates.
func reduceColumns(r *ir.Reduce) []int {
	cols := slices.Clone(r.Key)
	for _, a := range r.Aggs {
		cols = append(cols, a.Cols()...)
	}
	return cols
}

// remapReduce returns r over input in, with its key and aggregate columns
// renumbered by m.
func remapReduce(r *ir.Reduce, in ir.Rel, m func(int) int) *ir.Reduce {
	key := make([]int, len(r.Key))
	for i, k := range r.Key {
		key[i] = m(k)
	}
	aggs := make([]expr.Agg, len(r.Aggs))
	for i, a := range r.Aggs {
		aggs[i] = a.Remap(m)
	}
	return &ir.Reduce{Input: in, Key: key, Aggs: aggs, EmitOnClose: r.EmitOnClose}
}
