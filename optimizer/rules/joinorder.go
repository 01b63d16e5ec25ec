package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// ReorderJoins chooses the order of every cluster of inner and cross joins
// (with the deterministic filters and projections between them), whatever
// order the FROM list and the JOIN syntax wrote them in:
//
//	(Join inner (Join cross $a $b) $c [$a.x = $c.x, $b.y = $c.y])
//	  => (Project (Join inner (Join inner $a $c [$a.x = $c.x]) $b [$b.y = $c.y]) ...)
//
// The cluster is flattened into its leaves and conjuncts; equalities
// between columns form equivalence classes (a = b AND b = c also joins a
// with c). Greedy operator ordering (Fegaras' GOO) then repeatedly joins
// the two connected components whose join has the smallest estimated
// result, so no cross product is formed while a predicate path exists, and
// the intermediate results the streaming joins arrange stay small. Each
// predicate is placed at the lowest join that has its columns; a join
// between two components gets one equality per equivalence class they
// share. A projection restores the cluster's column order.
//
// It is a pass, not a rule: ordering is a decision about a whole cluster,
// made once, top-down (each leaf's own clusters are ordered first). It runs
// after Pushdown, which has moved every predicate into the cluster. Volatile
// and column-free conjuncts are evaluated above the reordered cluster.
// Outer joins are cluster boundaries (their inputs are ordered
// separately). Safe under retractions: inner joins are associative and
// commutative as multiset operations, and the same conjuncts (or ones
// implied by the equivalence classes) decide which combinations survive.
var ReorderJoins = Pass{Name: "ReorderJoins", Apply: func(r ir.Rel) ir.Rel {
	return reorderer{}.reorder(r)
}}

// reorderer maps each node ReorderJoins has visited to its result.
// Decorrelation shares subtrees by reference (a correlated subquery reads
// its outer input twice: as the outer side and, through a DISTINCT, as its
// domain), so n nested subqueries make a DAG of O(n) nodes whose tree
// unfolding has O(3^n): rebuilding a shared node once per parent would
// unfold it, and every later phase would pay for the copies. Visiting each
// node once keeps the result a DAG of the input's size.
type reorderer map[ir.Rel]ir.Rel

// reorder applies ReorderJoins to every cluster in r.
func (m reorderer) reorder(r ir.Rel) ir.Rel {
	if out, ok := m[r]; ok {
		return out
	}
	out := m.reorderNode(r)
	m[r] = out
	return out
}

// reorderNode is reorder without the memo.
func (m reorderer) reorderNode(r ir.Rel) ir.Rel {
	if isInnerJoin(r) {
		g := flatten(r)
		for i, l := range g.leaves {
			g.leaves[i] = m.reorder(l)
		}
		g.finish()
		return g.plan()
	}
	return ir.MapChildren(r, m.reorder)
}

// component is a joined set of leaves during ordering.
type component struct {
	leaves leafSet
	rel    ir.Rel
	cols   []int // global column of each column of rel
	card   float64
	keys   [][]int // unique keys of rel, as global columns
}

// plan orders the graph's joins and builds the plan tree.
func (g *joinGraph) plan() ir.Rel {
	comps := make([]*component, len(g.leaves))
	for i := range g.leaves {
		comps[i] = g.leafComponent(i)
	}
	est := g.pairEstimates(comps)
	for len(comps) > 1 {
		i, j := g.choosePair(comps, est)
		comps[i] = g.join(comps[i], comps[j])
		comps = slices.Delete(comps, j, j+1)
		est = g.merged(comps, est, i, j)
	}
	c := comps[0]
	pos := positions(c.cols, len(g.types))
	rel := ir.NewFilter(c.rel, remapAll(g.top, func(x int) int { return pos[x] })...)
	proj := make([]int, len(g.out))
	for i, x := range g.out {
		proj[i] = pos[x]
	}
	return ir.NewProject(rel, proj...)
}

