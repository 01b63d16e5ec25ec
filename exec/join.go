package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// joinOp is the equi-join of its left and right inputs with residual
// predicates, inner or outer. On a batch with changes dL and dR it emits
// dL⋈R + L'⋈dR (R before and L' after this batch), the bilinear rule of
// differential dataflow, then for outer joins the change of every padded
// row: a live row with no match appears padded with NULLs, with its own
// multiplicity, exactly while its match count is zero.
//
// State: both inputs arranged by join key (key -> live rows with counts),
// plus, per row, its match count: the summed multiplicity of the rows of
// the other side it joins with (residual included). Size: O(live rows of
// both inputs). Rows with a NULL key column never match and are kept only
// for outer padding. Rows are freed when their count reaches zero.
//
// Logged state: {0x01 or 0x02 for left or right} row-key -> row(count,
// matches, columns...).
type joinOp struct {
	spec                  dataflow.Join
	leftOuter, rightOuter bool
	widths                [2]int
	sides                 [2]joinSide
	touched               []joinUndo
	kbuf, rbuf, vbuf      []byte
	scratch               repr.Row
}

// joinSide is one input's arrangement.
type joinSide struct {
	keyCols []int
	rows    map[string]*jrow
	buckets map[string]*jbucket
}

// jbucket holds the rows of one join key, in insertion order (swap-remove).
type jbucket struct {
	key  string
	rows []*jrow
}

// jrow is one distinct row of one side.
type jrow struct {
	row     repr.Row
	key     string
	b       *jbucket
	pos     int
	n       int64
	matches int64
	stamp   uint64
	in      bool
}

// joinUndo is a row's state before the pending Step touched it.
type joinUndo struct {
	side       int
	r          *jrow
	n, matches int64
	existed    bool
}

func newJoin(spec dataflow.Join, left, right []repr.T) (*joinOp, error) {
	if len(spec.LeftKey) != len(spec.RightKey) {
		return nil, fmt.Errorf("join has %d left and %d right key columns", len(spec.LeftKey), len(spec.RightKey))
	}
	if err := checkCols(spec.LeftKey, len(left)); err != nil {
		return nil, err
	}
	if err := checkCols(spec.RightKey, len(right)); err != nil {
		return nil, err
	}
	o := &joinOp{spec: spec, widths: [2]int{len(left), len(right)}}
	o.leftOuter = spec.Kind == dataflow.LeftJoin || spec.Kind == dataflow.FullJoin
	o.rightOuter = spec.Kind == dataflow.RightJoin || spec.Kind == dataflow.FullJoin
	for i, cols := range [2][]int{spec.LeftKey, spec.RightKey} {
		o.sides[i] = joinSide{keyCols: cols, rows: make(map[string]*jrow), buckets: make(map[string]*jbucket)}
	}
	return o, nil
}

func (o *joinOp) outer(side int) bool { return side == 0 && o.leftOuter || side == 1 && o.rightOuter }

func (o *joinOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	var out []repr.Update
	for side := range 2 {
		for _, u := range ins[side] {
			var err error
			if out, err = o.apply(s, side, u, out); err != nil {
				return nil, err
			}
		}
	}
	out = o.pad(s, out)
	o.log(s)
	return out, nil
}

// apply joins update u of side with the other side's current rows and
// then adds it to side's arrangement.
func (o *joinOp) apply(s *stepCtx, side int, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	other := &o.sides[1-side]
	r, fresh := o.lookup(s, side, u.Row)
	var m int64
	if b := other.buckets[string(o.kbuf)]; b != nil && r.b != nil {
		for _, q := range b.rows {
			l, rr := u.Row, q.row
			if side == 1 {
				l, rr = q.row, u.Row
			}
			ok, err := o.residual(s, l, rr)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			m += q.n
			if d := u.Diff * q.n; d != 0 {
				out = append(out, repr.Update{Row: s.slab.concat(l, rr), Time: s.t, Diff: d})
			}
			if o.outer(1 - side) {
				o.touch(s, 1-side, q, true)
				q.matches += u.Diff
			}
		}
	}
	if fresh && o.outer(side) {
		r.matches = m
	}
	r.n += u.Diff
	return out, nil
}

// lookup finds (or creates) the entry of row on side, touching it, with
// the row's join key left in o.kbuf.
func (o *joinOp) lookup(s *stepCtx, side int, row repr.Row) (r *jrow, fresh bool) {
	me := &o.sides[side]
	o.rbuf = repr.AppendRowKey(o.rbuf[:0], row)
	if r = me.rows[string(o.rbuf)]; r == nil {
		r, fresh = &jrow{row: row, key: string(o.rbuf)}, true
		o.insert(side, r)
		o.touch(s, side, r, false)
		return r, true
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, me.keyCols)
	o.touch(s, side, r, true)
	return r, false
}

