package exec

import (
	"math"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Watermarks are the event-time counterpart of frontiers (GUIDE.md §3).
// A source with an event-time column receives, with each Step, a
// watermark: a promise that no update of a later Step has an event time
// below it. Each node's output then has, per column, an optional
// watermark: the least value that column can take in any update of a
// later Step. They are derived from the sources' in topological order:
//
//   - Source: its event-time column carries the source's watermark.
//   - MFP: projected columns keep theirs, filters keep them all; a Map
//     expression that is monotone in a single watermarked column (a Col, a
//     Cast between date/time types, or a call of a expr.Func marked
//     Monotone whose time argument is such an expression and whose other
//     arguments read no column) gets the expression evaluated at that
//     column's watermark, since x >= w implies f(x) >= f(w).
//   - Union: per column the minimum over the inputs.
//   - Reduce: the key columns keep theirs (a later output row belongs to a
//     group a later input row touches); aggregates get none.
//   - Join: a key column gets the minimum of the watermarks of both sides
//     of its equality (a later output row comes from a later row of one
//     side, whose key is at least that side's watermark), on the sides
//     that are never NULL-padded; residual inequalities between the sides
//     carry bounds across too (joinWM in interval.go: q7's window end and
//     bid time); other columns get none (a later row on one side can
//     still match old rows of the other).
//   - TopK: the partition key columns keep theirs. Negate, Threshold:
//     every column keeps its own (their later output rows are later input
//     rows). Constant: none.
//
// A watermark is an int64 in the units of its column's type: microseconds
// for timestamp and timestamptz (since 2000-01-01, as types stores them),
// days for date, the value for integers. Columns of other types carry none.
//
// Within a Step, operators first process the Step's updates and then use
// the Step's new watermarks: everything at or above the new watermark may
// still change in later Steps, everything below it is final. The late
// filter of a Source uses the watermark as it was before the Step, so the
// updates that arrive with a watermark are never late for it.

// NoWatermark is the watermark of a column that has none. It is the
// smallest int64, so the minimum with it is again NoWatermark (a column
// fed by an input without a watermark has none) and it never closes
// anything.
const NoWatermark int64 = math.MinInt64

// Input is what one Step consumes: per source collection, its updates at
// the Step's time and, optionally, its new watermark (in the units of its
// Source's event-time column; see NoWatermark). Watermarks only grow: a
// value below the current one is ignored, as is a watermark for a
// collection without an event-time column.
//
// Now is the Step's wall-clock time, chosen by the coordinator (exec never
// reads the clock), in microseconds since 2000-01-01 UTC like timestamptz:
// temporal filters keep the rows valid at Now (temporal.go). The
// coordinator keeps it non-decreasing across Steps; a smaller value than a
// previous Step's is treated as that previous value.
//
// Arrangements serves the joins that read a shared arrangement
// (dataflow.Join.Shared; nil when the plan has none).
//
// DeferState lets operators keep the state the Step changed dirty in
// memory and write it at the next FlushState instead of logging it now
// (reduce_defer.go): the caller promises to call FlushState, with a
// writer to the same batch as the Step's, before that batch is committed
// or the store read back, and never to hand the Step's state writer to a
// batch committed after one that holds a later FlushState's writes.
type Input struct {
	Updates      map[repr.CollectionID][]repr.Update
	Watermarks   map[repr.CollectionID]int64
	Now          int64
	Arrangements Arrangements
	DeferState   bool
}

// watermarkable reports whether a column of type t can carry a watermark.
func watermarkable(t repr.T) bool {
	switch t.Family {
	case repr.FamInt, repr.FamDate, repr.FamTimestamp, repr.FamTimestampTZ:
		return true
	}
	return false
}

// wmValue is the watermark form of a non-NULL datum of a watermarkable type.
func wmValue(d repr.Datum) (int64, bool) {
	switch d.Family() {
	case repr.FamInt, repr.FamDate:
		return d.Int(), true
	case repr.FamTimestamp, repr.FamTimestampTZ:
		return d.Micros(), true
	}
	return 0, false
}

// wmDatum is the datum of type t whose watermark form is v.
func wmDatum(t repr.T, v int64) repr.Datum {
	switch t.Family {
	case repr.FamInt:
		return repr.NewInt(v)
	case repr.FamDate:
		return repr.NewDate(int32(v))
	case repr.FamTimestamp:
		return repr.NewTimestamp(v)
	case repr.FamTimestampTZ:
		return repr.NewTimestampTZ(v)
	}
	return repr.Null
}

// FormatWatermark prints a watermark of a column of type t as a literal
// of that type, or "none".
func FormatWatermark(t repr.T, v int64) string {
	if v == NoWatermark {
		return "none"
	}
	return wmDatum(t, v).String()
}

// below reports whether the non-NULL value d lies below watermark w.
func below(d repr.Datum, w int64) bool {
	v, ok := wmValue(d)
	return ok && w != NoWatermark && v < w
}

// wmNode derives a node's output watermarks from its inputs'.
type wmNode struct {
	op dataflow.Op
	// in are the column types of the inputs, out those of the output.
	in  [][]repr.T
	out []repr.T
	// mono[m] is the column MFP map expression m is monotone in, or -1.
	mono []int
	// cols are the column types of an MFP's input plus its map columns.
	cols    []repr.T
	scratch repr.Row
	wms     []int64
	// join derives a Join's watermarks (interval.go).
	join *joinWM
}

// newWMNode prepares the watermark derivation of node n.
func newWMNode(n *dataflow.Node, in [][]repr.T) *wmNode {
	w := &wmNode{op: n.Op, in: in, out: n.Types}
	if j, ok := n.Op.(dataflow.Join); ok {
		w.join = newJoinWM(j, in[0], in[1])
	}
	if m, ok := n.Op.(dataflow.MFP); ok {
		w.cols = append([]repr.T(nil), in[0]...)
		for _, e := range m.Map {
			w.mono = append(w.mono, monotoneIn(e, w.cols))
			w.cols = append(w.cols, e.Type())
		}
	}
	return w
}

// monotoneIn returns the single column e is non-decreasing in (see the
// package comment on watermarks), or -1.
func monotoneIn(e expr.Expr, cols []repr.T) int {
	switch e := e.(type) {
	case *expr.Col:
		if e.Idx < len(cols) && watermarkable(cols[e.Idx]) {
			return e.Idx
		}
	case *expr.Cast:
		if isTimeFamily(e.Arg.Type()) && isTimeFamily(e.To) {
			return monotoneIn(e.Arg, cols)
		}
	case *expr.Call:
		return monotoneCall(e, cols)
	}
	return -1
}

// monotoneCall is monotoneIn for a call: the function must be Monotone,
// its time argument (the first of a date/time type) monotone in a column,
// and its other arguments must read no column.
func monotoneCall(e *expr.Call, cols []repr.T) int {
	if !e.Fn.Monotone {
		return -1
	}
	c, timeArg := -1, -1
	for i, a := range e.Args {
		if timeArg < 0 && isTimeFamily(a.Type()) {
			timeArg, c = i, monotoneIn(a, cols)
		} else if maxCol(a) >= 0 {
			return -1
		}
	}
	return c
}

// isTimeFamily reports whether t is a date or timestamp type.
func isTimeFamily(t repr.T) bool {
	switch t.Family {
	case repr.FamDate, repr.FamTimestamp, repr.FamTimestampTZ:
		return true
	}
	return false
}

// derive computes the output watermarks from in (one slice per input, one
// value per column) into out (len(w.out)). src is a Source's watermark.
// With static set it computes which columns carry a watermark once every
// source has one (values 0: present, NoWatermark: absent) without
// evaluating any expression.
func (w *wmNode) derive(ctx *expr.Ctx, in [][]int64, src int64, static bool, out []int64) {
	for i := range out {
		out[i] = NoWatermark
	}
	switch op := w.op.(type) {
	case dataflow.Source:
		if op.HasEventTime {
			out[op.EventTimeCol] = src
		}
	case dataflow.MFP:
		w.deriveMFP(ctx, op, in[0], static, out)
	case dataflow.Reduce:
		for j, c := range op.Key {
			out[j] = in[0][c]
		}
	case dataflow.Join:
		w.join.derive(ctx, in, static, out)
	case dataflow.TopK:
		for _, c := range op.Key {
			out[c] = in[0][c]
		}
	case dataflow.Union:
		copy(out, in[0])
		for _, x := range in[1:] {
			for c := range out {
				out[c] = min(out[c], x[c])
			}
		}
	case dataflow.Negate, dataflow.Threshold:
		copy(out, in[0])
	case dataflow.SessionWindow:
		deriveSession(op, in[0], out)
	}
}

// deriveMFP maps the input watermarks through the Map expressions and the
// projection.
func (w *wmNode) deriveMFP(ctx *expr.Ctx, op dataflow.MFP, in []int64, static bool, out []int64) {
	row := append(w.wms[:0], in...)
	for m, e := range op.Map {
		v, c := NoWatermark, w.mono[m]
		switch {
		case c < 0 || row[c] == NoWatermark:
		case static:
			v = 0
		default:
			v = w.evalAt(ctx, e, c, row[c])
		}
		row = append(row, v)
	}
	for j, c := range op.Project {
		out[j] = row[c]
	}
	w.wms = row
}

// evalAt evaluates e (which reads only column c) with column c set to the
// value whose watermark form is v; NoWatermark if that fails or is NULL.
func (w *wmNode) evalAt(ctx *expr.Ctx, e expr.Expr, c int, v int64) int64 {
	if cap(w.scratch) < len(w.cols) {
		w.scratch = make(repr.Row, len(w.cols))
	}
	r := w.scratch[:len(w.cols)]
	clear(r)
	r[c] = wmDatum(w.cols[c], v)
	d, err := e.Eval(ctx, r)
	if err != nil || d.IsNull() {
		return NoWatermark
	}
	if x, ok := wmValue(d); ok {
		return x
	}
	return NoWatermark
}
