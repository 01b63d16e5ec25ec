package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// wmRuntime derives the watermarks of every node of a Dataflow during a
// Step (see watermark.go) and keeps the output's between Steps.
type wmRuntime struct {
	nodes []*wmNode
	// static[i][c] is 0 if column c of node i carries a watermark once
	// every event-time source has one, NoWatermark if it never does.
	static [][]int64
	// vals[i] are node i's output watermarks in the current Step.
	vals [][]int64
	ins  [][]int64
	// out are the output node's watermarks after the last Step, prevOut
	// before it (restored by Rollback).
	out, prevOut []int64
	// off disables watermarks for plans without event-time sources (they
	// would all be NoWatermark) and for hand-built plans whose column
	// types are not all given.
	off bool
}

// initWatermarks checks the event-time columns, computes which columns
// carry watermarks, and wraps the Reduces and Joins whose state a
// watermark bounds (windowReduce, windowJoin).
func (d *Dataflow) initWatermarks() error {
	p, w := d.plan, &d.wm
	if !usesEventTime(p) {
		w.off = true
		return nil
	}
	if err := checkWidths(p); err != nil {
		return fmt.Errorf("dataflow: %w", err)
	}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		var in [][]repr.T
		for _, j := range n.Inputs {
			in = append(in, p.Nodes[j].Types)
		}
		if src, ok := n.Op.(dataflow.Source); ok && src.HasEventTime {
			c := src.EventTimeCol
			if c < 0 || c >= len(n.Types) || !watermarkable(n.Types[c]) {
				return fmt.Errorf("dataflow: node %%%d: event-time column #%d must be an integer, date or timestamp column", i, c)
			}
		}
		w.nodes = append(w.nodes, newWMNode(n, in))
		w.vals = append(w.vals, noWatermarks(len(n.Types)))
		st := noWatermarks(len(n.Types))
		w.nodes[i].derive(nil, w.gather(w.static, n.Inputs), 0, true, st)
		w.static = append(w.static, st)
	}
	w.out = noWatermarks(len(p.Nodes[p.Output].Types))
	w.prevOut = noWatermarks(len(w.out))
	for i := range p.Nodes {
		if err := d.wrapWindowed(i); err != nil {
			return err
		}
	}
	return nil
}

// wrapWindowed replaces a Reduce, TopK or Join whose state a watermark bounds
// by its windowed form. An EmitOnClose Reduce must have such a key.
func (d *Dataflow) wrapWindowed(i int) error {
	n := &d.plan.Nodes[i]
	switch op := n.Op.(type) {
	case dataflow.Reduce:
		st := d.wm.static[n.Inputs[0]]
		w := &windowReduce{reduceOp: d.ops[i].(*reduceOp)}
		for pos, c := range op.Key {
			if st[c] != NoWatermark {
				w.pos, w.cols = append(w.pos, pos), append(w.cols, c)
			}
		}
		if len(w.cols) > 0 {
			w.idx = make([]closeIndex[string], len(w.cols))
			d.ops[i] = w
			return nil
		}
		if op.EmitOnClose {
			return repr.Errorf(repr.CodeFeatureNotSupported, "EMIT ON WINDOW CLOSE requires a GROUP BY on a column with a watermark")
		}
	case dataflow.TopK:
		if cols := watermarkedCols(op.Key, d.wm.static[n.Inputs[0]]); len(cols) > 0 {
			d.ops[i] = newWindowTopK(d.ops[i].(*topkOp), cols)
		}
	case dataflow.Join:
		if _, ok := d.ops[i].(*joinOp); !ok { // a shared join keeps one side only
			return nil
		}
		l, r := d.wm.static[n.Inputs[0]], d.wm.static[n.Inputs[1]]
		in := [2][]repr.T{d.plan.Nodes[n.Inputs[0]].Types, d.plan.Nodes[n.Inputs[1]].Types}
		for p, lc := range op.LeftKey {
			if rc := op.RightKey[p]; l[lc] != NoWatermark && r[rc] != NoWatermark {
				d.ops[i] = newWindowJoin(d.ops[i].(*joinOp), [2]int{lc, rc}, in)
				return nil
			}
		}
		if w := newIntervalJoin(d.ops[i].(*joinOp), op, in[0], in[1], [2][]int64{l, r}); w != nil {
			d.ops[i] = w
		}
	}
	return nil
}

// usesEventTime reports whether p has an event-time source or an
// EmitOnClose Reduce.
func usesEventTime(p *dataflow.Plan) bool {
	for _, n := range p.Nodes {
		switch op := n.Op.(type) {
		case dataflow.Source:
			if op.HasEventTime {
				return true
			}
		case dataflow.Reduce:
			if op.EmitOnClose {
				return true
			}
		}
	}
	return false
}

