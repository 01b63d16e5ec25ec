package exec

import (
	"bytes"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// wstate is one function's evaluation state during a pass over a range
// of positions (windowOp.eval): cursors for the positions it reads, the
// trackers of its frame bounds and, for an aggregate, the accumulator of
// the frame pieces pc it covers.
type wstate struct {
	cur        wcur
	start, end wtrack
	init       bool
	fe         int
	pc         [3]wpiece
	// pcur are, per piece, the cursors of the rows leaving and entering it.
	pcur [3][2]wcur
	acc  expr.Acc
	// scale is a running numeric sum's largest display scale; scales
	// counts a sliding one's live display scales.
	scale  int32
	scales map[int32]int64
	// ext is a running min/max; dq a sliding one's monotonic deque per
	// piece: positions with values strictly increasing (min) or
	// decreasing (max) from the front, whose front is the piece's
	// extremum.
	ext repr.Datum
	dq  [3][]wdq
	// nt is ntile's bucket count read from a column, at position ntAt
	// (the first where it is not NULL; n if none); ntInit says whether
	// they are known.
	ntInit bool
	nt     int64
	ntAt   int
}

type wdq struct {
	pos int
	v   repr.Datum
}

// newState returns a fresh state over seq, reusing old's buffers.
func newState(seq *wseq, old *wstate) wstate {
	st := wstate{cur: newCur(seq), scales: old.scales}
	st.start.c, st.end.c = newCur(seq), newCur(seq)
	for i := range st.pcur {
		st.pcur[i] = [2]wcur{newCur(seq), newCur(seq)}
		st.dq[i] = old.dq[i][:0]
	}
	clear(st.scales)
	return st
}

// eval recomputes positions [lo, hi) of p in order and emits the rows
// whose values changed: position j reads the (current) values of j-1.
func (o *windowOp) eval(s *stepCtx, p *wpart, lo, hi int, out []repr.Update) ([]repr.Update, error) {
	n := p.seq.n
	if len(o.states) < len(o.funcs) {
		o.states = make([]wstate, len(o.funcs))
	}
	for i := range o.funcs {
		o.states[i] = newState(&p.seq, &o.states[i])
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
		ps = p.seq.search(first.sk, nil, false)
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
		return f.evalNtile(st, j, n, sl)
	case expr.WinLag, expr.WinLead:
		f.evalLag(st, j, n, e, sl)
	case expr.WinFirstValue, expr.WinLastValue, expr.WinNthValue:
		if err := f.evalValue(st, j, n, ps, pe, e, sl); err != nil {
			return err
		}
	case expr.WinAgg:
		if err := f.evalAgg(st, j, n, ps, pe, e, prev, sl); err != nil {
			return err
		}
	}
	return f.takeErr()
}

// evalNtile computes ntile at position j. A bucket count read from a
// column is PostgreSQL's: taken at the partition's first row where it is
// not NULL, rows before that are NULL, and buckets count from there.
func (f *wfunc) evalNtile(st *wstate, j, n int, sl []repr.Datum) error {
	k, at := f.N, 0
	if f.NCol >= 0 {
		if !st.ntInit {
			st.ntInit, st.ntAt = true, 0
			for ; st.ntAt < n; st.ntAt++ {
				if v := st.cur.at(st.ntAt).row[f.NCol]; !v.IsNull() {
					st.nt = v.Int()
					break
				}
			}
		}
		k, at = st.nt, st.ntAt
		if j < at {
			sl[0] = repr.Null
			return nil
		}
	}
	if k <= 0 {
		return errNtile
	}
	sl[0] = repr.NewInt(ntile(int64(j-at), int64(n), k))
	return nil
}

// evalLag computes lag or lead at position j; an offset read from a
// column is e's, NULL making the value NULL.
func (f *wfunc) evalLag(st *wstate, j, n int, e *went, sl []repr.Datum) {
	off := f.N
	if f.NCol >= 0 {
		v := e.row[f.NCol]
		if v.IsNull() {
			sl[0] = repr.Null
			return
		}
		off = v.Int()
	}
	t := int64(j) - off
	if f.Kind == expr.WinLead {
		t = int64(j) + off
	}
	switch {
	case t >= 0 && t < int64(n):
		sl[0] = st.cur.at(int(t)).row[f.Col]
	case f.Default >= 0:
		sl[0] = e.row[f.Default]
	default:
		sl[0] = repr.Null
	}
}

// evalValue computes first_value, last_value or nth_value over j's
// frame (its pieces, after exclusion).
func (f *wfunc) evalValue(st *wstate, j, n, ps, pe int, e *went, sl []repr.Datum) error {
	fs, fe := f.bounds(st, j, n, ps, pe, e)
	pc, np := f.pieces(fs, fe, j, ps, pe)
	k := int64(0)
	switch f.Kind {
	case expr.WinLastValue:
		k = -1
	case expr.WinNthValue:
		k = f.N
		if f.NCol >= 0 {
			v := e.row[f.NCol]
			if v.IsNull() {
				sl[0] = repr.Null
				return nil
			}
			k = v.Int()
		}
		if k <= 0 {
			return errNthValue
		}
		k--
	}
	sl[0] = repr.Null
	if t, ok := nthInPieces(pc[:np], k); ok {
		sl[0] = st.cur.at(t).row[f.Col]
	}
	return nil
}

// evalAgg computes an aggregate over j's frame. A running one (frame
// from the partition's start, nothing excluded) continues from j-1's
// accumulator, taken from its slots at the first position of the pass;
// a sliding one adds the rows entering each piece of the frame and
// retracts those leaving it.
func (f *wfunc) evalAgg(st *wstate, j, n, ps, pe int, e, prev *went, sl []repr.Datum) error {
	fs, fe := f.bounds(st, j, n, ps, pe, e)
	if f.scan {
		pc, np := f.pieces(fs, fe, j, ps, pe)
		var err error
		sl[0], err = f.call.Kind.Def().Final(&f.call, &expr.Acc{}, frameValues{f: f, c: &st.cur, pc: pc[:np]})
		return err
	}
	if f.running {
		if !st.init {
			st.init, st.fe = true, -1
			if j > 0 {
				st.fe = f.prevEnd(st, j, n, ps, pe, e, prev)
				f.seed(st, prev.out[f.slot:f.slot+f.width])
			}
		}
		for st.fe < fe {
			st.fe++
			f.add(st, 0, st.fe, st.cur.at(st.fe).row, true)
		}
		f.store(st, sl)
		return nil
	}
	pc, np := f.pieces(fs, fe, j, ps, pe)
	f.slide(st, pc, np)
	var err error
	sl[0], err = f.slidingResult(st, np)
	return err
}

// frameValues is a frame's non-NULL argument values in window order, as a
// frame-scanning aggregate's final function reads them (expr.AggValues).
type frameValues struct {
	f  *wfunc
	c  *wcur
	pc []wpiece
}

// Ascend calls fn with each non-NULL value of the frame (and its
// separator) in window order until fn returns false.
func (v frameValues) Ascend(fn func(x, sep repr.Datum, n int64) bool) {
	for _, p := range v.pc {
		for pos := p.s; pos <= p.e; pos++ {
			row := v.c.at(pos).row
			x, sep := row[v.f.Col], repr.Null
			if v.f.Default >= 0 {
				sep = row[v.f.Default]
			}
			if !x.IsNull() && !fn(x, sep, 1) {
				return
			}
		}
	}
}

// Min returns the first value.
func (v frameValues) Min() (repr.Datum, bool) {
	var out repr.Datum
	found := false
	v.Ascend(func(x, _ repr.Datum, _ int64) bool {
		out, found = x, true
		return false
	})
	return out, found
}

// Max returns the last value.
func (v frameValues) Max() (repr.Datum, bool) {
	var out repr.Datum
	found := false
	v.Ascend(func(x, _ repr.Datum, _ int64) bool {
		out, found = x, true
		return true
	})
	return out, found
}

// slide moves the accumulator from the pieces st.pc to pc: each piece's
// ends only move forward, so it retracts the rows before a piece's new
// start and adds those past its old end. It starts afresh when the new
// frame begins after every row of the old one.
func (f *wfunc) slide(st *wstate, pc [3]wpiece, np int) {
	reset := !st.init
	if !reset {
		reset = true
		for i := range np {
			if st.pc[i].e >= pc[0].s {
				reset = false
			}
		}
	}
	if reset {
		st.init = true
		st.acc, st.ext = expr.Acc{}, repr.Null
		clear(st.scales)
		for i := range np {
			st.dq[i] = st.dq[i][:0]
			st.pc[i] = wpiece{pc[i].s, pc[i].s - 1}
		}
	}
	for i := range np {
		old, nw := st.pc[i], pc[i]
		for p := old.s; p <= min(old.e, nw.s-1); p++ {
			f.remove(st, i, p, st.pcur[i][0].at(p).row)
		}
		for p := max(old.e+1, nw.s); p <= nw.e; p++ {
			f.add(st, i, p, st.pcur[i][1].at(p).row, false)
		}
		st.pc[i] = nw
	}
}

// prevEnd returns the end of j-1's frame (entry prev), which starts at
// 0; e at j has peers [ps, pe).
func (f *wfunc) prevEnd(st *wstate, j, n, ps, pe int, e, prev *went) int {
	if !bytes.Equal(prev.sk, e.sk) {
		ps, pe = st.cur.s.search(prev.sk, nil, false), j
	}
	tmp := newState(st.cur.s, &wstate{})
	_, fe := f.bounds(&tmp, j-1, n, ps, pe, prev)
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

// add adds the row at position pos to piece pi of the frame.
func (f *wfunc) add(st *wstate, pi, pos int, row repr.Row, running bool) {
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
		dq := st.dq[pi]
		for len(dq) > 0 && repr.Compare(dq[len(dq)-1].v, v)*c <= 0 {
			dq = dq[:len(dq)-1]
		}
		st.dq[pi] = append(dq, wdq{pos, v})
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

// remove retracts the row at position pos from piece pi of a sliding
// frame.
func (f *wfunc) remove(st *wstate, pi, pos int, row repr.Row) {
	switch f.Agg {
	case expr.AggCountStar:
		st.acc.N--
		return
	case expr.AggMin, expr.AggMax:
		for len(st.dq[pi]) > 0 && st.dq[pi][0].pos <= pos {
			st.dq[pi] = st.dq[pi][1:]
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

// slidingResult is the aggregate of a sliding frame of np pieces; min
// and max take the extremum of the pieces' (a later equal one wins, as
// in add).
func (f *wfunc) slidingResult(st *wstate, np int) (repr.Datum, error) {
	switch f.Agg {
	case expr.AggMin, expr.AggMax:
		c := -1
		if f.Agg == expr.AggMax {
			c = 1
		}
		best := repr.Null
		for _, dq := range st.dq[:np] {
			if len(dq) > 0 && (best.IsNull() || repr.Compare(dq[0].v, best)*c >= 0) {
				best = dq[0].v
			}
		}
		return best, nil
	}
	call := f.call
	for s := range st.scales {
		call.Scale = max(call.Scale, s)
	}
	return call.Kind.Def().Final(&call, &st.acc, nil)
}
