package sql

import (
	"fmt"
	"maps"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
)

// Delta joins. The optimizer lowers a multiway inner join to a tree of
// binary joins, each keeping both inputs arranged: its intermediate
// results are private arrangements as large as the fact rows they carry
// (TPC-H Q07 keeps five). A materialized view's tree of three or more
// inputs becomes one dataflow.DeltaJoin (exec's deltaJoin) when that
// keeps less: each input has a path that looks the other inputs up in
// arrangements by keys bound so far, and no intermediate is kept. A
// lookup reads a shared arrangement wherever one serves (the relation's
// own key order, an index, or an automatic index on a relation read
// whole: autoindex.go), else the operator's own arrangement of that input
// by that key, one per (input, key) however many paths read it.
//
// The paths are chosen greedily (deltaRank): from the changed input,
// repeatedly look up the connected input whose key is unique (a primary
// key: at most one match, so the path does not fan out), then one that
// needs no new arrangement (shared, or made for an earlier lookup of the
// same join), then one read through a filter, then the smallest. The
// state compared is estimated in rows (an empty relation counts 1, a
// filter passes a tenth, an automatic index entry costs a third of a
// row): the chain keeps each private side and each intermediate, as large
// as its largest input times its filters' selectivity; the delta join
// keeps each private (input, key) arrangement and the new automatic
// indexes. So a chain whose first join is through a selective filter
// (TPC-H Q08: a part type) stays a chain, and one whose intermediates
// carry most of the fact table (Q07) becomes a delta join. Only new
// views are converted (planSharedView); a stored plan is never
// re-planned, so a view created with binary joins keeps them. ALTER's
// plan check converts only when the stored plan has a DeltaJoin, reading
// only the arrangements it reads.

// disableDeltaJoins is a test knob: with it set no plan gets a delta join.
var disableDeltaJoins bool

// deltaTree is an inner join tree of a plan that a DeltaJoin can replace:
// the root Join, the nodes it absorbs (its joins and the MFPs between
// them, root included), its inputs and conditions over their
// concatenated columns, and where the root's columns are in that row.
type deltaTree struct {
	root     int
	absorbed []int
	leaves   []int
	widths   []int
	colmap   []int
	on       []dataflow.DeltaPair
	residual []expr.Expr
	// cost is the chain's state in rows (see the comment above).
	cost float64
	// dims marks the inputs some other input joins by their whole
	// primary key; made holds, per input, the key columns (input
	// columns) of the arrangements the paths chosen so far need that no
	// shared arrangement served.
	dims []bool
	made map[int][][]int
	// pairs are the On pairs in both orientations, then the equalities
	// they imply (a = b and b = c: a = c), so a lookup may be keyed by
	// any bound column equal to the input's.
	pairs []dataflow.DeltaPair
}

// deltaPlanner plans the delta joins of one plan.
type deltaPlanner struct {
	e         *Engine
	cat       *Catalog
	plan      *dataflow.Plan
	allowed   func(uint64) bool
	consumers [][]int
	// weights, when set, are the size estimates of the current tree's
	// input nodes (see markDims).
	weights map[int]float64
	autos   []autoIndex
	used    []uint64
}

