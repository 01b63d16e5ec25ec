package exec

import (
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// Refined keys: a grouped Reduce whose input is, through projections, a
// sharded node's output keyed by some of the Reduce's group columns is
// partitioned by those columns instead of the whole group key, so it
// takes that node's parts without an exchange (shard_copart.go). q4's max
// per (auction id, category) after the join on auction id is so.
//
// Correct for any grouped Reduce: its state and output for a group depend
// only on that group's updates, and all rows of a group agree on the
// columns, so each group still lives in one shard and sees its updates
// in input order. The group keys and the stored state are unchanged (the
// same bytes for every n); only which shard holds a group changes, and a
// restore finds it from the logged group key (fromGroupKey), so a restart
// may change n. The choice is static, made from the plan at build, so
// every build of one plan partitions alike.
//
// Only when the group key columns up to the last one used are of
// families whose key encoding can be delimited (repr.KeyDelimits):
// fromGroupKey cuts the shard key out of the encoded group key.

// refinedKey is the part of a Reduce's group key its shards are
// partitioned by.
type refinedKey struct {
	// cols are the input columns, in the upstream node's key order (the
	// encoding its shards hash); pos are their positions in the group
	// key (and so in the Reduce's output).
	cols, pos []int
	// fams are the families of the group key's first max(pos)+1 columns.
	fams []repr.Family
}

// fromGroupKey returns the encoding of the refined key's columns, in
// order, cut from a group key's encoding.
func (r *refinedKey) fromGroupKey(gk []byte) ([]byte, error) {
	ends := make([]int, len(r.fams))
	rest := gk
	for i, f := range r.fams {
		var err error
		if rest, err = repr.SkipKeyDatum(rest, f); err != nil {
			return nil, errCorrupt
		}
		ends[i] = len(gk) - len(rest)
	}
	var out []byte
	for _, p := range r.pos {
		start := 0
		if p > 0 {
			start = ends[p-1]
		}
		out = append(out, gk[start:ends[p]]...)
	}
	return out, nil
}

// refineKeys refines the keys of sh's grouped Reduces (windowed too)
// where it saves an exchange, or routes their input before a fan-out
// (shard_preroute.go), in node order, so that a Reduce after a refined one sees its
// refined output key (keyOutput).
func (d *Dataflow) refineKeys(sh map[int]*shardedOp) {
	nodes := make([]int, 0, len(sh))
	for i := range sh {
		nodes = append(nodes, i)
	}
	slices.Sort(nodes)
	readers := consumers(d.plan)
	for _, i := range nodes {
		r := reduceOf(sh[i].key)
		if r == nil || r.global {
			continue
		}
		in := d.plan.Nodes[i].Inputs[0]
		ref := d.refinable(r, d.keyedCols(in, sh), d.plan.Nodes[in].Types)
		if ref == nil {
			d.preRoute(i, sh, readers)
			continue
		}
		for _, s := range sh[i].shards {
			reduceOf(s.op).refine = ref
		}
		// The partition's keys are the refined key's, not the group's.
		sh[i].passKeys = false
	}
}

// refinable returns the refined key of r over input columns cols (an
// upstream node's key, nil: none), or nil when cols is r's whole key in
// order (no refinement needed), a column is not in the group key, or the
// group key cannot be cut.
func (d *Dataflow) refinable(r *reduceOp, cols []int, types []repr.T) *refinedKey {
	if len(cols) == 0 || slices.Equal(cols, r.spec.Key) {
		return nil
	}
	ref := &refinedKey{cols: cols}
	last := 0
	for _, c := range cols {
		p := slices.Index(r.spec.Key, c)
		if p < 0 {
			return nil
		}
		ref.pos = append(ref.pos, p)
		last = max(last, p)
	}
	for _, c := range r.spec.Key[:last+1] {
		f := types[c].Family
		if !repr.KeyDelimits(f) {
			return nil
		}
		ref.fams = append(ref.fams, f)
	}
	return ref
}

// keyedCols returns the columns of node j's output that hold, on every
// row, the key of the sharded node whose shards emit them (through MFPs
// that project those columns unchanged), in that node's key order; nil
// when there is no such node.
func (d *Dataflow) keyedCols(j int, sh map[int]*shardedOp) []int {
	if u, ok := sh[j]; ok {
		return keyOutput(d.plan.Nodes[j].Op, u.key)
	}
	m, ok := d.plan.Nodes[j].Op.(dataflow.MFP)
	if !ok || !perRow(d.ops[j]) || len(d.plan.Nodes[j].Inputs) != 1 {
		return nil
	}
	up := d.keyedCols(d.plan.Nodes[j].Inputs[0], sh)
	if up == nil {
		return nil
	}
	out := make([]int, len(up))
	for k, c := range up {
		if out[k] = slices.Index(m.Project, c); out[k] < 0 {
			return nil
		}
	}
	return out
}
