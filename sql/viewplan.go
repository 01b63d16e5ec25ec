package sql

import (
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// isTable reports whether collection id is a table of cat (not a source,
// view or system relation).
func (c *Catalog) isTable(id repr.CollectionID) bool {
	o := c.byID[uint64(id)]
	return o != nil && o.Kind == planner.RelTable
}

// isolateSources returns plan with an MFP that keeps every column between
// each Source of a table (table reports which collections are tables:
// sources and views are never altered that way) and each consumer that is
// not an MFP or a Reduce (a join, a top-k, a union, ...), so that every
// operator reads a table through one that picks its columns by position. A materialized view's
// stored plan then survives ALTER TABLE ADD COLUMN on any table it reads
// (widenedOnly): the MFP reads only the columns it was made with, while a
// join reading the Source itself would hold rows of the old width. It
// returns plan itself when no Source needs it. Node order stays
// topological: each new MFP follows its Source.
func isolateSources(plan *dataflow.Plan, table func(repr.CollectionID) bool) *dataflow.Plan {
	needs := make([]bool, len(plan.Nodes))
	found := false
	for _, n := range plan.Nodes {
		switch n.Op.(type) {
		case dataflow.MFP, dataflow.Reduce:
			continue
		}
		for _, in := range n.Inputs {
			if src, ok := plan.Nodes[in].Op.(dataflow.Source); ok && table(src.Collection) {
				needs[in], found = true, true
			}
		}
	}
	if !found {
		return plan
	}
	out := &dataflow.Plan{}
	pos := make([]int, len(plan.Nodes)) // old node -> new node
	via := make([]int, len(plan.Nodes)) // Source -> its MFP's new node
	for i, n := range plan.Nodes {
		n.Inputs = slices.Clone(n.Inputs)
		_, isMFP := n.Op.(dataflow.MFP)
		_, isReduce := n.Op.(dataflow.Reduce)
		for k, in := range n.Inputs {
			if needs[in] && !isMFP && !isReduce {
				n.Inputs[k] = via[in]
			} else {
				n.Inputs[k] = pos[in]
			}
		}
		pos[i] = len(out.Nodes)
		out.Nodes = append(out.Nodes, n)
		if needs[i] {
			via[i] = len(out.Nodes)
			all := make([]int, len(n.Types))
			for c := range all {
				all[c] = c
			}
			out.Nodes = append(out.Nodes, dataflow.Node{Op: dataflow.MFP{Project: all}, Inputs: []int{pos[i]}, Types: n.Types})
		}
	}
	out.Output = pos[plan.Output]
	return out
}