// leafComponent wraps leaf i with its single-leaf predicates and the
// equalities among its own columns.
func (g *joinGraph) leafComponent(i int) *component {
	off, n := g.offs[i], ir.Arity(g.leaves[i])
	self := newLeafSet(len(g.leaves))
	self.add(i)
	var preds []expr.Expr
	for _, c := range g.classes {
		var mine []int
		for _, x := range c.cols {
			if g.colLeaf[x] == i {
				mine = append(mine, x)
			}
		}
		for _, x := range mine[min(1, len(mine)):] {
			preds = append(preds, g.eq(&c, mine[0], x))
		}
	}
	for _, p := range g.preds {
		if slices.Equal(p.leaves, self) {
			preds = append(preds, p.e)
		}
	}
	local := func(x int) int { return x - off }
	rel := ir.NewFilter(g.leaves[i], remapAll(preds, local)...)
	card, keys := estimate(rel)
	cols := make([]int, n)
	for k := range cols {
		cols[k] = off + k
	}
	return &component{leaves: self, rel: rel, cols: cols, card: card, keys: globalKeys(keys, cols)}
}

// globalKeys maps keys over a relation's columns to global columns.
func globalKeys(keys [][]int, cols []int) [][]int {
	out := make([][]int, len(keys))
	for i, k := range keys {
		out[i] = make([]int, len(k))
		for j, c := range k {
			out[i][j] = cols[c]
		}
	}
	return out
}

// positions maps each global column to its position in cols (-1 absent).
func positions(cols []int, n int) []int {
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, c := range cols {
		if pos[c] < 0 {
			pos[c] = i
		}
	}
	return pos
}

// choosePair returns the indices i < j of the two components to join
// next: among connected pairs the one with the smallest estimated result
// (ties: smaller inputs, then the earliest pair); when no pair is
// connected, the pair with the smallest cross product. est caches the
// estimate of every pair (est[i][j], i < j) across steps.
func (g *joinGraph) choosePair(comps []*component, est [][]joinEstimate) (int, int) {
	bi, bj, best, bestIn, found := -1, -1, 0.0, 0.0, false
	for i := range comps {
		for j := i + 1; j < len(comps); j++ {
			e := est[i][j]
			if !e.connected {
				continue
			}
			in := comps[i].card + comps[j].card
			if !found || e.card < best || e.card == best && in < bestIn {
				bi, bj, best, bestIn, found = i, j, e.card, in, true
			}
		}
	}
	if found {
		return bi, bj
	}
	for i := range comps {
		for j := i + 1; j < len(comps); j++ {
			if p := comps[i].card * comps[j].card; bi < 0 || p < best {
				bi, bj, best = i, j, p
			}
		}
	}
	return bi, bj
}

// pairEstimates returns the estimate of joining every pair i < j.
func (g *joinGraph) pairEstimates(comps []*component) [][]joinEstimate {
	est := make([][]joinEstimate, len(comps))
	for i := range comps {
		est[i] = make([]joinEstimate, len(comps))
		for j := i + 1; j < len(comps); j++ {
			est[i][j] = g.estimateJoin(comps[i], comps[j])
		}
	}
	return est
}

// merged updates est after comps[i] became the join of i and j and j was
// removed: row and column j go, pairs with i are estimated again.
func (g *joinGraph) merged(comps []*component, est [][]joinEstimate, i, j int) [][]joinEstimate {
	est = slices.Delete(est, j, j+1)
	for k := range est {
		est[k] = slices.Delete(est[k], j, j+1)
	}
	for k := range comps {
		switch {
		case k < i:
			est[k][i] = g.estimateJoin(comps[k], comps[i])
		case k > i:
			est[i][k] = g.estimateJoin(comps[i], comps[k])
		}
	}
	return est
}

// joinEstimate is what joining two components would produce.
type joinEstimate struct {
	connected bool
	card      float64
	keys      [][]int
}

