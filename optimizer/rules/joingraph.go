package rules

import (
	"math/bits"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// joinGraph is a maximal tree of inner and cross joins flattened into its
// leaves and predicates. Every column of every leaf gets a global number
// (leaf offsets in collection order); predicates and the cluster's output
// are expressed over global columns. Equalities between two bare columns of
// one type become equivalence classes (a = b AND b = c links a and c), the
// rest stay predicates with the set of leaves they read.
type joinGraph struct {
	leaves  []ir.Rel
	offs    []int    // global column of each leaf's first column
	colLeaf []int    // global column -> leaf
	types   []repr.T // global column -> type
	out     []int    // the cluster's output columns, as global columns

	preds   []joinPred
	classes []eqClass
	classOf map[int]int // global column -> its class
	// classLeaves holds, per class, the leaves its columns belong to.
	classLeaves []leafSet
	top         []expr.Expr
}

// joinPred is a predicate over global columns and the leaves it reads.
type joinPred struct {
	e      expr.Expr
	leaves leafSet
	// equi marks `x = y` with x and y over disjoint leaf sets: lowering
	// turns it into a join key, so it connects like an equality.
	equi bool
}

// eqClass is a set of global columns known equal (by `=` of fn).
type eqClass struct {
	fn   *expr.Func
	cols []int
}

// leafSet is a set of leaf indices.
type leafSet []uint64

func newLeafSet(n int) leafSet { return make(leafSet, (n+63)/64) }

func (s leafSet) add(i int)       { s[i/64] |= 1 << (i % 64) }
func (s leafSet) has(i int) bool  { return s[i/64]&(1<<(i%64)) != 0 }
func (s leafSet) clone() leafSet  { return slices.Clone(s) }
func (s leafSet) union(o leafSet) { orInto(s, o) }
func orInto(dst, src leafSet) {
	for i := range dst {
		dst[i] |= src[i]
	}
}
func (s leafSet) empty() bool { return !slices.ContainsFunc(s, func(w uint64) bool { return w != 0 }) }
func (s leafSet) intersects(o leafSet) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// within reports whether every member of s is in a or b.
func (s leafSet) within(a, b leafSet) bool {
	for i := range s {
		if s[i]&^(a[i]|b[i]) != 0 {
			return false
		}
	}
	return true
}

// first returns the smallest member of s (-1 when empty).
func (s leafSet) first() int {
	for i, w := range s {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// isInnerJoin reports whether r is an inner or cross join.
func isInnerJoin(r ir.Rel) bool {
	j, ok := r.(*ir.Join)
	return ok && (j.Kind == ir.JoinInner || j.Kind == ir.JoinCross)
}

// inCluster reports whether r belongs to a join cluster's interior: an inner
// or cross join, or a deterministic filter or a projection over one.
func inCluster(r ir.Rel) bool {
	switch n := r.(type) {
	case *ir.Join:
		return isInnerJoin(n)
	case *ir.Filter:
		return !slices.ContainsFunc(n.Preds, expr.IsVolatile) && inCluster(n.Input)
	case *ir.Project:
		return inCluster(n.Input)
	}
	return false
}

// flatten builds the join graph of the cluster rooted at the inner join
// root.
func flatten(root ir.Rel) *joinGraph {
	g := &joinGraph{classOf: map[int]int{}}
	var raw []expr.Expr
	g.out = g.collect(root, &raw)
	for _, p := range raw {
		g.addPred(p)
	}
	return g
}

// collect adds r's leaves to g, appends r's interior predicates (over
// global columns) to raw and returns r's output columns as global columns.
func (g *joinGraph) collect(r ir.Rel, raw *[]expr.Expr) []int {
	switch n := r.(type) {
	case *ir.Join:
		if isInnerJoin(n) {
			cols := append(g.collect(n.Left, raw), g.collect(n.Right, raw)...)
			for _, p := range conjuncts(n.On) {
				*raw = append(*raw, expr.Remap(p, func(c int) int { return cols[c] }))
			}
			return cols
		}
	case *ir.Filter:
		if inCluster(n) {
			cols := g.collect(n.Input, raw)
			for _, p := range conjuncts(n.Preds) {
				*raw = append(*raw, expr.Remap(p, func(c int) int { return cols[c] }))
			}
			return cols
		}
	case *ir.Project:
		if inCluster(n) {
			in := g.collect(n.Input, raw)
			cols := make([]int, len(n.Cols))
			for i, c := range n.Cols {
				cols[i] = in[c]
			}
			return cols
		}
	}
	return g.addLeaf(r)
}

// addLeaf appends a leaf and returns its global columns.
func (g *joinGraph) addLeaf(r ir.Rel) []int {
	off := len(g.types)
	g.leaves = append(g.leaves, r)
	g.offs = append(g.offs, off)
	cols := make([]int, 0, ir.Arity(r))
	for i, t := range r.ColTypes() {
		g.types = append(g.types, t)
		g.colLeaf = append(g.colLeaf, len(g.leaves)-1)
		cols = append(cols, off+i)
	}
	return cols
}

// addPred files one conjunct: a column equality into the classes, a
// volatile or column-free one at the top, any other as a predicate.
func (g *joinGraph) addPred(p expr.Expr) {
	if expr.IsVolatile(p) || len(expr.Columns(p)) == 0 {
		g.top = append(g.top, p)
		return
	}
	if a, b, fn, ok := colEquality(p); ok && g.merge(a, b, fn) {
		return
	}
	g.preds = append(g.preds, joinPred{e: p})
}

// colEquality recognizes `#a = #b` between two bare columns compared by an
// operator over one type on both sides.
func colEquality(p expr.Expr) (a, b int, fn *expr.Func, ok bool) {
	c, isCall := p.(*expr.Call)
	if !isCall || c.Fn.Name != "=" || len(c.Args) != 2 || len(c.Fn.Args) != 2 || c.Fn.Args[0] != c.Fn.Args[1] {
		return 0, 0, nil, false
	}
	x, ok1 := c.Args[0].(*expr.Col)
	y, ok2 := c.Args[1].(*expr.Col)
	if !ok1 || !ok2 || x.Idx == y.Idx {
		return 0, 0, nil, false
	}
	return x.Idx, y.Idx, c.Fn, true
}

// merge records a = b in the classes. It declines (false) when a class
// involved compares with another operator, so that every class has one
// `=` valid between any two of its members.
func (g *joinGraph) merge(a, b int, fn *expr.Func) bool {
	ca, okA := g.classOf[a]
	cb, okB := g.classOf[b]
	if okA && !sameEq(g.classes[ca].fn, fn) || okB && !sameEq(g.classes[cb].fn, fn) {
		return false
	}
	switch {
	case okA && okB && ca == cb:
	case okA && okB:
		for _, c := range g.classes[cb].cols {
			g.classOf[c] = ca
		}
		g.classes[ca].cols = append(g.classes[ca].cols, g.classes[cb].cols...)
		g.classes[cb].cols = nil
	case okA:
		g.classOf[b] = ca
		g.classes[ca].cols = append(g.classes[ca].cols, b)
	case okB:
		g.classOf[a] = cb
		g.classes[cb].cols = append(g.classes[cb].cols, a)
	default:
		g.classOf[a], g.classOf[b] = len(g.classes), len(g.classes)
		g.classes = append(g.classes, eqClass{fn: fn, cols: []int{a, b}})
	}
	return true
}

// sameEq reports whether two `=` overloads compare the same argument types.
func sameEq(f, h *expr.Func) bool {
	return f == h || f.Name == h.Name && slices.Equal(f.Args, h.Args)
}

// finish computes each predicate's leaf set and drops emptied classes,
// sorting each class's columns.
func (g *joinGraph) finish() {
	n := len(g.leaves)
	for i := range g.preds {
		p := &g.preds[i]
		p.leaves = newLeafSet(n)
		for _, c := range expr.Columns(p.e) {
			p.leaves.add(g.colLeaf[c])
		}
		p.equi = g.isEqui(p.e)
	}
	live := g.classes[:0]
	for _, c := range g.classes {
		if len(c.cols) > 0 {
			slices.Sort(c.cols)
			live = append(live, c)
		}
	}
	g.classes = live
	g.classLeaves = make([]leafSet, len(live))
	for i, c := range live {
		g.classLeaves[i] = newLeafSet(n)
		for _, x := range c.cols {
			g.classOf[x] = i
			g.classLeaves[i].add(g.colLeaf[x])
		}
	}
}

// isEqui reports whether e is `x = y` with x and y reading disjoint,
// non-empty leaf sets.
func (g *joinGraph) isEqui(e expr.Expr) bool {
	c, ok := e.(*expr.Call)
	if !ok || c.Fn.Name != "=" || len(c.Args) != 2 {
		return false
	}
	l, r := g.leavesOf(c.Args[0]), g.leavesOf(c.Args[1])
	return !l.empty() && !r.empty() && !l.intersects(r)
}

// leavesOf returns the leaves e reads.
func (g *joinGraph) leavesOf(e expr.Expr) leafSet {
	s := newLeafSet(len(g.leaves))
	for _, c := range expr.Columns(e) {
		s.add(g.colLeaf[c])
	}
	return s
}

// eq returns the expression #a = #b of class c.
func (g *joinGraph) eq(c *eqClass, a, b int) expr.Expr {
	return &expr.Call{Fn: c.fn, Args: []expr.Expr{&expr.Col{Idx: a, T: g.types[a]}, &expr.Col{Idx: b, T: g.types[b]}}}
}
