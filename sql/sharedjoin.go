package sql

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Shared arrangements in joins. An inner join of a lowered plan keeps an
// arrangement of each input (exec's joinOp), a private copy of both. When
// one input is a table or materialized view read directly (or through one
// MFP that keeps its join key columns) and the relation has an index whose
// leading columns are that input's join key, the join reads that input
// from the index instead (dataflow.Join.Shared, exec's sharedJoin): the
// index is the one arrangement of the relation by that key, shared by
// every join and view that needs it, as in differential dataflow's
// arrangements and Materialize's delta joins; the join keeps only its
// other input. shareArrangements marks such joins after lowering (the
// optimizer knows nothing of indexes): a materialized view stores the
// marked plan and depends on the indexes it reads (DROP INDEX needs
// CASCADE); an ad hoc query marks its plan when it runs and then reads
// nothing of the shared input but the index lookups (an index nested loop
// join), unless the transaction has pending writes to it.

// sharedJoinCount counts the ad hoc queries run with shared joins (tests
// check that the fast path ran).
var sharedJoinCount atomic.Int64

// disableSharedJoins is a test knob: with it set no plan reads a shared
// arrangement (the reference the shared joins are compared with).
var disableSharedJoins bool

// shareArrangements returns plan with every inner join that can read one
// input from an index marked to do so, preferring the larger relation's
// side, and the indexes used; allowed filters the indexes (nil: any). The
// plan is returned unchanged (and not copied) when no join qualifies. The
// caller holds e.mu.
func (e *Engine) shareArrangements(cat *Catalog, plan *dataflow.Plan, allowed func(uint64) bool) (*dataflow.Plan, []uint64) {
	return e.shareArrangementsAvoiding(cat, plan, allowed, nil)
}

// shareArrangementsAvoiding is shareArrangements that never shares an
// input reading a collection in avoid.
func (e *Engine) shareArrangementsAvoiding(cat *Catalog, plan *dataflow.Plan, allowed func(uint64) bool, avoid map[repr.CollectionID]bool) (*dataflow.Plan, []uint64) {
	if disableSharedJoins || hasLoop(plan) {
		return plan, nil
	}
	var out *dataflow.Plan
	var used []uint64
	for i, n := range plan.Nodes {
		j, ok := n.Op.(dataflow.Join)
		if !ok || j.Kind != dataflow.InnerJoin || j.AppendOnly || j.Shared != nil || len(j.LeftKey) == 0 {
			continue
		}
		var cands [2]shareCand
		for side, keys := range [2][]int{j.LeftKey, j.RightKey} {
			if src, ok := sourceOf(plan, n.Inputs[side]); ok && avoid[src.Collection] {
				continue
			}
			c := &cands[side]
			var rows int
			if c.index, c.perm, rows, c.ok = e.sharedIndex(cat, plan, n.Inputs[side], keys, allowed); c.ok {
				c.size = sideSize{rows: rows, unique: e.uniqueKey(cat, plan, n.Inputs[side], keys), kept: keptShare(plan, n.Inputs[side])}
			}
		}
		best := sharedSide(cands)
		if best < 0 {
			continue
		}
		bestIndex, bestPerm := cands[best].index, cands[best].perm
		if out == nil {
			cp := *plan
			cp.Nodes = slices.Clone(plan.Nodes)
			out = &cp
		}
		// The key pairs in the arrangement's column order (the same
		// condition): lookups encode the key in that order.
		j.LeftKey, j.RightKey = permute(j.LeftKey, bestPerm), permute(j.RightKey, bestPerm)
		j.Shared = &dataflow.SharedArrangement{Side: best, Index: bestIndex}
		out.Nodes[i].Op = j
		if !slices.Contains(used, bestIndex) {
			used = append(used, bestIndex)
		}
	}
	if out == nil {
		return plan, nil
	}
	return out, used
}

// sideSize is what choosing a join's shared side goes by: the side's
// relation's current rows, whether its join key is the relation's whole
// primary key (each key one row), and the share of the rows its input
// keeps (keptShare).
type sideSize struct {
	rows   int
	unique bool
	kept   float64
}

// shareCand is a join input that can be read from a shared arrangement:
// the index, its key order (sharedIndex) and the side's size.
type shareCand struct {
	ok    bool
	index uint64
	perm  []int
	size  sideSize
}