// deltaJoins returns plan with each inner join tree of three or more
// inputs that keeps less state as a delta join replaced by one (plan
// itself if none is), the arrangements the delta joins read, and the
// automatic indexes they need that do not exist yet (none when allowed
// is set: ALTER's check reads only what the stored plan reads). The
// caller holds e.mu.
func (e *Engine) deltaJoins(cat *Catalog, plan *dataflow.Plan, allowed func(uint64) bool) (*dataflow.Plan, []uint64, []autoIndex) {
	if disableDeltaJoins || disableSharedJoins || hasLoop(plan) || usesWatermarks(plan) {
		return plan, nil, nil
	}
	dp := &deltaPlanner{e: e, cat: cat, plan: plan, allowed: allowed, consumers: make([][]int, len(plan.Nodes))}
	for i, n := range plan.Nodes {
		for _, in := range n.Inputs {
			dp.consumers[in] = append(dp.consumers[in], i)
		}
	}
	taken := make([]bool, len(plan.Nodes))
	var joins []deltaReplace
	for i := len(plan.Nodes) - 1; i >= 0; i-- {
		if taken[i] || !dp.joinable(i) {
			continue
		}
		t := &deltaTree{root: i}
		dp.weights = nil
		dp.collect(t, i)
		for _, a := range t.absorbed {
			taken[a] = true
		}
		if len(t.leaves) < 3 {
			continue
		}
		dp.markDims(t)
		// Again, with the tree's size estimates.
		t = &deltaTree{root: i, dims: t.dims, made: t.made, pairs: t.pairs}
		t.cost = dp.collect(t, i).cost
		if dj, ok := dp.deltaJoin(t); ok {
			joins = append(joins, deltaReplace{t, dj})
		}
	}
	if len(joins) == 0 {
		return plan, nil, nil
	}
	return rebuildWithDeltaJoins(plan, joins), dp.used, dp.autos
}

// usesWatermarks reports whether a Source of plan has an event time
// (whose watermarks a DeltaJoin does not carry).
func usesWatermarks(plan *dataflow.Plan) bool {
	for _, n := range plan.Nodes {
		if s, ok := n.Op.(dataflow.Source); ok && s.HasEventTime {
			return true
		}
	}
	return false
}

// joinable reports whether node i is a join a delta join can absorb: an
// inner equi-join that is not append-only and reads no shared
// arrangement yet.
func (dp *deltaPlanner) joinable(i int) bool {
	j, ok := dp.plan.Nodes[i].Op.(dataflow.Join)
	return ok && j.Kind == dataflow.InnerJoin && !j.AppendOnly && j.Shared == nil && len(j.LeftKey) > 0
}

// absorbable reports whether node i, an input of a join in a tree, is
// part of the tree: a joinable join, or an MFP without maps over one,
// read by nothing else (nor the plan's output).
func (dp *deltaPlanner) absorbable(i int) bool {
	single := func(k int) bool { return len(dp.consumers[k]) == 1 && k != dp.plan.Output }
	if !single(i) {
		return false
	}
	if m, ok := dp.plan.Nodes[i].Op.(dataflow.MFP); ok {
		in := dp.plan.Nodes[i].Inputs[0]
		return len(m.Map) == 0 && single(in) && dp.joinable(in)
	}
	return dp.joinable(i)
}

// collect adds node i's subtree to t (leaves in order; t.colmap set to
// node i's columns in the concatenated row) and returns its estimate:
// the state the chain keeps for it (its joins' private sides) and its
// size, the largest input's rows (joins are mostly on a key of one side)
// times the selectivity of every filter in it.
func (dp *deltaPlanner) collect(t *deltaTree, i int) deltaSide {
	t.absorbed = append(t.absorbed, i)
	n := dp.plan.Nodes[i]
	var out deltaSide
	switch op := n.Op.(type) {
	case dataflow.MFP:
		out = dp.collect(t, n.Inputs[0])
		cols := t.colmap
		remap := func(c int) int { return cols[c] }
		for _, f := range op.Filter {
			t.residual = append(t.residual, expr.Remap(f, remap))
		}
		if len(op.Filter) > 0 {
			out.sel *= filterSelectivity
		}
		t.colmap = make([]int, len(op.Project))
		for k, p := range op.Project {
			t.colmap[k] = cols[p]
		}
	case dataflow.Join:
		var sides [2]deltaSide
		var cols []int
		for s, keys := range [2][]int{op.LeftKey, op.RightKey} {
			sides[s] = dp.child(t, n.Inputs[s], keys)
			cols = append(cols, t.colmap...)
		}
		left := len(cols) - len(t.colmap)
		for k := range op.LeftKey {
			t.on = append(t.on, dataflow.DeltaPair{L: cols[op.LeftKey[k]], R: cols[left+op.RightKey[k]]})
		}
		for _, r := range op.Residual {
			t.residual = append(t.residual, expr.Remap(r, func(c int) int { return cols[c] }))
		}
		t.colmap = cols
		out = deltaSide{cost: sides[0].cost + sides[1].cost, base: max(sides[0].base, sides[1].base), sel: sides[0].sel * sides[1].sel}
		if sides[0].free && sides[1].free { // only one side is shared
			out.cost += min(sides[0].size(), sides[1].size())
		}
		if len(op.Residual) > 0 {
			out.sel *= filterSelectivity
		}
	}
	return out
}

