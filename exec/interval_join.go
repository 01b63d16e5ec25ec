package exec

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// intervalJoin is a joinOp whose residual (or equi-join key) bounds the
// rows of a side by the watermark of the other side (see interval.go): for
// a conjunct lo <= hi with lo monotone in a watermarked column c of one
// side, a stored row y of the other side is freed, and its deletion
// logged, once hi(y) < lo(wm(c)) (hi(y) <= lo(wm(c)) for lo < hi). No
// later row of lo's side can match y then, so freeing y changes no output:
// its match count is final, so an outer join's padded row for it is too.
// A later retraction of y itself is still handled (it joins the stored
// rows of the other side, which hold every row it matched: a row it
// matched cannot have been freed before it, as the retraction is a later
// row that matches it). Rows with a NULL hi are kept.
//
// State: the joinOp's arrangements, bounded by the rows whose intervals
// are open, plus one close index per bound (rowClose). Spilled
// (close_spill.go), the arrangements live in the store but for resident
// join keys, and the close indexes hold each open row's join key and
// row hash.
type intervalJoin struct {
	*joinOp
	cols    []repr.T
	bounds  []intervalBound
	scratch repr.Row
}

// intervalBound frees the rows of side once the watermark of input
// column col of the other side passes them by q.
type intervalBound struct {
	q    joinIneq
	side int
	col  int
	idx  rowClose
}

// newIntervalJoin wraps o if some inequality of its join bounds a side by
// a watermark: static are the two inputs' static watermarks (watermark
// presence per column). It returns nil if none does.
func newIntervalJoin(o *joinOp, op dataflow.Join, left, right []repr.T, static [2][]int64) *intervalJoin {
	w := &intervalJoin{joinOp: o, cols: append(append([]repr.T(nil), left...), right...)}
	for _, q := range joinIneqs(op, left, right) {
		if q.loMono < 0 {
			continue
		}
		col := q.loMono
		if q.loSide == 1 {
			col -= len(left)
		}
		if static[q.loSide][col] != NoWatermark {
			w.bounds = append(w.bounds, intervalBound{q: q, side: 1 - q.loSide, col: col})
		}
	}
	if len(w.bounds) == 0 {
		return nil
	}
	w.keyByTime()
	return w
}

// keyByTime keys w's state by time (join_time.go) on each side one
// bound frees by a timestamp; w stays keyed by join key unless every
// side with bounds has one such bound (a side closing otherwise would
// free stored rows by name, a scan by join key, closeStored, that the
// time-keyed layout does not serve).
func (w *intervalJoin) keyByTime() {
	tm := &joinTime{}
	ctx := &expr.Ctx{}
	for side := range 2 {
		var only *intervalBound
		n := 0
		for i := range w.bounds {
			if w.bounds[i].side == side {
				only, n = &w.bounds[i], n+1
			}
		}
		switch {
		case n == 0:
			continue
		case n > 1 || !timedType(only.q.hi.Type()):
			return
		}
		tm.val[side] = func(row repr.Row) (int64, bool) { return w.hiValue(ctx, only, row) }
		tm.names[side] = &only.idx.sp
	}
	if tm.val[0] != nil || tm.val[1] != nil {
		w.tm = tm
	}
}