// checkWidths checks that every node's declared column types have the
// width its operator produces, which watermark derivation relies on.
func checkWidths(p *dataflow.Plan) error {
	for i, n := range p.Nodes {
		want := len(n.Types)
		w := func(j int) int { return len(p.Nodes[n.Inputs[j]].Types) }
		switch op := n.Op.(type) {
		case dataflow.MFP:
			want = len(op.Project)
		case dataflow.Reduce:
			want = len(op.Key) + len(op.Aggs)
		case dataflow.Join:
			want = w(0) + w(1)
		case dataflow.TopK:
			want = w(0)
			if op.Rank {
				want++
			}
		case dataflow.Union:
			want = w(0)
			for j := range n.Inputs {
				if w(j) != want {
					return fmt.Errorf("node %%%d: Union inputs have different widths", i)
				}
			}
		case dataflow.Negate, dataflow.Threshold:
			want = w(0)
		}
		if want != len(n.Types) {
			return fmt.Errorf("node %%%d: %d column types for %d columns", i, len(n.Types), want)
		}
	}
	return nil
}

func noWatermarks(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = NoWatermark
	}
	return s
}

// gather collects the watermarks of the given nodes from vals.
func (w *wmRuntime) gather(vals [][]int64, nodes []int) [][]int64 {
	w.ins = w.ins[:0]
	for _, j := range nodes {
		w.ins = append(w.ins, vals[j])
	}
	return w.ins
}

// begin starts a Step.
func (w *wmRuntime) begin() {
	if !w.off {
		copy(w.prevOut, w.out)
	}
}

// inputs returns the current watermarks of the given input nodes.
func (w *wmRuntime) inputs(nodes []int) [][]int64 {
	if w.off {
		return nil
	}
	return w.gather(w.vals, nodes)
}

// derive computes node i's watermarks after its operator op has stepped.
func (w *wmRuntime) derive(ctx *expr.Ctx, inputs []int, i int, op operator) {
	if w.off {
		return
	}
	src := NoWatermark
	if so, ok := op.(*sourceOp); ok {
		src = so.wm
	}
	w.nodes[i].derive(ctx, w.gather(w.vals, inputs), src, false, w.vals[i])
}

// end records the output node's watermarks at the end of a Step.
func (w *wmRuntime) end(output int) {
	if !w.off {
		copy(w.out, w.vals[output])
	}
}

// rollback restores the output watermarks of before the Step.
func (w *wmRuntime) rollback() {
	if !w.off {
		copy(w.out, w.prevOut)
	}
}

// restored derives every node's watermarks from the restored sources.
func (w *wmRuntime) restored(d *Dataflow) {
	if w.off {
		return
	}
	for i, op := range d.ops {
		w.derive(&expr.Ctx{}, d.plan.Nodes[i].Inputs, i, op)
	}
	w.end(d.plan.Output)
	copy(w.prevOut, w.out)
}

// Late returns, per event-time source collection, the cumulative number
// of late rows dropped (the sum of their multiplicities), including those
// of Steps before a restart. Collections without late rows are included
// with 0.
func (d *Dataflow) Late() map[repr.CollectionID]int64 {
	m := map[repr.CollectionID]int64{}
	for _, so := range d.eventSources() {
		m[so.coll] = so.late
	}
	return m
}

// SourceWatermarks returns the current watermark of each event-time
// source collection (NoWatermark before the first).
func (d *Dataflow) SourceWatermarks() map[repr.CollectionID]int64 {
	m := map[repr.CollectionID]int64{}
	for _, so := range d.eventSources() {
		m[so.coll] = so.wm
	}
	return m
}

// eventSources returns the first event-time Source operator of each
// collection (two Source nodes on one collection see the same updates
// and watermarks, so they agree).
func (d *Dataflow) eventSources() []*sourceOp {
	var out []*sourceOp
	seen := map[repr.CollectionID]bool{}
	for _, op := range d.ops {
		if so, ok := op.(*sourceOp); ok && so.eventCol >= 0 && !seen[so.coll] {
			seen[so.coll] = true
			out = append(out, so)
		}
	}
	return out
}

// OutputWatermarks returns, per output column, the watermark after the
// last Step (NoWatermark: none): no later output update has a value below
// it in that column. A dataflow reading this one's output can use it as
// its source watermark.
func (d *Dataflow) OutputWatermarks() []int64 {
	if d.wm.off {
		return noWatermarks(len(d.plan.Nodes[d.plan.Output].Types))
	}
	return append([]int64(nil), d.wm.out...)
}