// filterSelectivity is the share of rows a filter is assumed to pass
// (PostgreSQL's default for a range is a third, for an equality less).
const filterSelectivity = 0.1

// deltaSide is the estimate of a chain's subtree or join side: the state
// the chain keeps for it (its subtree's and, unless free, its own
// arrangement), its largest input's rows and its filters' selectivity.
type deltaSide struct {
	cost, base, sel float64
	free            bool
}

// size is the estimated rows of the side.
func (d deltaSide) size() float64 { return d.base * d.sel }

// child adds join input node in, whose join key columns are keys, to t.
func (dp *deltaPlanner) child(t *deltaTree, in int, keys []int) deltaSide {
	if dp.absorbable(in) {
		sub := dp.collect(t, in)
		sub.cost += sub.size()
		return sub
	}
	off := 0
	for _, w := range t.widths {
		off += w
	}
	w := len(dp.plan.Nodes[in].Types)
	t.leaves, t.widths = append(t.leaves, in), append(t.widths, w)
	t.colmap = make([]int, w)
	for c := range t.colmap {
		t.colmap[c] = off + c
	}
	side := deltaSide{base: dp.weight(in), sel: dp.selectivity(in)}
	switch dp.shareable(in, keys) {
	case shareExisting:
		side.free = true
	case shareAuto:
		side.free, side.cost = true, side.base/3
	default:
		side.cost = side.size()
	}
	return side
}

// weight is the size estimate of leaf node in: its relation's rows (at
// least 1), or 1 for a computed input.
func (dp *deltaPlanner) weight(in int) float64 {
	if w, ok := dp.weights[in]; ok {
		return w
	}
	if src, ok := sourceOf(dp.plan, in); ok {
		return float64(max(1, dp.e.collectionSize(uint64(src.Collection))))
	}
	return 1
}

// selectivity is the share of its relation's rows leaf node in passes.
func (dp *deltaPlanner) selectivity(in int) float64 {
	if m, ok := dp.plan.Nodes[in].Op.(dataflow.MFP); ok && len(m.Filter) > 0 {
		return filterSelectivity
	}
	return 1
}

// Ways a chain's join side can be shared.
const (
	sharePrivate = iota
	shareExisting
	shareAuto
)

// shareable reports how input node in could be read by key columns keys:
// from an existing shared arrangement, an automatic index, or privately.
// It is an estimate of the chain's state, so any index counts (also when
// ALTER's check re-plans a view whose plan reads only some).
func (dp *deltaPlanner) shareable(in int, keys []int) int {
	if _, _, _, ok := dp.e.sharedIndex(dp.cat, dp.plan, in, keys, nil); ok {
		return shareExisting
	}
	if _, cols, _ := sourceKey(dp.plan, in, keys); slices.Contains(cols, -1) {
		return sharePrivate
	}
	if _, ok := dp.e.autoIndexTarget(dp.cat, dp.plan, in); ok {
		return shareAuto
	}
	return sharePrivate
}

// deltaLookup is a candidate lookup of a path: the DeltaLookup and the
// automatic index it needs (nil: none).
type deltaLookup struct {
	l    dataflow.DeltaLookup
	auto *autoIndex
}