// residual evaluates the residual predicates over the joined row.
func (o *joinOp) residual(s *stepCtx, l, r repr.Row) (bool, error) {
	return joinResidual(s, o.spec.Residual, &o.scratch, l, r)
}

// joinResidual reports whether every predicate of a join's residual is
// true over the pair l, r (concatenated into *scratch, reused).
func joinResidual(s *stepCtx, preds []expr.Expr, scratch *repr.Row, l, r repr.Row) (bool, error) {
	if len(preds) == 0 {
		return true, nil
	}
	*scratch = append(append((*scratch)[:0], l...), r...)
	for _, e := range preds {
		v, err := e.Eval(s.ctx, *scratch)
		if err != nil || v.IsNull() || !v.Bool() {
			return false, err
		}
	}
	return true, nil
}

// touch records r's state before the pending Step changes it.
func (o *joinOp) touch(s *stepCtx, side int, r *jrow, existed bool) {
	if r.stamp == s.epoch {
		return
	}
	r.stamp = s.epoch
	o.touched = append(o.touched, joinUndo{side: side, r: r, n: r.n, matches: r.matches, existed: existed})
}

// insert adds r to side's arrangement (in its key's bucket unless the key
// has a NULL), leaving the join key in o.kbuf.
func (o *joinOp) insert(side int, r *jrow) {
	me := &o.sides[side]
	me.rows[r.key] = r
	r.in = true
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], r.row, me.keyCols)
	for _, c := range me.keyCols {
		if r.row[c].IsNull() {
			r.b = nil
			return
		}
	}
	b := me.buckets[string(o.kbuf)]
	if b == nil {
		b = &jbucket{key: string(o.kbuf)}
		me.buckets[b.key] = b
	}
	r.b, r.pos = b, len(b.rows)
	b.rows = append(b.rows, r)
}

// remove deletes r from side's arrangement.
func (o *joinOp) remove(side int, r *jrow) {
	me := &o.sides[side]
	delete(me.rows, r.key)
	r.in = false
	if b := r.b; b != nil {
		last := b.rows[len(b.rows)-1]
		b.rows[r.pos], last.pos = last, r.pos
		b.rows[len(b.rows)-1] = nil
		b.rows = b.rows[:len(b.rows)-1]
		if len(b.rows) == 0 {
			delete(me.buckets, b.key)
		}
		r.b = nil
	}
}

// pad emits the change of the NULL-padded row of every touched row of an
// outer side: its multiplicity is its count while it has no match.
func (o *joinOp) pad(s *stepCtx, out []repr.Update) []repr.Update {
	for _, t := range o.touched {
		if !o.outer(t.side) {
			continue
		}
		d := padCount(t.r.n, t.r.matches) - padCount(t.n, t.matches)
		if d == 0 {
			continue
		}
		row := s.slab.row(o.widths[0] + o.widths[1])
		off := 0
		if t.side == 1 {
			off = o.widths[0]
		}
		copy(row[off:], t.r.row)
		out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
	}
	return out
}

func padCount(n, matches int64) int64 {
	if matches != 0 {
		return 0
	}
	return n
}

// log logs every touched row and frees those whose count is zero.
func (o *joinOp) log(s *stepCtx) {
	for _, t := range o.touched {
		o.rbuf = append(append(o.rbuf[:0], s.prefix...), byte(t.side+1))
		o.rbuf = append(o.rbuf, t.r.key...)
		if t.r.n == 0 {
			s.log.del(o.rbuf)
			if t.r.in {
				o.remove(t.side, t.r)
			}
			continue
		}
		o.scratch = append(append(o.scratch[:0], repr.NewInt(t.r.n), repr.NewInt(t.r.matches)), t.r.row...)
		o.vbuf = repr.AppendRow(o.vbuf[:0], o.scratch)
		s.log.set(o.rbuf, o.vbuf)
	}
}

func (o *joinOp) commit() { o.touched = o.touched[:0] }

// rollback restores every touched row, newest first.
func (o *joinOp) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.n, t.r.matches = t.n, t.matches
		switch {
		case !t.existed && t.r.in:
			o.remove(t.side, t.r)
		case t.existed && !t.r.in:
			o.insert(t.side, t.r)
		}
	}
	o.commit()
}

func (o *joinOp) restore(key, value []byte) error {
	r, err := repr.DecodeRow(value)
	if err != nil || len(key) == 0 || key[0] < 1 || key[0] > 2 || len(r) < 2 {
		return errCorrupt
	}
	side := int(key[0] - 1)
	if len(r)-2 != o.widths[side] {
		return errCorrupt
	}
	o.insert(side, &jrow{row: r[2:], key: string(key[1:]), n: r[0].Int(), matches: r[1].Int()})
	return nil
}

func (o *joinOp) restored() error { return nil }