// estimateJoin estimates the join of x and y. A join on equalities that
// cover a unique key of y matches each x row at most once (card <= |x|,
// and x's keys stay keys), symmetrically for x; equalities that cover no
// key are taken as many-to-many over the larger side (|x| max |y|); each
// other predicate halves the estimate.
func (g *joinGraph) estimateJoin(x, y *component) joinEstimate {
	equi, residual := 0, 0
	for i := range g.classes {
		if g.spans(i, x, y) {
			equi++
		}
	}
	for _, p := range g.preds {
		if p.leaves.intersects(x.leaves) && p.leaves.intersects(y.leaves) && p.leaves.within(x.leaves, y.leaves) {
			if p.equi {
				equi++
			} else {
				residual++
			}
		}
	}
	if equi == 0 && residual == 0 {
		return joinEstimate{card: x.card * y.card}
	}
	e := joinEstimate{connected: true}
	coverX, coverY := g.coversKey(x.keys, x, y), g.coversKey(y.keys, x, y)
	switch {
	case coverX && coverY:
		e.card, e.keys = min(x.card, y.card), append(slices.Clone(x.keys), y.keys...)
	case coverY:
		e.card, e.keys = x.card, x.keys
	case coverX:
		e.card, e.keys = y.card, y.keys
	case equi > 0:
		e.card, e.keys = max(x.card, y.card), pairKeys(x.keys, y.keys)
	default:
		e.card, e.keys = x.card*y.card, pairKeys(x.keys, y.keys)
	}
	for range residual {
		e.card /= 2
	}
	e.card = max(e.card, 1)
	return e
}

// spans reports whether class i has members in both x and y.
func (g *joinGraph) spans(i int, x, y *component) bool {
	l := g.classLeaves[i]
	return l.intersects(x.leaves) && l.intersects(y.leaves)
}

// coversKey reports whether every column of some key (of x or of y) is in
// a class that x and y share, so the join equates it with the other side.
func (g *joinGraph) coversKey(keys [][]int, x, y *component) bool {
	for _, k := range keys {
		covered := true
		for _, c := range k {
			i, ok := g.classOf[c]
			if !ok || !g.spans(i, x, y) {
				covered = false
				break
			}
		}
		if covered {
			return true
		}
	}
	return false
}

// memberIn returns the first column of cols whose leaf is in s.
func (g *joinGraph) memberIn(cols []int, s leafSet) int {
	for _, c := range cols {
		if s.has(g.colLeaf[c]) {
			return c
		}
	}
	return -1
}

// pairKeys returns the unions of a key of each side (keys of a join that
// is not known to preserve either side's keys), at most a few.
func pairKeys(a, b [][]int) [][]int {
	var out [][]int
	for _, x := range a {
		for _, y := range b {
			if len(out) < 4 {
				out = append(out, append(slices.Clone(x), y...))
			}
		}
	}
	return out
}

// join builds the join of x and y: one equality per equivalence class
// they share (between the smallest member of each side) and every
// predicate whose leaves they together hold and both touch. The side
// holding the earlier leaf goes left, so plans read in FROM order where
// the order is free.
func (g *joinGraph) join(x, y *component) *component {
	if y.leaves.first() < x.leaves.first() {
		x, y = y, x
	}
	est := g.estimateJoin(x, y)
	cols := append(slices.Clone(x.cols), y.cols...)
	pos := positions(cols, len(g.types))
	var on []expr.Expr
	for i := range g.classes {
		if c := &g.classes[i]; g.spans(i, x, y) {
			on = append(on, g.eq(c, g.memberIn(c.cols, x.leaves), g.memberIn(c.cols, y.leaves)))
		}
	}
	for _, p := range g.preds {
		if p.leaves.intersects(x.leaves) && p.leaves.intersects(y.leaves) && p.leaves.within(x.leaves, y.leaves) {
			on = append(on, p.e)
		}
	}
	on = remapAll(on, func(c int) int { return pos[c] })
	leaves := x.leaves.clone()
	leaves.union(y.leaves)
	kind := ir.JoinInner
	if len(on) == 0 {
		kind = ir.JoinCross
	}
	return &component{leaves: leaves, rel: ir.NewJoin(kind, x.rel, y.rel, on...), cols: cols, card: est.card, keys: est.keys}
}
