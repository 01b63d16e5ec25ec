package exec

import (
	"bytes"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// wstate is one function's evaluation state during a pass over a range
// of positions (windowOp.eval): cursors for the positions it reads and,
// for an aggregate, the accumulator of the frame [fs, fe] it covers.
type wstate struct {
	cur, tail wcur
	init      bool
	fs, fe    int
	acc       expr.Acc
	// scale is a running numeric sum's largest display scale; scales
	// counts a sliding one's live display scales.
	scale  int32
	scales map[int32]int64
	// ext is a running min/max; dq a sliding one's monotonic deque:
	// positions with values strictly increasing (min) or decreasing
	// (max) from the front, whose front is the frame's extremum.
	ext repr.Datum
	dq  []wdq
}

type wdq struct {
	pos int
	v   repr.Datum
}

// eval recomputes positions [lo, hi) of p in order and emits the rows
// whose values changed: position j reads the (current) values of j-1.
func (o *windowOp) eval(s *stepCtx, p *wpart, lo, hi int, out []repr.Update) ([]repr.Update, error) {
	n := p.seq.n
	if len(o.states) < len(o.funcs) {
		o.states = make([]wstate, len(o.funcs))
	}
	for i := range o.funcs {
		st := &o.states[i]
		*st = wstate{cur: newCur(&p.seq), tail: newCur(&p.seq), scales: st.scales, dq: st.dq[:0]}
		clear(st.scales)
	}
	cur, back := newCur(&p.seq), newCur(&p.seq)
	var prev *went
	if lo > 0 {
		prev = back.at(lo - 1)
	}
	first := cur.at(lo)
	idx := lo - p.seq.search(first.sk, first.row, false)
	ps, pe := lo, lo
	if o.peers {
		for ps > 0 && bytes.Equal(back.at(ps-1).sk, first.sk) {
			ps--
		}
	}
	for j := lo; j < hi; j++ {
		e := cur.at(j)
		if j > lo {
			if bytes.Equal(prev.sk, e.sk) && repr.CompareRows(prev.row, e.row) == 0 {
				idx++
			} else {
				idx = 0
			}
		}
		if o.peers && j >= pe {
			if j > lo {
				ps = j
			}
			for pe = j + 1; pe < n && bytes.Equal(back.at(pe).sk, e.sk); pe++ {
			}
		}
		slots := make([]repr.Datum, o.width)
		for fi := range o.funcs {
			if err := o.funcs[fi].eval(&o.states[fi], j, n, ps, pe, e, prev, slots); err != nil {
				return nil, err
			}
		}
		var err error
		if out, err = o.update(s, p, j, idx, e, slots, out); err != nil {
			return nil, err
		}
		prev = e
	}
	return out, nil
}

// update stores e's new slots (at position j, copy idx of its row),
// logging them and emitting the row's change if its values changed.
func (o *windowOp) update(s *stepCtx, p *wpart, j, idx int, e *went, slots []repr.Datum, out []repr.Update) ([]repr.Update, error) {
	if e.out != nil && identicalRows(e.out, slots) {
		return out, nil
	}
	var old []repr.Datum
	if e.out != nil {
		old = append([]repr.Datum(nil), o.results(e.out)...)
	}
	vals, err := o.checkedResults(slots)
	if err != nil {
		return nil, err
	}
	if old == nil || !identicalRows(old, vals) {
		if old != nil {
			out = append(out, repr.Update{Row: o.outRow(s, e.row, old), Time: s.t, Diff: -1})
		}
		out = append(out, repr.Update{Row: o.outRow(s, e.row, vals), Time: s.t, Diff: 1})
	}
	o.record = append(o.record, wundo{p: p, kind: undoSet, pos: j, out: e.out})
	e.out = slots
	o.logSet(s, p, e, idx)
	return out, nil
}

// checkedResults is results, returning the error of an aggregate's final
// function (a sum out of range) instead of panicking.
func (o *windowOp) checkedResults(slots []repr.Datum) (vals []repr.Datum, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	return o.results(slots), nil
}

// eval computes f at position j (entry e, predecessor prev, peers
// [ps, pe) when tracked) into its slots.
func (f *wfunc) eval(st *wstate, j, n, ps, pe int, e, prev *went, slots []repr.Datum) error {
	sl := slots[f.slot : f.slot+f.width]
	switch f.Kind {
	case expr.WinRowNumber:
		sl[0] = repr.NewInt(int64(j + 1))
	case expr.WinRank:
		sl[0] = repr.NewInt(int64(ps + 1))
	case expr.WinDenseRank:
		switch {
		case j == 0:
			sl[0] = repr.NewInt(1)
		case bytes.Equal(prev.sk, e.sk):
			sl[0] = prev.out[f.slot]
		default:
			sl[0] = repr.NewInt(prev.out[f.slot].Int() + 1)
		}
	case expr.WinPercentRank:
		sl[0] = repr.NewFloat(percent(ps, n-1))
	case expr.WinCumeDist:
		sl[0] = repr.NewFloat(percent(pe, n))
	case expr.WinNtile:
		if f.N <= 0 {
			return errNtile
		}
		sl[0] = repr.NewInt(ntile(int64(j), int64(n), f.N))
	case expr.WinLag, expr.WinLead:
		t := int64(j) - f.N
		if f.Kind == expr.WinLead {
			t = int64(j) + f.N
		}
		switch {
		case t >= 0 && t < int64(n):
			sl[0] = st.cur.at(int(t)).row[f.Col]
		case f.Default >= 0:
			sl[0] = e.row[f.Default]
		default:
			sl[0] = repr.Null
		}
	case expr.WinFirstValue, expr.WinLastValue, expr.WinNthValue:
		fs, fe := f.frame(j, n, ps, pe)
		t := fs
		switch f.Kind {
		case expr.WinLastValue:
			t = fe
		case expr.WinNthValue:
			if f.N <= 0 {
				return errNthValue
			}
			t = shift(fs, f.N-1, n)
		}
		sl[0] = repr.Null
		if fs <= fe && t <= fe {
			sl[0] = st.cur.at(t).row[f.Col]
		}
	case expr.WinAgg:
		return f.evalAgg(st, j, n, ps, pe, e, prev, sl)
	}
	return nil
}

// frame returns the frame [fs, fe] of position j, clamped to the
// partition (empty when fs > fe).
func (f *wfunc) frame(j, n, ps, pe int) (fs, fe int) {
	fr := f.Frame
	switch b := fr.Start; b.Kind {
	case expr.Preceding:
		fs = shift(j, -b.Offset, n)
	case expr.CurrentRow:
		fs = j
		if !fr.Rows {
			fs = ps
		}
	case expr.Following:
		fs = shift(j, b.Offset, n)
	}
	switch b := fr.End; b.Kind {
	case expr.Preceding:
		fe = shift(j+1, -b.Offset, n) - 1
	case expr.CurrentRow:
		fe = j
		if !fr.Rows {
			fe = pe - 1
		}
	case expr.Following:
		fe = shift(j+1, b.Offset, n) - 1
	case expr.UnboundedFollowing:
		fe = n - 1
	}
	return fs, fe
}

// evalAgg computes an aggregate over j's frame. A running one (frame
// from the partition's start) continues from j-1's accumulator, taken
// from its slots at the first position of the pass; a sliding one adds
// the rows entering the frame and retracts those leaving it.
func (f *wfunc) evalAgg(st *wstate, j, n, ps, pe int, e, prev *went, sl []repr.Datum) error {
	fs, fe := f.frame(j, n, ps, pe)
	if f.running {
		if !st.init {
			st.init, st.fe = true, -1
			if j > 0 {
				st.fe = f.prevEnd(j, n, pe, e, prev)
				f.seed(st, prev.out[f.slot:f.slot+f.width])
			}
		}
		for st.fe < fe {
			st.fe++
			f.add(st, st.fe, st.cur.at(st.fe).row, true)
		}
		f.store(st, sl)
		return nil
	}
	if !st.init || fs > st.fe {
		st.init = true
		st.acc, st.ext, st.dq = expr.Acc{}, repr.Null, st.dq[:0]
		clear(st.scales)
		st.fs, st.fe = fs, fs-1
	}
	for ; st.fs < fs; st.fs++ {
		f.remove(st, st.fs, st.tail.at(st.fs).row)
	}
	for st.fe < fe {
		st.fe++
		f.add(st, st.fe, st.cur.at(st.fe).row, false)
	}
	var err error
	sl[0], err = f.slidingResult(st)
	return err
}

// prevEnd returns the end of j-1's frame (which starts at 0).
func (f *wfunc) prevEnd(j, n, pe int, e, prev *went) int {
	if !f.Frame.Rows && f.Frame.End.Kind == expr.CurrentRow {
		if bytes.Equal(prev.sk, e.sk) {
			return pe - 1
		}
		return j - 1
	}
	_, fe := f.frame(j-1, n, 0, 0)
	return fe
}

// seed loads a running aggregate's accumulator from its slots.
func (f *wfunc) seed(st *wstate, sl []repr.Datum) {
	if f.accWidth == 0 {
		st.ext = sl[0]
		return
	}
	st.acc = f.call.Class.Decode(sl[:f.accWidth])
	if f.scales {
		st.scale = int32(sl[f.accWidth].Int())
	}
}

// store writes a running aggregate's state into its slots.
func (f *wfunc) store(st *wstate, sl []repr.Datum) {
	if f.accWidth == 0 {
		sl[0] = st.ext
		return
	}
	f.call.Class.Append(sl[:0], &st.acc)
	if f.scales {
		sl[f.accWidth] = repr.NewInt(int64(st.scale))
	}
}

// add adds the row at position pos to the frame.
func (f *wfunc) add(st *wstate, pos int, row repr.Row, running bool) {
	if f.Agg == expr.AggCountStar {
		st.acc.N++
		return
	}
	v := row[f.Col]
	if v.IsNull() {
		return
	}
	switch f.Agg {
	case expr.AggMin, expr.AggMax:
		c := -1 // min: a later equal value wins, as PostgreSQL's smaller()
		if f.Agg == expr.AggMax {
			c = 1
		}
		if running {
			if st.ext.IsNull() || repr.Compare(v, st.ext)*c >= 0 {
				st.ext = v
			}
			return
		}
		for len(st.dq) > 0 && repr.Compare(st.dq[len(st.dq)-1].v, v)*c <= 0 {
			st.dq = st.dq[:len(st.dq)-1]
		}
		st.dq = append(st.dq, wdq{pos, v})
		return
	}
	st.acc.Add(f.call.Class, v, 1)
	if f.scales && v.Numeric().Form == apd.Finite {
		ds := displayScale(v.Numeric())
		if running {
			st.scale = max(st.scale, ds)
		} else {
			if st.scales == nil {
				st.scales = map[int32]int64{}
			}
			st.scales[ds]++
		}
	}
}

// remove retracts the row at position pos from a sliding frame.
func (f *wfunc) remove(st *wstate, pos int, row repr.Row) {
	switch f.Agg {
	case expr.AggCountStar:
		st.acc.N--
		return
	case expr.AggMin, expr.AggMax:
		for len(st.dq) > 0 && st.dq[0].pos <= pos {
			st.dq = st.dq[1:]
		}
		return
	}
	v := row[f.Col]
	if v.IsNull() {
		return
	}
	st.acc.Add(f.call.Class, v, -1)
	if f.scales && v.Numeric().Form == apd.Finite {
		ds := displayScale(v.Numeric())
		if st.scales[ds]--; st.scales[ds] == 0 {
			delete(st.scales, ds)
		}
	}
	if st.acc.Empty() {
		st.acc.Reset()
	}
}

// slidingResult is the aggregate of a sliding frame.
func (f *wfunc) slidingResult(st *wstate) (repr.Datum, error) {
	switch f.Agg {
	case expr.AggMin, expr.AggMax:
		if len(st.dq) == 0 {
			return repr.Null, nil
		}
		return st.dq[0].v, nil
	}
	call := f.call
	for s := range st.scales {
		call.Scale = max(call.Scale, s)
	}
	return call.Kind.Def().Final(&call, &st.acc, nil)
}