// deltaJoin chooses t's paths and arrangements and returns the DeltaJoin
// if it keeps less state than the chain (recording the arrangements it
// reads and the automatic indexes it needs).
func (dp *deltaPlanner) deltaJoin(t *deltaTree) (dataflow.DeltaJoin, bool) {
	dj := dataflow.DeltaJoin{On: t.on, Residual: t.residual}
	type arrKey struct {
		input int
		cols  string
	}
	private := map[arrKey]bool{}
	var autos []autoIndex
	cost := 0.0
	for i := range t.leaves {
		path, ok := dp.path(t, i)
		if !ok {
			return dj, false
		}
		var p []dataflow.DeltaLookup
		for _, c := range path {
			p = append(p, c.l)
			switch {
			case c.auto != nil:
				if !containsAuto(autos, *c.auto) {
					autos = append(autos, *c.auto)
					cost += dp.weight(t.leaves[c.l.Input]) * dp.selectivity(t.leaves[c.l.Input]) / 3 // an index entry: a third of a row
				}
			case c.l.Shared == 0:
				if k := (arrKey{c.l.Input, fmt.Sprint(c.l.Cols)}); !private[k] {
					private[k] = true
					cost += dp.weight(t.leaves[c.l.Input]) * dp.selectivity(t.leaves[c.l.Input])
				}
			}
		}
		dj.Paths = append(dj.Paths, p)
	}
	if cost >= t.cost {
		return dj, false
	}
	// A lookup keyed by an implied equality checks it: make it a condition.
	dj.On = slices.Clone(dj.On)
	for _, p := range dj.Paths {
		for _, l := range p {
			for k, c := range l.Cols {
				q := dataflow.DeltaPair{L: l.From[k], R: c}
				if !slices.Contains(dj.On, q) && !slices.Contains(dj.On, dataflow.DeltaPair{L: c, R: l.From[k]}) {
					dj.On = append(dj.On, q)
				}
			}
		}
	}
	for _, p := range dj.Paths {
		for _, l := range p {
			if l.Shared != 0 && !slices.Contains(dp.used, l.Shared) {
				dp.used = append(dp.used, l.Shared)
			}
		}
	}
	for _, a := range autos {
		if !containsAuto(dp.autos, a) {
			dp.autos = append(dp.autos, a)
		}
	}
	return dj, true
}

// containsAuto reports whether list has an automatic index like a.
func containsAuto(list []autoIndex, a autoIndex) bool {
	return slices.ContainsFunc(list, func(b autoIndex) bool { return a.rel == b.rel && slices.Equal(a.cols, b.cols) })
}

// path chooses input i's path greedily (see the comment at the top): it
// fails when some input is not connected by an On pair to those bound.
func (dp *deltaPlanner) path(t *deltaTree, i int) ([]deltaLookup, bool) {
	off, _ := dataflow.Offsets(t.widths)
	owner := func(c int) int {
		k, _ := slices.BinarySearch(off, c+1)
		return k - 1
	}
	bound := make([]bool, len(t.leaves))
	bound[i] = true
	var path []deltaLookup
	for len(path) < len(t.leaves)-1 {
		var best *deltaLookup
		var bestRank deltaRank
		for j := range t.leaves {
			if bound[j] {
				continue
			}
			var from, cols []int
			for _, q := range t.pairs {
				if owner(q.R) == j && bound[owner(q.L)] && !slices.Contains(cols, q.R) {
					from, cols = append(from, q.L), append(cols, q.R)
				}
			}
			if len(cols) == 0 {
				continue
			}
			c, rank := dp.lookup(t, j, off[j], from, cols)
			if best == nil || rank.better(bestRank) {
				best, bestRank = &c, rank
			}
		}
		if best == nil {
			return nil, false
		}
		bound[best.l.Input] = true
		path = append(path, *best)
		if !bestRank.noNew && best.l.Shared == 0 {
			j := best.l.Input
			local := make([]int, len(best.l.Cols))
			for k, c := range best.l.Cols {
				local[k] = c - off[j]
			}
			t.made[j] = append(t.made[j], local)
		}
	}
	return path, true
}

