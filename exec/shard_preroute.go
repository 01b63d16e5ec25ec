package exec

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// Routing before a fan-out. An exchange commutes with a row-wise
// expansion that copies the exchange's key columns unchanged from its
// input: every output row of an input row carries that row's key values,
// so routing the input rows by those columns and expanding each part sends
// every output row to the shard that routing the output would have, and
// each key's rows still arrive in input order (the expansion maps rows in
// order, and a part keeps its input's order). HOP's fan-out (a Union of
// one MFP per window a row is in, fused: mfp_fanout.go) so expands each
// bid into five window rows; a grouped Reduce after it by (auction,
// window_start) exchanges five rows per bid, where routing the bid by
// auction once, before the expansion, does the same partition with a
// fifth of the key encodings, hashes and copies.
//
// The rule fires for a sharded grouped Reduce (windowed or not) whose
// input is a fused fan-out's Union read only by it and not co-partitioned
// otherwise, when some of its group columns are copied unchanged by every
// branch from one column of the fan-out's input (through the absorbed
// MFP X too): the Reduce's shards are partitioned by those columns (a
// refined key, shard_refine.go, or its whole key when every group column
// is copied), and the fan-out's node routes its input by the same columns
// into one part per shard before its instances run (partedRun.route), so
// the Reduce takes part k as shard k's input without an exchange
// (shard_copart.go's test at every Step: a Step whose fan-out ran whole is
// exchanged as usual). It does not fire when the group key's copied
// columns are none (only window_start/window_end: computed, not copied),
// or the key cannot be cut (repr.KeyDelimits).
//
// Determinism: each group's rows reach its shard in input order, so state
// and outputs per group are the single operator's; the fan-out's parts'
// concatenation is a permutation of its output, read by the Reduce only.
// A failing part is run again whole, so the Step's error is that of the
// first failing row in input order.

// preRoute is how a fan-out's node routes its input: by the encoding of
// cols of each input row, which is the encoding of the key of the rows it
// expands into, as sharded node node computes it.
type preRoute struct {
	cols []int
	node int
	// xb[j][k] is what input part j sends to part k.
	xb   [][][]repr.Update
	kbuf [][]byte
}

// preRouteTarget returns the fan-out node b0 feeding sharded grouped
// Reduce i (via its Union), the refined key of r over the columns the
// branches copy (nil: the whole key), and the input columns of b0's
// input rows those columns are copied from, in refined-key order; ok is
// false when the rule does not apply (see above).
func (d *Dataflow) preRouteTarget(i int, r *reduceOp, readers []int) (b0 int, ref *refinedKey, src []int, ok bool) {
	u := d.plan.Nodes[i].Inputs[0]
	if _, isPass := d.ops[u].(passFirst); !isPass || readers[u] != 1 {
		return 0, nil, nil, false
	}
	if _, isUnion := d.plan.Nodes[u].Op.(dataflow.Union); !isUnion {
		return 0, nil, nil, false
	}
	b0 = d.plan.Nodes[u].Inputs[0]
	f, isFan := d.ops[b0].(*fanoutOp)
	if !isFan || d.par == nil || d.par.ops[b0] == nil {
		return 0, nil, nil, false
	}
	var cols []int
	for _, c := range r.spec.Key {
		if s := f.copiedFrom(d, c); s >= 0 {
			cols, src = append(cols, c), append(src, s)
		}
	}
	if len(cols) == 0 {
		return 0, nil, nil, false
	}
	if !slices.Equal(cols, r.spec.Key) {
		if ref = d.refinable(r, cols, d.plan.Nodes[u].Types); ref == nil {
			return 0, nil, nil, false
		}
	}
	return b0, ref, src, true
}

// copiedFrom returns the column of the fan-out's input (X's input when X
// is absorbed) that every branch copies unchanged into its output column
// c, or -1 when some branch computes it or they copy different columns.
func (f *fanoutOp) copiedFrom(d *Dataflow, c int) int {
	x := f.prefixNode
	nx := len(d.plan.Nodes[x].Types)
	from := -1
	for _, b := range f.nodes {
		m := d.plan.Nodes[b].Op.(dataflow.MFP)
		if c >= len(m.Project) || m.Project[c] >= nx || (from >= 0 && m.Project[c] != from) {
			return -1
		}
		from = m.Project[c]
	}
	if f.prefix == nil {
		return from
	}
	m := d.plan.Nodes[x].Op.(dataflow.MFP)
	nin := len(d.plan.Nodes[d.plan.Nodes[x].Inputs[0]].Types)
	if from >= len(m.Project) || m.Project[from] >= nin {
		return -1
	}
	return m.Project[from]
}

// preRoute applies the rule to sharded node i when it is a grouped
// Reduce that refineKeys left unrefined: it sets the Reduce's refined key
// (when not the whole key), marks its input as routed for it (shard sets
// its co-partition source to itself) and gives its fan-out's node the
// route; it reports whether the rule fired.
func (d *Dataflow) preRoute(i int, sh map[int]*shardedOp, readers []int) bool {
	r := reduceOf(sh[i].key)
	if r == nil || r.global || r.refine != nil {
		return false
	}
	b0, ref, src, ok := d.preRouteTarget(i, r, readers)
	if !ok {
		return false
	}
	if ref != nil {
		for _, s := range sh[i].shards {
			reduceOf(s.op).refine = ref
		}
		sh[i].passKeys = false
	}
	d.par.route[b0] = &preRoute{cols: src, node: i}
	sh[i].routed = true
	return true
}

// reduceOf returns the grouped Reduce op is or wraps (nil: none).
func reduceOf(op operator) *reduceOp {
	switch o := op.(type) {
	case *reduceOp:
		return o
	case *windowReduce:
		return o.reduceOp
	}
	return nil
}

// routeParts partitions parts (whose concatenation is the input) into n
// parts by the hash of each update's key columns: part k holds, in input
// order, the updates whose key hashes to k. Each input part is routed on
// its own goroutine, then each output part gathered on its own.
func (p *preRoute) routeParts(parts [][]repr.Update, n int) (out [][]repr.Update, err error) {
	for len(p.xb) < len(parts) {
		p.xb = append(p.xb, make([][]repr.Update, n))
		p.kbuf = append(p.kbuf, nil)
	}
	errs := make([]error, len(parts))
	parallel(len(parts), func(j int) { errs[j] = p.route(j, parts[j], n) })
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	out = make([][]repr.Update, n)
	parallel(n, func(k int) {
		size := 0
		for j := range parts {
			size += len(p.xb[j][k])
		}
		out[k] = make([]repr.Update, 0, size)
		for j := range parts {
			out[k] = append(out[k], p.xb[j][k]...)
			clear(p.xb[j][k])
			if int64(cap(p.xb[j][k]))*updateBytes > shardKeepBytes {
				p.xb[j][k] = nil
			} else {
				p.xb[j][k] = p.xb[j][k][:0]
			}
		}
	})
	return out, nil
}

// route sends input part j's updates to its buckets p.xb[j].
func (p *preRoute) route(j int, us []repr.Update, n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("dataflow exchange panicked: %v", r)
		}
	}()
	bs := p.xb[j]
	for _, u := range us {
		p.kbuf[j] = repr.AppendColsKey(p.kbuf[j][:0], u.Row, p.cols)
		k := shardOf(p.kbuf[j], n)
		bs[k] = append(bs[k], u)
	}
	return nil
}
