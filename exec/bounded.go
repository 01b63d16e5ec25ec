package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// StateReport says, for one stateful node, whether a watermark bounds its
// state (for EXPLAIN and for warning about views that grow forever).
type StateReport struct {
	Node int
	Op   string
	// Bounded is true if the watermark of column Col frees the state.
	Bounded bool
	// Col is an output column of the node: the one whose watermark frees
	// the state if Bounded, otherwise one that would bound it if it carried
	// a watermark (a date/time key column), -1 if none would.
	Col int
	// Why explains the verdict in a few words.
	Why string
}

// String prints the report on one line, e.g.
// "%2 Reduce bounded by #0" or "%3 Join unbounded (...); #5 would bound it".
func (r StateReport) String() string {
	if r.Bounded && r.Col < 0 {
		return fmt.Sprintf("%%%d %s bounded by now() (%s)", r.Node, r.Op, r.Why)
	}
	if r.Bounded {
		return fmt.Sprintf("%%%d %s bounded by #%d (%s)", r.Node, r.Op, r.Col, r.Why)
	}
	s := fmt.Sprintf("%%%d %s unbounded (%s)", r.Node, r.Op, r.Why)
	if r.Col >= 0 {
		s += fmt.Sprintf("; a watermark on #%d would bound it", r.Col)
	}
	return s
}

// Bounded reports on every stateful node (Reduce, unless it reads a shared
// arrangement, Join, TopK, Threshold, TemporalFilter)
// in plan order.
func (d *Dataflow) Bounded() []StateReport {
	var out []StateReport
	for i, n := range d.plan.Nodes {
		r := StateReport{Node: i, Op: opName(n.Op), Col: -1}
		switch op := n.Op.(type) {
		case dataflow.Reduce:
			if op.Shared != nil {
				continue // no state: its groups are a shared arrangement's rows
			}
			r = d.reduceReport(i, op, r)
		case dataflow.Join:
			r = d.joinReport(i, op, r)
		case dataflow.TopK:
			r.Why = "no partition key column has a watermark"
			if op.AppendOnly && op.Limit >= 0 {
				r.Why = fmt.Sprintf("keeps at most %d row(s) per partition of an append-only input, but %s", op.Offset+op.Limit, r.Why)
			}
			r.Col = d.timeCol(i, op.Key, func(j int) int { return op.Key[j] })
			if w, ok := unsharded(d.ops[i]).(*windowTopK); ok {
				r.Bounded, r.Col, r.Why = true, w.cols[0], "partitions close when the watermark passes their key"
			}
		case dataflow.DeltaJoin:
			r.Why = "a delta join keeps its privately arranged inputs' live rows"
		case dataflow.Threshold:
			r.Why = "Threshold keeps every live row"
		case dataflow.SessionWindow:
			r = d.sessionReport(i, op, r)
		case dataflow.TemporalFilter:
			r = temporalReport(op, r)
		case dataflow.Window:
			r.Why = "Window keeps every live row"
		default:
			continue
		}
		out = append(out, r)
	}
	return out
}

func (d *Dataflow) reduceReport(i int, op dataflow.Reduce, r StateReport) StateReport {
	if w, ok := unsharded(d.ops[i]).(*windowReduce); ok {
		r.Bounded, r.Col, r.Why = true, w.pos[0], "groups close when the watermark passes their key"
		return r
	}
	if len(op.Key) == 0 {
		r.Why = "a global aggregate keeps one group"
		if hasMultisets(op) {
			r.Why += " with every live value of its min/max/distinct/string_agg"
		}
		return r
	}
	r.Why = "no key column has a watermark"
	r.Col = d.timeCol(i, op.Key, func(j int) int { return j })
	return r
}

func (d *Dataflow) joinReport(i int, op dataflow.Join, r StateReport) StateReport {
	if w, ok := unsharded(d.ops[i]).(*windowJoin); ok {
		r.Bounded, r.Col, r.Why = true, w.cols[0], "rows are freed below the smaller watermark of an equi-join key"
		return r
	}
	if w, ok := unsharded(d.ops[i]).(*intervalJoin); ok {
		return w.report(r)
	}
	r.Why = "no equi-join key has a watermark on both sides"
	if len(op.LeftKey) == 0 {
		r.Why = "no equi-join key"
	}
	r.Col = d.timeCol(i, op.LeftKey, func(j int) int { return op.LeftKey[j] })
	return r
}

// timeCol returns out(j) for the first key position j whose output
// column (out(j) of node i) has a date/time type, -1 if none.
func (d *Dataflow) timeCol(i int, key []int, out func(j int) int) int {
	ts := d.plan.Nodes[i].Types
	for j := range key {
		if c := out(j); c < len(ts) && isTimeFamily(ts[c]) {
			return c
		}
	}
	return -1
}

// hasMultisets reports whether a Reduce keeps value multisets.
func hasMultisets(op dataflow.Reduce) bool {
	for _, a := range op.Aggs {
		d := a.Kind.Def()
		switch {
		case a.Distinct:
			return true
		case d.Multiset:
			if d.Extremum == 0 || !op.AppendOnly { // over an append-only input, min/max keep only the extremum
				return true
			}
		case a.Kind == expr.AggSum && a.T.Family == repr.FamNumeric:
			return true
		}
	}
	return false
}

// temporalReport describes a temporal filter's state: the rows waiting to
// enter the window and, with an upper bound, the rows inside it, each
// freed once now passes its upper bound.
func temporalReport(op dataflow.TemporalFilter, r StateReport) StateReport {
	if len(op.Upper) == 0 {
		r.Bounded, r.Why = true, "keeps only rows whose lower bound is still ahead"
		return r
	}
	r.Bounded, r.Why = true, "keeps the rows inside the window until now passes their upper bound"
	return r
}