// deltaRank orders candidate lookups: unique keys first (no fan-out),
// and among those inputs read through a filter first (at most one match
// that may be none: such a lookup can only drop the path's rows, so each
// later lookup runs for fewer; TPC-H Q18 looks its HAVING-filtered order
// keys up before the order and customer of every new lineitem, a
// lookup that finds nothing for nearly all of them); then lookups that
// need no new arrangement (a shared one, or one an earlier lookup of
// the tree made), then inputs read through a filter, then smaller
// inputs (with sizes unknown, an input some other input joins by its
// whole primary key, a dimension, before one none does), then earlier
// ones.
type deltaRank struct {
	unique, noNew, filtered, dim bool
	size                         float64
	input                        int
}

// better reports whether a ranks before b.
func (a deltaRank) better(b deltaRank) bool {
	if a.unique != b.unique {
		return a.unique
	}
	if a.unique && a.filtered != b.filtered {
		return a.filtered
	}
	for _, f := range [][2]bool{{a.noNew, b.noNew}, {a.filtered, b.filtered}} {
		if f[0] != f[1] {
			return f[0]
		}
	}
	if a.size != b.size {
		return a.size < b.size
	}
	if a.dim != b.dim {
		return a.dim
	}
	return a.input < b.input
}

// lookup chooses the arrangement of input j (whose first output column is
// off) for a lookup by its columns cols, bound to from: a shared
// arrangement led by all of them or, failing that, by one of them; an
// automatic index on them; else a private arrangement by all of them.
func (dp *deltaPlanner) lookup(t *deltaTree, j, off int, from, cols []int) (deltaLookup, deltaRank) {
	in := t.leaves[j]
	local := make([]int, len(cols))
	for k, c := range cols {
		local[k] = c - off
	}
	rank := deltaRank{size: dp.weight(in) * dp.selectivity(in), input: j}
	if m, ok := dp.plan.Nodes[in].Op.(dataflow.MFP); ok && len(m.Filter) > 0 {
		rank.filtered = true
	}
	c := deltaLookup{l: dataflow.DeltaLookup{Input: j, From: from, Cols: cols}}
	subsets := [][]int{identityCols(len(cols))}
	for k := range cols {
		if len(cols) > 1 {
			subsets = append(subsets, []int{k})
		}
	}
	for _, sub := range subsets {
		ix, perm, _, ok := dp.e.sharedIndex(dp.cat, dp.plan, in, permute(local, sub), dp.allowed)
		if !ok {
			continue
		}
		order := permute(sub, perm)
		c.l = dataflow.DeltaLookup{Input: j, From: permute(from, order), Cols: permute(cols, order), Shared: ix}
		rank.unique = dp.unique(in, permute(local, order))
		rank.noNew = true
		return c, rank
	}
	rank.noNew = true
	rank.dim = t.dims[j]
	for _, made := range t.made[j] {
		// An arrangement an earlier lookup of this input made, led by
		// some of the key columns.
		order := make([]int, len(made))
		for k, m := range made {
			if order[k] = slices.Index(local, m); order[k] < 0 {
				break
			}
		}
		if !slices.Contains(order, -1) {
			c.l = dataflow.DeltaLookup{Input: j, From: permute(from, order), Cols: permute(cols, order)}
			c.auto = dp.autoFor(in, permute(local, order))
			rank.unique = dp.unique(in, made)
			return c, rank
		}
	}
	rank.noNew = false
	rank.unique = dp.unique(in, local)
	c.auto = dp.autoFor(in, local)
	return c, rank
}

