package exec

import (
	"encoding/binary"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// A fused fan-out's branches read only some columns of the row they are
// given (X's projected columns and the shared expressions): HOP's
// branches read the grouping columns and tumble_start(t), never t, so in
// Nexmark q5 the thousands of bids of a Step fall on a few hundred
// (auction, pane) rows, and each would be expanded into five window rows
// that the count after it adds up one by one. fanoutDedup merges the
// input rows that agree on every column a branch reads (and on their
// time) into one row whose diff is the sum of theirs, before the
// branches run: the panes of Flink's sliding windows ("slicing"), done on
// a Step's rows rather than as state. The branches then emit one update
// per distinct row and window, with the summed diff.
//
// The output is the same multiset of updates (consolidated): the
// branches are deterministic functions of the columns compared (volatile
// branches disable merging), compared by exact key (2 and 2.00 stay
// apart). The errors are the same: every row still passes X and the
// shared expressions, and the merged rows run the branches in the order
// of their first occurrence, also when their diffs cancel, so the first
// row to fail a branch is the first it was. Row counts are sums of
// diffs, unchanged.
//
// Merging costs a key and a map probe per input row; when a Step finds
// more than half its rows distinct, the next dedupBackoff Steps run
// without it.
type fanoutDedup struct {
	// cols are the row's columns some branch reads.
	cols []int
	// index maps a merged row's exact key (the cols, then the time) to
	// its position in rows; kept (cleared) across Steps.
	index map[string]int32
	rows  []repr.Update
	// datums holds the merged rows' copies, reused across Steps.
	datums []repr.Datum
	key    []byte
	sub    repr.Row
	// skip counts down the Steps to run without merging.
	skip int
}

// dedupBackoff is the number of Steps run without merging after a Step
// whose rows were mostly distinct.
const dedupBackoff = 32

// newFanoutDedup returns the merging of rows for branches specs over nIn
// columns, or nil if a branch is volatile or reads every column.
func newFanoutDedup(specs []dataflow.MFP, nIn int) *fanoutDedup {
	used := make([]bool, nIn)
	for _, spec := range specs {
		for _, e := range append(append([]expr.Expr(nil), spec.Map...), spec.Filter...) {
			if expr.IsVolatile(e) {
				return nil
			}
		}
		for c, u := range mfpReads(spec, nIn) {
			used[c] = used[c] || u
		}
	}
	d := &fanoutDedup{index: map[string]int32{}}
	for c, u := range used {
		if u {
			d.cols = append(d.cols, c)
		}
	}
	if len(d.cols) == nIn {
		return nil
	}
	return d
}

// try reports whether a Step of n input updates merges its rows.
func (d *fanoutDedup) try(n int) bool {
	if d.skip > 0 {
		d.skip--
		return false
	}
	return n > 1
}

// add merges row r (at time t, diff) into the Step's rows.
func (d *fanoutDedup) add(r repr.Row, t uint64, diff int64) {
	d.sub = d.sub[:0]
	for _, c := range d.cols {
		d.sub = append(d.sub, r[c])
	}
	d.key = binary.BigEndian.AppendUint64(repr.AppendRowKeyExact(d.key[:0], d.sub), t)
	if i, ok := d.index[string(d.key)]; ok {
		d.rows[i].Diff += diff
		return
	}
	d.index[string(d.key)] = int32(len(d.rows))
	at := len(d.datums)
	d.datums = append(d.datums, r...)
	d.rows = append(d.rows, repr.Update{Row: d.datums[at:len(d.datums):len(d.datums)], Time: t, Diff: diff})
}

// done lets go of the Step's merged rows (keeping the buffers) and backs
// off when most of n input rows were distinct.
func (d *fanoutDedup) done(n int) {
	if len(d.rows)*2 > n {
		d.skip = dedupBackoff
	}
	clear(d.index)
	clear(d.rows)
	clear(d.datums)
	d.rows, d.datums = d.rows[:0], d.datums[:0]
}

// stepDedup is step with the input rows merged (fanoutDedup).
func (o *fanoutOp) stepDedup(s *stepCtx, ins []repr.Update) ([]repr.Update, error) {
	d := o.dedup
	defer d.done(len(ins))
	if s.counts != nil {
		clear(o.counts)
	}
	passed := int64(0)
	for _, u := range ins {
		if err := s.poll(); err != nil {
			return nil, err
		}
		r, ok, err := o.fill(s, u.Row)
		if err != nil {
			return nil, err
		}
		if ok {
			passed += u.Diff
			d.add(r, u.Time, u.Diff)
		}
	}
	out := make([]repr.Update, 0, len(d.rows)*len(o.branches))
	for _, u := range d.rows {
		var err error
		if out, err = o.branch(s, u.Row, u.Time, u.Diff, out); err != nil {
			return nil, err
		}
	}
	if s.counts != nil {
		o.count(s, ins, passed)
	}
	return out, nil
}