// sharedSide returns the side of a join to read from its shared
// arrangement (-1: neither can be): the only candidate, or of two the
// larger relation (larger), unless sharing the other leaves a private side
// estimated ten times smaller, its rows times the share its filters keep
// (when both relations are empty, as for a view created before its data,
// a side whose key may repeat counts ten times one whose key is unique:
// the fact table of a dimension join). So TPC-H Q12's join of orders
// with a narrowly filtered lineitem reads orders by its key and keeps
// the few lineitems, not every order. The margin keeps a guess of
// selectivity from overriding known sizes on a filter or two.
func sharedSide(c [2]shareCand) int {
	switch {
	case !c[0].ok && !c[1].ok:
		return -1
	case !c[1].ok:
		return 0
	case !c[0].ok:
		return 1
	}
	best := 0
	if c[1].size.larger(c[0].size) {
		best = 1
	}
	// Sharing side s keeps side 1-s privately.
	rows := [2]float64{float64(c[0].size.rows), float64(c[1].size.rows)}
	if rows[0] == 0 && rows[1] == 0 {
		rows = [2]float64{1, 1}
		for s := range rows {
			if !c[s].size.unique && c[1-s].size.unique {
				rows[s] = 10
			}
		}
	}
	kept := func(s int) float64 { return rows[1-s] * c[1-s].size.kept }
	if kept(1-best)*10 <= kept(best) {
		return 1 - best
	}
	return best
}

// keptShare estimates the share of its relation's rows join input in
// keeps: a third per filter of its MFP (PostgreSQL's default selectivity
// for a range; the optimizer's estimate guesses alike).
func keptShare(plan *dataflow.Plan, in int) float64 {
	kept := 1.0
	if m, ok := plan.Nodes[in].Op.(dataflow.MFP); ok {
		for range m.Filter {
			kept /= 3
		}
	}
	return kept
}

// larger reports whether a should be shared rather than b: it has more
// rows, or as many (both empty: a view created before its data) and its
// key may repeat while b's may not (the fact table of a dimension join,
// which will be the larger). Ties keep the earlier side.
func (a sideSize) larger(b sideSize) bool {
	return a.rows > b.rows || a.rows == b.rows && !a.unique && b.unique
}

// planSharedView plans a new materialized view (its stored plan,
// obj.Plan) with its joins reading shared arrangements where indexes
// allow, and adds the indexes it reads to its dependencies. The caller
// holds e.mu.
func (e *Engine) planSharedView(obj *Object) error {
	text, err := e.planView(obj)
	if err != nil {
		return err
	}
	plan, err := dataflow.Parse(text)
	if err != nil {
		return err
	}
	plan, deltaUsed, _ := e.deltaJoins(e.cat, plan, nil)
	plan, used := e.shareArrangements(e.cat, plan, nil)
	plan, reduceUsed := e.shareReduces(e.cat, plan, nil)
	plan = borrowArrangements(plan)
	used = mergeIDs(mergeIDs(used, deltaUsed), reduceUsed)
	text = plan.String()
	back, err := dataflow.Parse(text)
	if err != nil {
		return repr.Errorf(repr.CodeInternal, "materialized view %s: the printed shared plan does not parse: %v", obj.Name, err)
	}
	if again := back.String(); again != text {
		orig, again := firstDiffLine(text, again)
		return repr.Errorf(repr.CodeInternal, "materialized view %s: the printed shared plan does not parse back to itself: %q reads back as %q", obj.Name, orig, again)
	}
	obj.Plan, obj.Deps = text, mergeIDs(obj.Deps, used)
	obj.RowKey = groupKey(back)
	obj.ownKey = ownKeyOf(obj) // the catalog computed it before the key was known
	if len(e.rowsSeen) > 0 {
		obj.PlanRows = maps.Clone(e.rowsSeen)
	}
	return nil
}

// keyViewsByGroup is false only in a test that makes views as older
// versions did (multisets of whole rows), to restart them.
var keyViewsByGroup = true

// groupKey returns the key of the collection of a view with plan: the
// group key columns 0..k-1 when the plan's output is a grouped aggregate
// (a Reduce with a key and aggregates, which outputs one row per group,
// its key columns first), nil otherwise (a multiset of whole rows).
// DISTINCT (no aggregates) gains nothing, its row being its key; EMIT ON
// WINDOW CLOSE is left a multiset.
func groupKey(plan *dataflow.Plan) []int {
	r, ok := plan.Nodes[plan.Output].Op.(dataflow.Reduce)
	if !ok || !keyViewsByGroup || len(r.Key) == 0 || len(r.Aggs) == 0 || r.EmitOnClose {
		return nil
	}
	key := make([]int, len(r.Key))
	for i := range key {
		key[i] = i
	}
	return key
}