// unique reports whether input node in has at most one row per value of
// its columns cols: they hold a stored relation's primary key
// (Engine.uniqueKey), or every key column of a Reduce that in is or that
// an MFP in reads (a group's row is the only one with its key; a filter
// keeps or drops it whole).
func (dp *deltaPlanner) unique(in int, cols []int) bool {
	if dp.e.uniqueKey(dp.cat, dp.plan, in, cols) {
		return true
	}
	n := dp.plan.Nodes[in]
	out := slices.Clone(cols)
	if m, ok := n.Op.(dataflow.MFP); ok {
		n = dp.plan.Nodes[n.Inputs[0]]
		for k, c := range cols {
			if out[k] = m.Project[c]; out[k] >= len(n.Types) {
				out[k] = -1 // a computed column
			}
		}
	}
	r, ok := n.Op.(dataflow.Reduce)
	if !ok {
		return false
	}
	for k := range r.Key {
		if !slices.Contains(out, k) {
			return false
		}
	}
	return true
}

// autoFor returns the automatic index that serves a lookup of input node
// in by its columns cols, nil if none can (the input filters, a key is
// computed, or ALTER's check re-plans).
func (dp *deltaPlanner) autoFor(in int, cols []int) *autoIndex {
	if _, src, _ := sourceKey(dp.plan, in, cols); dp.allowed == nil && !slices.Contains(src, -1) {
		if rel, ok := dp.e.autoIndexTarget(dp.cat, dp.plan, in); ok {
			return &autoIndex{rel: rel, cols: src}
		}
	}
	return nil
}

// deltaReplace is a tree and the DeltaJoin that replaces it.
type deltaReplace struct {
	t  *deltaTree
	dj dataflow.DeltaJoin
}

// rebuildWithDeltaJoins returns a copy of plan in which each tree's root
// is its DeltaJoin followed by an MFP giving the root's columns, and the
// tree's other nodes are gone (node numbers change).
func rebuildWithDeltaJoins(plan *dataflow.Plan, joins []deltaReplace) *dataflow.Plan {
	gone := map[int]bool{}
	byRoot := map[int]deltaReplace{}
	for _, r := range joins {
		for _, a := range r.t.absorbed {
			gone[a] = true
		}
		byRoot[r.t.root] = r
	}
	out := &dataflow.Plan{}
	newIdx := make([]int, len(plan.Nodes))
	consumers := make([][]int, len(plan.Nodes))
	for i, n := range plan.Nodes {
		for _, in := range n.Inputs {
			consumers[in] = append(consumers[in], i)
		}
	}
	fused := map[int][]int{} // MFP node -> its input's columns in the DeltaJoin row
	for i, n := range plan.Nodes {
		if r, ok := byRoot[i]; ok {
			dj := dataflow.Node{Op: r.dj}
			for _, l := range r.t.leaves {
				dj.Inputs = append(dj.Inputs, newIdx[l])
				dj.Types = append(dj.Types, plan.Nodes[l].Types...)
			}
			out.Nodes = append(out.Nodes, dj)
			if c := consumers[i]; len(c) == 1 && i != plan.Output && isMFP(plan.Nodes[c[0]]) {
				// The consumer MFP reads the DeltaJoin's row directly.
				fused[c[0]] = r.t.colmap
				newIdx[i] = len(out.Nodes) - 1
				continue
			}
			proj := dataflow.Node{Op: dataflow.MFP{Project: r.t.colmap}, Inputs: []int{len(out.Nodes) - 1}, Types: n.Types}
			out.Nodes = append(out.Nodes, proj)
		} else if gone[i] {
			continue
		} else {
			n.Inputs = slices.Clone(n.Inputs)
			for k, in := range n.Inputs {
				n.Inputs[k] = newIdx[in]
			}
			if colmap, ok := fused[i]; ok {
				n.Op = throughColumns(n.Op.(dataflow.MFP), colmap, len(plan.Nodes[plan.Nodes[i].Inputs[0]].Types), len(out.Nodes[n.Inputs[0]].Types))
			}
			out.Nodes = append(out.Nodes, n)
		}
		newIdx[i] = len(out.Nodes) - 1
	}
	out.Output = newIdx[plan.Output]
	return out
}

