package exec

import "github.com/eddydb/eddy/repr"

// thresholdOp keeps each row with multiplicity max(count, 0), where count
// is the row's summed diff: on a batch it emits, for each touched row, the
// change of that clamped multiplicity. With Negate and Union it implements
// EXCEPT ALL.
//
// State: the multiset of input rows with nonzero count; O(distinct live
// rows). Logged as row-key -> row(count, columns...).
type thresholdOp struct {
	rows       map[string]*trow
	touched    []trowUndo
	kbuf, vbuf []byte
	scratch    repr.Row
}

// trow is one distinct row and its count.
type trow struct {
	row   repr.Row
	key   string
	n     int64
	stamp uint64
	in    bool
}

// trowUndo is a row's count before the pending Step.
type trowUndo struct {
	r       *trow
	n       int64
	existed bool
}

func newThreshold() *thresholdOp { return &thresholdOp{rows: make(map[string]*trow)} }

func (o *thresholdOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	for _, u := range ins[0] {
		o.kbuf = repr.AppendRowKey(o.kbuf[:0], u.Row)
		r := o.rows[string(o.kbuf)]
		if r == nil {
			r = &trow{row: u.Row, key: string(o.kbuf), in: true}
			o.rows[r.key] = r
			r.stamp = s.epoch
			o.touched = append(o.touched, trowUndo{r: r})
		} else if r.stamp != s.epoch {
			r.stamp = s.epoch
			o.touched = append(o.touched, trowUndo{r: r, n: r.n, existed: true})
		}
		r.n += u.Diff
	}
	var out []repr.Update
	for _, t := range o.touched {
		if d := max(t.r.n, 0) - max(t.n, 0); d != 0 {
			out = append(out, repr.Update{Row: t.r.row, Time: s.t, Diff: d})
		}
		o.log(s, t.r)
	}
	return out, nil
}

// log logs r and frees it if its count is zero.
func (o *thresholdOp) log(s *stepCtx, r *trow) {
	o.kbuf = append(append(o.kbuf[:0], s.prefix...), r.key...)
	if r.n == 0 {
		s.log.del(o.kbuf)
		delete(o.rows, r.key)
		r.in = false
		return
	}
	o.scratch = append(append(o.scratch[:0], repr.NewInt(r.n)), r.row...)
	o.vbuf = repr.AppendRow(o.vbuf[:0], o.scratch)
	s.log.set(o.kbuf, o.vbuf)
}

func (o *thresholdOp) commit() { o.touched = o.touched[:0] }

func (o *thresholdOp) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.n = t.n
		switch {
		case !t.existed && t.r.in:
			delete(o.rows, t.r.key)
			t.r.in = false
		case t.existed && !t.r.in:
			o.rows[t.r.key] = t.r
			t.r.in = true
		}
	}
	o.commit()
}

func (o *thresholdOp) restore(key, value []byte) error {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) < 1 {
		return errCorrupt
	}
	o.rows[string(key)] = &trow{row: r[1:], key: string(key), n: r[0].Int(), in: true}
	return nil
}

func (o *thresholdOp) restored() error { return nil }
