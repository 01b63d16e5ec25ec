package sql

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
)

// arrangedInput names a private arrangement of a delta join: the input
// node it arranges and its key (columns of that node, printed).
type arrangedInput struct {
	node int
	cols string
}

// borrowArrangements returns plan with every private lookup of a delta
// join that another operator of the plan already keeps marked to read
// that operator's state (DeltaLookup.Borrow) instead of keeping a copy:
// differential dataflow's arrangements shared between the operators of
// one dataflow. Two kinds: an input read from a grouped Reduce (the
// Reduce or an MFP over it keeping the key) looked up by its whole group
// key reads the Reduce's groups (groupsLookup; TPC-H Q20's sums by
// (ps_partkey, ps_suppkey) were kept by the Reduce and again by the delta
// join above it); an input node arranged by the same key columns, in
// order, by an earlier delta join reads that one's arrangement (TPC-H
// Q21's decorrelated EXISTS and its outer query both arrange the late
// lineitems of finished orders by supplier). Nothing changes (plan itself is returned)
// when no two delta joins keep the same arrangement, or when the plan has
// a loop (whose nodes step several times per Step). Run it last: the
// borrow names a node by its position in the final plan.
func borrowArrangements(plan *dataflow.Plan) *dataflow.Plan {
	if hasLoop(plan) {
		return plan
	}
	owner := map[arrangedInput]int{}
	var out *dataflow.Plan
	for i, n := range plan.Nodes {
		dj, ok := n.Op.(dataflow.DeltaJoin)
		if !ok {
			continue
		}
		dj, changed := borrowLookups(plan, i, dj, owner)
		if !changed {
			continue
		}
		if out == nil {
			out = &dataflow.Plan{Nodes: slices.Clone(plan.Nodes), Output: plan.Output}
		}
		out.Nodes[i].Op = dj
	}
	if out == nil {
		return plan
	}
	return out
}

// borrowLookups marks the private lookups of delta join dj (node i of
// plan) whose arrangement an earlier delta join keeps (in owner) as
// borrowed, and records in owner the arrangements dj itself keeps. The
// paths are copied when any lookup changes.
func borrowLookups(plan *dataflow.Plan, i int, dj dataflow.DeltaJoin, owner map[arrangedInput]int) (dataflow.DeltaJoin, bool) {
	n := plan.Nodes[i]
	widths := make([]int, len(n.Inputs))
	for k, in := range n.Inputs {
		widths[k] = len(plan.Nodes[in].Types)
	}
	off, _ := dataflow.Offsets(widths)
	keyOf := func(l dataflow.DeltaLookup) arrangedInput {
		rel := make([]int, len(l.Cols))
		for k, c := range l.Cols {
			rel[k] = c - off[l.Input]
		}
		return arrangedInput{n.Inputs[l.Input], fmt.Sprint(rel)}
	}
	changed := false
	var mine []arrangedInput
	paths := make([][]dataflow.DeltaLookup, len(dj.Paths))
	for p, path := range dj.Paths {
		paths[p] = slices.Clone(path)
		for k, l := range path {
			if l.Shared != 0 || l.Borrow != 0 {
				continue
			}
			key := keyOf(l)
			if r, order, ok := groupsLookup(plan, key.node, l.Cols, off[l.Input]); ok {
				nl := &paths[p][k]
				nl.Borrow, changed = r, true
				nl.From, nl.Cols = permute(l.From, order), permute(l.Cols, order)
			} else if o, ok := owner[key]; ok {
				paths[p][k].Borrow, changed = o, true
			} else if !slices.Contains(mine, key) {
				mine = append(mine, key)
			}
		}
	}
	for _, key := range mine {
		owner[key] = i
	}
	if changed {
		dj.Paths = paths
	}
	return dj, changed
}

// groupsLookup returns the grouped Reduce node whose groups can serve a
// lookup of input node in by output columns cols (of a delta join whose
// input starts at column off), and the order of cols that lists the
// group key in key order: in is a Reduce with a group key, not shared and
// not emitting on close, or an MFP over one, and cols are, in some order,
// the Reduce's whole group key (through the MFP's projection).
func groupsLookup(plan *dataflow.Plan, in int, cols []int, off int) (int, []int, bool) {
	r, proj := in, []int(nil)
	if m, ok := plan.Nodes[in].Op.(dataflow.MFP); ok {
		r, proj = plan.Nodes[in].Inputs[0], m.Project
	}
	red, ok := plan.Nodes[r].Op.(dataflow.Reduce)
	if !ok || len(red.Key) == 0 || red.Shared != nil || red.EmitOnClose || len(cols) != len(red.Key) {
		return 0, nil, false
	}
	order := make([]int, len(cols))
	seen := make([]bool, len(cols))
	for k, c := range cols {
		c -= off
		if proj != nil {
			c = proj[c]
		}
		if c < 0 || c >= len(cols) || seen[c] {
			return 0, nil, false
		}
		seen[c], order[c] = true, k
	}
	return r, order, true
}

// hasBorrow reports whether the printed plan text has a delta join that
// borrows another's arrangement (ALTER's re-planning borrows only then).
func hasBorrow(text string) bool {
	plan, err := dataflow.Parse(text)
	if text == "" || err != nil {
		return false
	}
	for _, n := range plan.Nodes {
		if dj, ok := n.Op.(dataflow.DeltaJoin); ok {
			for _, path := range dj.Paths {
				for _, l := range path {
					if l.Borrow != 0 {
						return true
					}
				}
			}
		}
	}
	return false
}

// borrowedState names, for EXPLAIN, what a lookup borrowing node b of
// plan reads: a Reduce's "groups" or a delta join's "arrangement".
func borrowedState(plan *dataflow.Plan, b int) string {
	if b < len(plan.Nodes) {
		if _, ok := plan.Nodes[b].Op.(dataflow.Reduce); ok {
			return "groups"
		}
	}
	return "arrangement"
}