// isMFP reports whether n is an MFP.
func isMFP(n dataflow.Node) bool {
	_, ok := n.Op.(dataflow.MFP)
	return ok
}

// throughColumns rewrites m, an MFP over a row of width w, to read a
// wider row (of width nw) in which column c of the old row is colmap[c];
// its map columns follow the new row's.
func throughColumns(m dataflow.MFP, colmap []int, w, nw int) dataflow.MFP {
	remap := func(c int) int {
		if c < w {
			return colmap[c]
		}
		return c - w + nw
	}
	out := dataflow.MFP{Project: make([]int, len(m.Project))}
	for _, e := range m.Map {
		out.Map = append(out.Map, expr.Remap(e, remap))
	}
	for _, e := range m.Filter {
		out.Filter = append(out.Filter, expr.Remap(e, remap))
	}
	for k, c := range m.Project {
		out.Project[k] = remap(c)
	}
	return out
}

// markDims sets t.dims (see deltaTree), resets t.made and, when no
// input's relation has rows yet (a view created before its data), sets
// dp.weights to sizes guessed from the join's shape: an input no other
// joins by its whole primary key weighs 1, a dimension a tenth of the
// heaviest input that joins it by that key (lineitem 1, orders 0.1,
// customer 0.01, nation 0.001).
func (dp *deltaPlanner) markDims(t *deltaTree) {
	off, _ := dataflow.Offsets(t.widths)
	owner := func(c int) int {
		k, _ := slices.BinarySearch(off, c+1)
		return k - 1
	}
	n := len(t.leaves)
	t.dims, t.made, t.pairs = make([]bool, n), map[int][][]int{}, equalPairs(t.on)
	// refs[j] lists the inputs that join j by its whole primary key.
	refs := make([][]int, n)
	for j, in := range t.leaves {
		byInput := map[int][]int{}
		for _, q := range t.pairs {
			if owner(q.R) == j && owner(q.L) != j && !slices.Contains(byInput[owner(q.L)], q.R-off[j]) {
				byInput[owner(q.L)] = append(byInput[owner(q.L)], q.R-off[j])
			}
		}
		for k, local := range byInput {
			if dp.e.uniqueKey(dp.cat, dp.plan, in, local) {
				t.dims[j], refs[j] = true, append(refs[j], k)
			}
		}
	}
	for _, in := range t.leaves {
		if src, ok := sourceOf(dp.plan, in); ok && dp.e.collectionSize(uint64(src.Collection)) > 0 {
			return // sizes are known
		}
	}
	w := make([]float64, n)
	for range n {
		for j := range w {
			w[j] = 1
			if len(refs[j]) > 0 {
				w[j] = 0
				for _, k := range refs[j] {
					w[j] = max(w[j], w[k]/10)
				}
			}
		}
	}
	dp.weights = map[int]float64{}
	for j, in := range t.leaves {
		dp.weights[in] = max(dp.weights[in], w[j])
	}
}

// equalPairs returns on in both orientations, then every other pair of
// columns that on makes equal (its equivalence classes), in column order.
func equalPairs(on []dataflow.DeltaPair) []dataflow.DeltaPair {
	var out []dataflow.DeltaPair
	class := map[int]int{} // column -> smallest column of its class
	find := func(c int) int {
		for {
			r, ok := class[c]
			if !ok || r == c {
				return c
			}
			c = r
		}
	}
	for _, p := range on {
		out = append(out, p, dataflow.DeltaPair{L: p.R, R: p.L})
		a, b := find(p.L), find(p.R)
		class[max(a, b)] = min(a, b)
		class[min(a, b)] = min(a, b)
	}
	cols := slices.Sorted(maps.Keys(class))
	for _, a := range cols {
		for _, b := range cols {
			q := dataflow.DeltaPair{L: a, R: b}
			if a != b && find(a) == find(b) && !slices.Contains(out, q) {
				out = append(out, q)
			}
		}
	}
	return out
}
