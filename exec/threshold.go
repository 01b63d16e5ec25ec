package exec

import "github.com/eddydb/eddy/repr"

// thresholdOp keeps each row with multiplicity max(count, 0), where count
// is the row's summed diff: on a batch it emits, for each touched row, the
// change of that clamped multiplicity. With Negate and Union it implements
// EXCEPT ALL.
//
// State: the multiset of input rows with nonzero count; O(distinct live
// rows). A row is kept as its key encoding followed by its value encoding
// (one allocation, which the map key shares) and decoded into the Step's
// slab when it is emitted; an input row is not kept, so it does not pin
// its Step's slab. Logged as row-key -> row(count, columns...).
type thresholdOp struct {
	width      int
	rows       map[string]*trow
	touched    []trowUndo
	kbuf, vbuf []byte
}

// trow is one distinct row and its count: enc[:klen] is its key encoding,
// enc[klen:] the value encoding of its columns.
type trow struct {
	enc   string
	n     int64
	stamp uint64
	klen  int32
	in    bool
}

// key returns r's key encoding.
func (r *trow) key() string { return r.enc[:r.klen] }

// trowUndo is a row's count before the pending Step.
type trowUndo struct {
	r       *trow
	n       int64
	existed bool
}

func newThreshold(width int) *thresholdOp {
	return &thresholdOp{width: width, rows: make(map[string]*trow)}
}

func (o *thresholdOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	keys := s.inKeys
	for i, u := range ins[0] {
		if k := keys.at(i); k != nil {
			o.kbuf = append(o.kbuf[:0], k...)
		} else {
			o.kbuf = repr.AppendRowKey(o.kbuf[:0], u.Row)
		}
		r := o.rows[string(o.kbuf)]
		if r == nil {
			r = o.newRow(o.kbuf, repr.AppendDatums(o.vbuf[:0], u.Row))
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
			row := s.slab.row(o.width)
			if err := repr.DecodeDatums(row, t.r.enc[t.r.klen:], &s.slab.decs); err != nil {
				return nil, err
			}
			out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
		}
		o.log(s, t.r)
	}
	return out, nil
}

// newRow registers a row of key encoding key and value encoding vals.
func (o *thresholdOp) newRow(key, vals []byte) *trow {
	enc := make([]byte, 0, len(key)+len(vals))
	r := &trow{enc: string(append(append(enc, key...), vals...)), klen: int32(len(key)), in: true}
	o.rows[r.key()] = r
	return r
}

// log logs r and frees it if its count is zero.
func (o *thresholdOp) log(s *stepCtx, r *trow) {
	o.kbuf = append(append(o.kbuf[:0], s.prefix...), r.key()...)
	if r.n == 0 {
		s.log.del(o.kbuf)
		delete(o.rows, r.key())
		r.in = false
		return
	}
	o.vbuf = repr.AppendRowHeader(o.vbuf[:0], 1+o.width)
	o.vbuf = repr.AppendDatums(o.vbuf, repr.Row{repr.NewInt(r.n)})
	o.vbuf = append(o.vbuf, r.enc[r.klen:]...)
	s.log.set(o.kbuf, o.vbuf)
}

func (o *thresholdOp) commit() {
	clear(o.touched)
	o.touched = o.touched[:0]
}

func (o *thresholdOp) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.n = t.n
		switch {
		case !t.existed && t.r.in:
			delete(o.rows, t.r.key())
			t.r.in = false
		case t.existed && !t.r.in:
			o.rows[t.r.key()] = t.r
			t.r.in = true
		}
	}
	o.commit()
}

func (o *thresholdOp) restore(key, value []byte) error {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) != 1+o.width {
		return errCorrupt
	}
	o.newRow(key, repr.AppendDatums(o.vbuf[:0], r[1:])).n = r[0].Int()
	return nil
}

func (o *thresholdOp) restored() error { return nil }