func (w *intervalJoin) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	out, err := w.joinOp.step(s, ins)
	if err != nil {
		return nil, err
	}
	for _, t := range w.touched {
		if !t.existed && t.r.in() {
			if err := w.index(s.ctx, t.side, t.r, t.row); err != nil {
				return nil, err
			}
		}
	}
	for i := range w.bounds {
		b := &w.bounds[i]
		thr, ok := w.threshold(s, b)
		if !ok {
			continue
		}
		if err := b.idx.close(s, w.joinOp, b.side, thr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// threshold is the value below which b's hi frees a row in this Step.
func (w *intervalJoin) threshold(s *stepCtx, b *intervalBound) (int64, bool) {
	wm := s.inWM[1-b.side][b.col]
	if wm == NoWatermark {
		return 0, false
	}
	v, ok := evalMono(s.ctx, b.q.lo, w.cols, b.q.loMono, wm, &w.scratch)
	return strictNext(v, b.q.strict), ok
}

// index files row r of side under its hi value in every bound of side;
// row, if not nil, is r's columns.
func (w *intervalJoin) index(ctx *expr.Ctx, side int, r *jrow, row repr.Row) error {
	row, err := w.columnsOf(side, r, row)
	if err != nil {
		return err
	}
	w.file(ctx, side, row, func(b *intervalBound, v int64) { b.idx.add(w.joinOp, side, v, r) })
	return nil
}

// file calls add with every bound of side and its hi value over row (a
// row of side), but those where hi is NULL.
func (w *intervalJoin) file(ctx *expr.Ctx, side int, row repr.Row, add func(b *intervalBound, v int64)) {
	for i := range w.bounds {
		b := &w.bounds[i]
		if b.side != side {
			continue
		}
		if v, ok := w.hiValue(ctx, b, row); ok {
			add(b, v)
		}
	}
}

// hiValue evaluates b's hi over a row of b's side.
func (w *intervalJoin) hiValue(ctx *expr.Ctx, b *intervalBound, row repr.Row) (int64, bool) {
	if cap(w.scratch) < len(w.cols) {
		w.scratch = make(repr.Row, len(w.cols))
	}
	r := w.scratch[:len(w.cols)]
	off := 0
	if b.side == 1 {
		off = w.widths[0]
	}
	copy(r[off:], row)
	d, err := b.q.hi.Eval(ctx, r)
	if err != nil || d.IsNull() {
		return 0, false
	}
	return wmValue(d)
}

func (w *intervalJoin) commit() {
	w.joinOp.commit()
	for i := range w.bounds {
		w.bounds[i].idx.commit()
	}
}

func (w *intervalJoin) rollback() {
	w.joinOp.rollback()
	for i := range w.bounds {
		w.bounds[i].idx.rollback()
	}
}

// restored indexes every restored row: every stored one when the
// restore stopped to spill (RestoreWithin).
func (w *intervalJoin) restored() error {
	ctx := &expr.Ctx{}
	if w.sp != nil {
		for side := range 2 {
			err := w.eachStored(side, func(row repr.Row, ref keyRef) error {
				w.file(ctx, side, row, func(b *intervalBound, v int64) { b.idx.sp.add(v, ref) })
				return nil
			})
			if err != nil {
				return err
			}
		}
		return w.joinOp.restored()
	}
	var err error
	for side := range 2 {
		w.sides[side].each(func(r *jrow) {
			if err == nil {
				err = w.index(ctx, side, r, nil)
			}
		})
	}
	if err != nil {
		return err
	}
	return w.joinOp.restored()
}

// spillTo spills the join with its close indexes (spill.go).
func (w *intervalJoin) spillTo(r StateReader, prefix []byte, cache int64) bool {
	idx := make([]*rowClose, len(w.bounds))
	sides := make([]int, len(w.bounds))
	for i := range w.bounds {
		idx[i], sides[i] = &w.bounds[i].idx, w.bounds[i].side
	}
	return w.spillIndexed(r, prefix, cache, idx, sides)
}

// report fills a Bounded report: bounded if both sides have a bound.
func (w *intervalJoin) report(r StateReport) StateReport {
	var why [2][]string
	for _, b := range w.bounds {
		why[b.side] = append(why[b.side], fmt.Sprintf("%s fails at #%d's watermark", b.q, b.q.loMono))
	}
	names := [2]string{"left", "right"}
	var parts []string
	for side := range 2 {
		if len(why[side]) == 0 {
			parts = append(parts, names[side]+" rows are never freed")
			continue
		}
		parts = append(parts, names[side]+" rows are freed once "+strings.Join(why[side], " or "))
	}
	r.Why = "interval join: " + strings.Join(parts, "; ")
	r.Bounded = len(why[0]) > 0 && len(why[1]) > 0
	r.Col = w.bounds[0].q.loMono
	if !r.Bounded {
		r.Col = w.wouldBound(len(why[0]) == 0)
	}
	return r
}

// wouldBound returns a joined column whose watermark would bound the
// rows of the unbounded side (left if left), -1 if none.
func (w *intervalJoin) wouldBound(left bool) int {
	side := 0
	if !left {
		side = 1
	}
	for _, q := range joinIneqs(w.spec, w.cols[:w.widths[0]], w.cols[w.widths[0]:]) {
		if q.loSide != side && q.loMono >= 0 && isTimeFamily(w.cols[q.loMono]) {
			return q.loMono
		}
	}
	return -1
}
