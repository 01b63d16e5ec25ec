package ir

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// NewMap returns Map(in, exprs), or in itself when exprs is empty.
func NewMap(in Rel, exprs ...expr.Expr) Rel {
	if len(exprs) == 0 {
		return in
	}
	return &Map{Input: in, Exprs: exprs}
}

// NewFilter returns Filter(in, preds), or in itself when preds is empty.
func NewFilter(in Rel, preds ...expr.Expr) Rel {
	if len(preds) == 0 {
		return in
	}
	return &Filter{Input: in, Preds: preds}
}

// NewProject returns Project(in, cols), or in itself when cols is the
// identity over all of in's columns.
func NewProject(in Rel, cols ...int) Rel {
	if IsIdentity(cols, Arity(in)) {
		return in
	}
	return &Project{Input: in, Cols: cols}
}

// IsIdentity reports whether cols is exactly 0, 1, ..., n-1.
func IsIdentity(cols []int, n int) bool {
	if len(cols) != n {
		return false
	}
	for i, c := range cols {
		if c != i {
			return false
		}
	}
	return true
}

// NewJoin returns a join of the given kind.
func NewJoin(kind JoinKind, left, right Rel, on ...expr.Expr) Rel {
	return &Join{Kind: kind, Left: left, Right: right, On: on}
}

// NewReduce returns a Reduce; with no aggregates it is DISTINCT over key.
func NewReduce(in Rel, key []int, aggs ...expr.Agg) Rel {
	return &Reduce{Input: in, Key: key, Aggs: aggs}
}

// NewDistinct returns the distinct rows of in (a Reduce keyed by every column).
// Over zero columns it groups by a constant column and projects it away:
// a Reduce with no key is a global aggregate, whose one row exists even
// on empty input, while DISTINCT of zero-column rows has a row only when
// the input has one (SELECT UNION SELECT).
func NewDistinct(in Rel) Rel {
	n := len(in.ColTypes())
	if n == 0 {
		one := NewMap(in, &expr.Lit{D: repr.NewBool(true), T: repr.Bool})
		return NewProject(&Reduce{Input: one, Key: []int{0}})
	}
	key := make([]int, n)
	for i := range key {
		key[i] = i
	}
	return &Reduce{Input: in, Key: key}
}

// NewUnion returns the UNION ALL of ins (ins[0] itself when alone).
func NewUnion(ins ...Rel) Rel {
	if len(ins) == 1 {
		return ins[0]
	}
	return &Union{Inputs: ins}
}

// NewNegate returns Negate(in).
func NewNegate(in Rel) Rel { return &Negate{Input: in} }

// NewThreshold returns Threshold(in).
func NewThreshold(in Rel) Rel { return &Threshold{Input: in} }

// Arity returns the number of output columns of r. Unlike ColTypes it
// allocates nothing, which matters in rules that ask it of every join of a
// deep join tree.
func Arity(r Rel) int {
	switch n := r.(type) {
	case *Join:
		return Arity(n.Left) + Arity(n.Right)
	case *Filter:
		return Arity(n.Input)
	case *Map:
		return Arity(n.Input) + len(n.Exprs)
	case *Project:
		return len(n.Cols)
	case *Reduce:
		return len(n.Key) + len(n.Aggs)
	}
	return len(r.ColTypes())
}
