package exec

import (
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
)

// Co-partitioned inputs: no re-exchange between sharded nodes keyed by
// the same key. When a sharded node's input is, through projections only,
// the output of another sharded node whose shard k emits only rows whose
// key (as this node encodes it) hashes to k, this node's shard k takes
// that node's part k as it is: the exchange would route every update of
// part k to shard k anyway. q9's TopK by auction after the join on
// auction, q5's join on the window after the max per window are so.
//
// The test is static (copartition, at build) and checked again at every
// Step (the parts must be that node's shards' outputs, not a split by
// position: partedRun.keyedBy), so that a Step whose chain ran whole
// exchanges as usual.

// keyColumns returns the input columns of input in whose encoding
// (repr.AppendColsKey) is op's inputKey, nil when op keys otherwise.
func keyColumns(op operator, in int) []int {
	switch o := op.(type) {
	case *reduceOp:
		if o.refine != nil {
			return o.refine.cols
		}
		return o.spec.Key
	case *windowReduce:
		if o.refine != nil {
			return o.refine.cols
		}
		return o.spec.Key
	case *topkOp:
		return o.spec.Key
	case *windowTopK:
		return o.spec.Key
	case *joinOp:
		return o.sides[in].keyCols
	case *windowJoin:
		return o.sides[in].keyCols
	case *intervalJoin:
		return o.sides[in].keyCols
	case *appendJoin:
		return o.sides[in].keyCols
	}
	return nil
}

// keyOutput returns the output columns of plan node op (keyed as exec
// operator x) that hold its key columns, in key order, on every output
// row: a Reduce's first columns (those of its refined key, if it has one),
// a TopK's key columns, an inner or left join's left key columns; nil when
// there are none such.
func keyOutput(op dataflow.Op, x operator) []int {
	switch p := op.(type) {
	case dataflow.Reduce:
		if r := reduceOf(x); r != nil && r.refine != nil {
			return r.refine.pos
		}
		out := make([]int, len(p.Key))
		for i := range out {
			out[i] = i
		}
		return out
	case dataflow.TopK:
		return p.Key
	case dataflow.Join:
		if p.Kind == dataflow.InnerJoin || p.Kind == dataflow.LeftJoin {
			return keyColumns(x, 0)
		}
	}
	return nil
}

// copartition returns, per input of sharded node i, the sharded node
// whose shards' outputs are partitioned as node i's shards want it (-1:
// none), following the input through MFPs that project the key columns
// unchanged.
func (d *Dataflow) copartition(i int, sharded map[int]*shardedOp) []int {
	node := d.plan.Nodes[i]
	from := make([]int, len(node.Inputs))
	for x, j := range node.Inputs {
		from[x] = d.keyedFrom(j, keyColumns(sharded[i].key, x), sharded)
	}
	return from
}

// keyedFrom returns the sharded node whose shards emit, as node j's
// output, rows whose columns cols encode that node's key (-1: none).
func (d *Dataflow) keyedFrom(j int, cols []int, sharded map[int]*shardedOp) int {
	for len(cols) > 0 {
		if u, ok := sharded[j]; ok {
			out := keyOutput(d.plan.Nodes[j].Op, u.key)
			if len(out) == len(cols) && slices.Equal(out, cols) {
				return j
			}
			return -1
		}
		m, ok := d.plan.Nodes[j].Op.(dataflow.MFP)
		if !ok || !perRow(d.ops[j]) {
			return -1
		}
		in := d.plan.Nodes[d.plan.Nodes[j].Inputs[0]].Types
		next := make([]int, len(cols))
		for k, c := range cols {
			if c >= len(m.Project) || m.Project[c] >= len(in) {
				return -1
			}
			next[k] = m.Project[c]
		}
		cols, j = next, d.plan.Nodes[j].Inputs[0]
	}
	return -1
}