// mergeIDs returns the sorted union of two ID lists.
func mergeIDs(a, b []uint64) []uint64 {
	out := append([]uint64(nil), a...)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// hasLoop reports whether plan has a WITH RECURSIVE loop (whose joins
// keep their own state).
func hasLoop(plan *dataflow.Plan) bool {
	for _, n := range plan.Nodes {
		switch n.Op.(type) {
		case dataflow.Variable, dataflow.Fixpoint:
			return true
		}
	}
	return false
}

// sharedIndex finds an arrangement that can serve join input node in,
// whose join key columns are keys: in is a Source of a table or
// materialized view, or an MFP over one that keeps the key columns as
// source columns, and the arrangement's leading columns are those source
// columns in some order, perm (keys[perm[i]] is the i-th leading column).
// The arrangement is the relation's own key order (its primary key, or
// for a relation without one the whole row, column by column), whose id is
// the relation's, or else an index. rows is the relation's size (the join
// then keeps the other side).
func (e *Engine) sharedIndex(cat *Catalog, plan *dataflow.Plan, in int, keys []int, allowed func(uint64) bool) (index uint64, perm []int, rows int, ok bool) {
	src, cols, isSource := sourceKey(plan, in, keys)
	if !isSource || slices.Contains(cols, -1) {
		return 0, nil, 0, false
	}
	obj, c := cat.byID[uint64(src.Collection)], e.colls[uint64(src.Collection)]
	if obj == nil || c == nil || obj.Source != nil && obj.Source.Watermark != nil {
		return 0, nil, 0, false
	}
	own := e.keyOrder(cat, obj.ID)
	if own == nil {
		own = identityCols(len(obj.Columns))
	}
	if perm, ok := prefixPerm(own, cols); ok && (allowed == nil || allowed(obj.ID)) {
		return obj.ID, perm, int(e.collectionSize(obj.ID)), true
	}
	for _, ix := range cat.indexesOf(obj.ID) {
		if allowed != nil && !allowed(ix.ID) {
			continue
		}
		// Only an index over every row whose leading parts are the join
		// columns: a partial index lacks rows, and expression parts are
		// not join keys (joins stay column-only).
		if perm, ok := prefixPerm(ix.Index.Cols, cols); ok && ix.Index.Where == "" {
			return ix.ID, perm, int(e.collectionSize(obj.ID)), true
		}
	}
	return 0, nil, 0, false
}

// uniqueKey reports whether the join key columns keys of input node in
// (a Source or an MFP over one, as sharedIndex accepts) include the
// source relation's whole primary key, so that each key has one row.
func (e *Engine) uniqueKey(cat *Catalog, plan *dataflow.Plan, in int, keys []int) bool {
	src, cols, ok := sourceKey(plan, in, keys)
	if !ok || e.colls[uint64(src.Collection)] == nil {
		return false
	}
	pk := e.keyOrder(cat, uint64(src.Collection))
	if pk == nil {
		return false
	}
	for _, c := range pk {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// keyOrder returns the columns that key the stored rows of relation id
// (nil: the whole row, column by column): its collection's, or under an
// ALTER TABLE's shadow catalog the altered table's new order
// (Catalog.keyOrders), so that a dependent view's stored plan is checked
// against the order its shared arrangements will read. The collection
// must exist.
func (e *Engine) keyOrder(cat *Catalog, id uint64) []int {
	if order, ok := cat.keyOrders[id]; ok {
		return order
	}
	return e.colls[id].KeyCols()
}

// prefixPerm reports whether the distinct columns cols are, in some
// order, the first len(cols) columns of order, and returns that order as
// positions in cols: cols[perm[i]] == order[i].
func prefixPerm(order, cols []int) ([]int, bool) {
	if len(cols) == 0 || len(cols) > len(order) {
		return nil, false
	}
	perm := make([]int, len(cols))
	for i, c := range order[:len(cols)] {
		j := slices.Index(cols, c)
		if j < 0 || slices.Contains(perm[:i], j) {
			return nil, false
		}
		perm[i] = j
	}
	return perm, true
}

// identityCols returns 0..n-1.
func identityCols(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// permute returns keys reordered by perm (keys[perm[0]], keys[perm[1]], ...).
func permute(keys, perm []int) []int {
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = keys[p]
	}
	return out
}

// storedShared returns the arrangements (index or relation ids) that the
// shared joins of a stored plan text read; none if it does not parse.
func storedShared(text string) []uint64 {
	plan, err := dataflow.Parse(text)
	if text == "" || err != nil {
		return nil
	}
	var out []uint64
	for _, n := range plan.Nodes {
		if j, ok := n.Op.(dataflow.Join); ok && j.Shared != nil {
			out = append(out, j.Shared.Index)
		}
		if r, ok := n.Op.(dataflow.Reduce); ok && r.Shared != nil {
			out = append(out, r.Shared.Index)
		}
		if dj, ok := n.Op.(dataflow.DeltaJoin); ok {
			out = append(out, deltaShared(dj)...)
		}
	}
	return out
}

// deltaShared returns the shared arrangements a DeltaJoin reads.
func deltaShared(dj dataflow.DeltaJoin) []uint64 {
	var out []uint64
	for _, p := range dj.Paths {
		for _, l := range p {
			if l.Shared != 0 && !slices.Contains(out, l.Shared) {
				out = append(out, l.Shared)
			}
		}
	}
	return out
}

// hasDeltaJoin reports whether the stored plan text has a DeltaJoin.
func hasDeltaJoin(text string) bool {
	plan, err := dataflow.Parse(text)
	if text == "" || err != nil {
		return false
	}
	return slices.ContainsFunc(plan.Nodes, func(n dataflow.Node) bool {
		_, ok := n.Op.(dataflow.DeltaJoin)
		return ok
	})
}

// sharedCollections returns the collections of plan's shared join inputs.
func sharedCollections(plan *dataflow.Plan) []repr.CollectionID {
	var out []repr.CollectionID
	for _, n := range plan.Nodes {
		if j, ok := n.Op.(dataflow.Join); ok && j.Shared != nil {
			if src, ok := sourceOf(plan, n.Inputs[j.Shared.Side]); ok {
				out = append(out, src.Collection)
			}
		}
	}
	return out
}

// sourceKey returns the Source that join input node in reads (it is the
// Source, or an MFP over one) and the input's key columns keys as that
// Source's columns (-1 for a column the MFP computes).
func sourceKey(plan *dataflow.Plan, in int, keys []int) (dataflow.Source, []int, bool) {
	src, ok := sourceOf(plan, in)
	if !ok {
		return src, nil, false
	}
	m, isMFP := plan.Nodes[in].Op.(dataflow.MFP)
	if !isMFP {
		return src, slices.Clone(keys), true
	}
	width := len(plan.Nodes[plan.Nodes[in].Inputs[0]].Types)
	cols := make([]int, len(keys))
	for i, k := range keys {
		if cols[i] = m.Project[k]; cols[i] >= width {
			cols[i] = -1
		}
	}
	return src, cols, true
}

// sourceOf returns the Source that node in is, or that the MFP node in
// reads.
func sourceOf(plan *dataflow.Plan, in int) (dataflow.Source, bool) {
	n := plan.Nodes[in]
	if _, ok := n.Op.(dataflow.MFP); ok {
		n = plan.Nodes[n.Inputs[0]]
	}
	src, ok := n.Op.(dataflow.Source)
	return src, ok
}

// onlyShared returns the collections of plan that feed nothing but
// shared join inputs (directly or through an MFP read by nothing else):
// an ad hoc query need not read them at all, as their changes (the whole
// snapshot) would meet only the other sides' empty arrangements.
func onlyShared(plan *dataflow.Plan) map[repr.CollectionID]bool {
	consumers := make([][]int, len(plan.Nodes))
	for i, n := range plan.Nodes {
		for _, in := range n.Inputs {
			consumers[in] = append(consumers[in], i)
		}
	}
	// sharedInput: node is consumer's shared input and not also its
	// private one (a self-join reads the same node on both sides).
	sharedInput := func(node, consumer int) bool {
		j, ok := plan.Nodes[consumer].Op.(dataflow.Join)
		ins := plan.Nodes[consumer].Inputs
		return ok && j.Shared != nil && ins[j.Shared.Side] == node && ins[1-j.Shared.Side] != node
	}
	out := map[repr.CollectionID]bool{}
	bad := map[repr.CollectionID]bool{}
	for i, n := range plan.Nodes {
		src, ok := n.Op.(dataflow.Source)
		if !ok {
			continue
		}
		fine := i != plan.Output && len(consumers[i]) > 0
		for _, c := range consumers[i] {
			_, isMFP := plan.Nodes[c].Op.(dataflow.MFP)
			viaMFP := isMFP && c != plan.Output && len(consumers[c]) == 1 && sharedInput(c, consumers[c][0])
			fine = fine && (sharedInput(i, c) || viaMFP)
		}
		if fine {
			out[src.Collection] = true
		} else {
			bad[src.Collection] = true
		}
	}
	for id := range bad {
		delete(out, id)
	}
	return out
}

// arrangements serves exec's shared joins from the engine's indexes
// (exec.Arrangements). Lookups run under the caller's hold of e.mu.
type arrangements struct{ e *Engine }

// Lookup implements exec.Arrangements.
func (a arrangements) Lookup(index uint64, key []byte, d *repr.ColDecoder, fn func(repr.Row, int64) bool) error {
	o := a.e.cat.byID[index]
	if o != nil && o.Index == nil && a.e.colls[index] != nil {
		// The relation's own key order.
		a.e.colls[index].ScanPrefixColsShared(key, d, fn)
		return nil
	}
	if o == nil || o.Index == nil || a.e.colls[o.Index.Table] == nil {
		return storage.ErrNoIndex
	}
	return a.e.colls[o.Index.Table].ScanIndexCols(index, key, storage.KeyPrefixEnd(key), d, fn)
}

// describeShared prints the shared joins of plan for EXPLAIN, e.g.
// `%3 Join reads %2 from index t_a_idx (shared arrangement)`. The caller
// holds e.mu.
func (e *Engine) describeShared(plan *dataflow.Plan) []string {
	var out []string
	for i, n := range plan.Nodes {
		if dj, ok := n.Op.(dataflow.DeltaJoin); ok {
			out = append(out, e.describeDelta(plan, i, n, dj)...)
		}
		if r, ok := n.Op.(dataflow.Reduce); ok && r.Shared != nil {
			out = append(out, "%"+strconv.Itoa(i)+" Reduce reads its groups of %"+strconv.Itoa(n.Inputs[0])+" from "+e.arrangementName(r.Shared.Index)+" (shared arrangement, no state)")
		}
		j, ok := n.Op.(dataflow.Join)
		if !ok || j.Shared == nil {
			continue
		}
		out = append(out, "%"+strconv.Itoa(i)+" Join reads %"+strconv.Itoa(n.Inputs[j.Shared.Side])+" from "+e.arrangementName(j.Shared.Index)+" (shared arrangement)")
	}
	return out
}

// arrangementName names a shared arrangement for EXPLAIN: "index t_a_idx"
// or "t's own rows". The caller holds e.mu.
func (e *Engine) arrangementName(id uint64) string {
	if o := e.cat.byID[id]; o != nil && o.Index != nil {
		return "index " + o.Name
	} else if o != nil {
		return o.Name + "'s own rows"
	}
	return "index " + strconv.FormatUint(id, 10)
}

// describeDelta prints, for EXPLAIN, each arrangement a DeltaJoin (node
// i) looks its inputs up in, once: `%6 DeltaJoin looks up %3 by #0 in
// ord's own rows (shared arrangement)`, `... in %4's arrangement (shared
// in the view)` (an earlier delta join's), `... in %4's groups (shared in
// the view)` (a Reduce's) or `... in its own arrangement`.
func (e *Engine) describeDelta(plan *dataflow.Plan, i int, n dataflow.Node, dj dataflow.DeltaJoin) []string {
	var out []string
	for _, p := range dj.Paths {
		for _, l := range p {
			where := "its own arrangement"
			if l.Shared != 0 {
				where = e.arrangementName(l.Shared) + " (shared arrangement)"
			} else if l.Borrow != 0 {
				where = fmt.Sprintf("%%%d's %s (shared in the view)", l.Borrow, borrowedState(plan, l.Borrow))
			}
			s := fmt.Sprintf("%%%d DeltaJoin looks up %%%d by %s in %s", i, n.Inputs[l.Input], fmtCols(l.Cols), where)
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// fmtCols prints columns as #a, #b.
func fmtCols(cols []int) string {
	s := make([]string, len(cols))
	for k, c := range cols {
		s[k] = "#" + strconv.Itoa(c)
	}
	return strings.Join(s, ", ")
}
