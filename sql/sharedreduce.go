package sql

import (
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
)

// shareReduces returns plan with every grouped Reduce that can read its
// groups from a table's own primary-key order marked to do so
// (dataflow.Reduce.Shared, exec's sharedReduce), and the arrangements
// used; allowed filters them (nil: any). The Reduce must read the table
// directly or through one MFP, and its key columns must be, in some
// order, the leading columns of the primary key: TPC-H Q18's
// sum(l_quantity) GROUP BY l_orderkey reads lineitem's (l_orderkey,
// l_linenumber) order and keeps no group of its own (150,000 at SF 0.1).
// Each Step then reads every touched group's rows, so only a key order
// is used, whose groups are as small as the rows sharing a key prefix;
// an index (whose key may be a column of few values) is not. Only
// materialized views are marked: an ad hoc query's one Step aggregates
// its whole input anyway. The caller holds e.mu.
func (e *Engine) shareReduces(cat *Catalog, plan *dataflow.Plan, allowed func(uint64) bool) (*dataflow.Plan, []uint64) {
	if disableSharedJoins || hasLoop(plan) {
		return plan, nil
	}
	var out *dataflow.Plan
	var used []uint64
	for i, n := range plan.Nodes {
		r, ok := n.Op.(dataflow.Reduce)
		if !ok || len(r.Key) == 0 || r.EmitOnClose || r.AppendOnly || r.Shared != nil {
			continue
		}
		id, perm, ok := e.keyOrderOf(cat, plan, n.Inputs[0], r.Key, allowed)
		if !ok {
			continue
		}
		if out == nil {
			cp := *plan
			cp.Nodes = slices.Clone(plan.Nodes)
			out = &cp
		}
		r.Shared = &dataflow.SharedGroups{Index: id, Cols: permute(r.Key, perm)}
		out.Nodes[i].Op = r
		if !slices.Contains(used, id) {
			used = append(used, id)
		}
	}
	if out == nil {
		return plan, nil
	}
	return out, used
}

// keyOrderOf returns the table whose primary-key order input node in (a
// Source or an MFP over one) reads, when keys are, in some order, its
// leading columns, and the permutation of keys into that order.
func (e *Engine) keyOrderOf(cat *Catalog, plan *dataflow.Plan, in int, keys []int, allowed func(uint64) bool) (uint64, []int, bool) {
	in, keys, ok := belowMFPs(plan, in, keys)
	if !ok {
		return 0, nil, false
	}
	src, cols, isSource := sourceKey(plan, in, keys)
	if !isSource || slices.Contains(cols, -1) {
		return 0, nil, false
	}
	obj, c := cat.byID[uint64(src.Collection)], e.colls[uint64(src.Collection)]
	if obj == nil || c == nil || obj.Source != nil || !cat.isTable(src.Collection) || allowed != nil && !allowed(obj.ID) {
		return 0, nil, false
	}
	own := e.keyOrder(cat, obj.ID)
	if own == nil && allowed != nil {
		// Checking a stored plan (allowed: its arrangements) against a
		// table whose primary key was dropped: the whole row's order
		// still serves groups led by its first columns. New plans do
		// not read it (a group could be most of the table).
		own = identityCols(len(obj.Columns))
	}
	if own == nil {
		return 0, nil, false
	}
	perm, ok := prefixPerm(own, cols)
	return obj.ID, perm, ok
}

// belowMFPs follows input node in down a chain of MFPs to the last one
// (whose input is not an MFP), returning it and keys as its columns; not
// ok when a key column is computed on the way.
func belowMFPs(plan *dataflow.Plan, in int, keys []int) (int, []int, bool) {
	for {
		m, ok := plan.Nodes[in].Op.(dataflow.MFP)
		if !ok {
			return in, keys, true
		}
		below := plan.Nodes[in].Inputs[0]
		if _, isMFP := plan.Nodes[below].Op.(dataflow.MFP); !isMFP {
			return in, keys, true
		}
		next := make([]int, len(keys))
		for i, k := range keys {
			if next[i] = m.Project[k]; next[i] >= len(plan.Nodes[below].Types) {
				return 0, nil, false
			}
		}
		in, keys = below, next
	}
}

// storedSharedReduce reports whether a stored plan text has a Reduce
// reading a shared arrangement (so re-planning it may share Reduces).
func storedSharedReduce(text string) bool {
	plan, err := dataflow.Parse(text)
	if text == "" || err != nil {
		return false
	}
	return slices.ContainsFunc(plan.Nodes, func(n dataflow.Node) bool {
		r, ok := n.Op.(dataflow.Reduce)
		return ok && r.Shared != nil
	})
}
