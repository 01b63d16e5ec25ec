package exec

import (
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// thresholdOp keeps each row with multiplicity max(count, 0), where count
// is the row's summed diff: on a batch it emits, for each touched row, the
// change of that clamped multiplicity. With Negate and Union it implements
// EXCEPT ALL.
//
// Rows equal under = but printed differently (2 and 2.00; repr.MultiRep)
// are one row for the count, as PostgreSQL's EXCEPT ALL and INTERSECT ALL
// compare them, but kept apart by their exact keys (repr.
// AppendRowKeyExact), and the max(count, 0) copies a class shows are
// drawn from its representations with a positive count, least exact key
// first (alloc): so they are always rows of the input's positive side
// (EXCEPT ALL shows left rows; INTERSECT ALL, A - threshold(A - B), then
// retracts only rows A holds), and the choice is a function of the
// input, the same in a view and a recomputation.
//
// State: the multiset of input rows with nonzero count; O(distinct live
// rows). A row is kept as its key encoding followed by its value encoding
// (one allocation, which the map key shares) and decoded into the Step's
// slab when it is emitted; an input row is not kept, so it does not pin
// its Step's slab. Logged as exact-row-key -> row(count, columns...).
// Rows of several representations also sit in their class (classes, by
// the class key: a slice of them in exact-key order).
type thresholdOp struct {
	width      int
	rows       map[string]*trow
	classes    map[string][]*trow
	touched    []trowUndo
	ctouched   []string // classes the pending Step touched
	kbuf, vbuf []byte
	alloc      [2][]int64
}

// trow is one distinct row and its count: enc[:klen] is its key encoding,
// enc[klen:] the value encoding of its columns.
type trow struct {
	enc   string
	n     int64
	prev  int64 // n before the pending Step, when stamp is its epoch
	stamp uint64
	klen  int32
	clen  int32 // the class key's length when the row is MultiRep, else 0
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
	return &thresholdOp{width: width, rows: make(map[string]*trow), classes: make(map[string][]*trow)}
}

// class returns r's class key ("" when r is not MultiRep).
func (r *trow) class() string { return r.enc[:r.clen] }

// attach puts r in its class (if it has one and is not there yet).
func (o *thresholdOp) attach(r *trow) {
	if r.clen == 0 {
		return
	}
	c := o.classes[r.class()]
	i, found := slices.BinarySearchFunc(c, r.key(), func(e *trow, k string) int { return strings.Compare(e.key(), k) })
	if !found {
		o.classes[r.class()] = slices.Insert(c, i, r)
	}
}

// detach takes r out of its class.
func (o *thresholdOp) detach(r *trow) {
	if r.clen == 0 {
		return
	}
	c := slices.DeleteFunc(o.classes[r.class()], func(e *trow) bool { return e == r })
	if len(c) == 0 {
		delete(o.classes, r.class())
	} else {
		o.classes[r.class()] = c
	}
}

// allocate sets out[i] to the copies rep i of a class shows: max(total,
// 0) copies taken from the reps with a positive count, in order, each up
// to its count. count(i) is rep i's count.
func allocate(out []int64, count func(i int) int64) {
	total := int64(0)
	for i := range out {
		total += count(i)
	}
	for i := range out {
		out[i] = min(max(total, 0), max(count(i), 0))
		total -= out[i]
	}
}

func (o *thresholdOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	keys := s.inKeys
	for i, u := range ins[0] {
		clen := 0
		if k := keys.at(i); k != nil && !repr.RowMultiRep(u.Row) {
			o.kbuf = append(o.kbuf[:0], k...)
		} else if o.kbuf = repr.AppendRowKey(o.kbuf[:0], u.Row); repr.RowMultiRep(u.Row) {
			clen = len(o.kbuf)
			o.kbuf = repr.AppendRowKeyExact(o.kbuf[:0], u.Row)
		}
		r := o.rows[string(o.kbuf)]
		if r == nil {
			r = o.newRow(o.kbuf, repr.AppendDatums(o.vbuf[:0], u.Row), clen)
			r.stamp, r.prev = s.epoch, 0
			o.touched = append(o.touched, trowUndo{r: r})
		} else if r.stamp != s.epoch {
			r.stamp, r.prev = s.epoch, r.n
			o.touched = append(o.touched, trowUndo{r: r, n: r.n, existed: true})
		}
		if r.clen > 0 {
			o.ctouched = append(o.ctouched, r.class())
		}
		r.n += u.Diff
	}
	var out []repr.Update
	emit := func(r *trow, d int64) error {
		row := s.slab.row(o.width)
		if err := repr.DecodeDatums(row, r.enc[r.klen:], &s.slab.decs); err != nil {
			return err
		}
		out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
		return nil
	}
	for _, t := range o.touched {
		if t.r.clen > 0 {
			continue // emitted by class below
		}
		if d := max(t.r.n, 0) - max(t.n, 0); d != 0 {
			if err := emit(t.r, d); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(o.ctouched)
	o.ctouched = slices.Compact(o.ctouched)
	for _, ck := range o.ctouched {
		c := o.classes[ck]
		was, now := o.allocs(len(c))
		allocate(was, func(i int) int64 {
			if c[i].stamp == s.epoch {
				return c[i].prev
			}
			return c[i].n
		})
		allocate(now, func(i int) int64 { return c[i].n })
		for i := range c {
			if d := now[i] - was[i]; d != 0 {
				if err := emit(c[i], d); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, t := range o.touched {
		o.log(s, t.r)
	}
	return out, nil
}

// allocs returns the two scratch allocations, of n each.
func (o *thresholdOp) allocs(n int) ([]int64, []int64) {
	for i := range o.alloc {
		o.alloc[i] = slices.Grow(o.alloc[i][:0], n)[:n]
	}
	return o.alloc[0], o.alloc[1]
}

// newRow registers a row of key encoding key (exact, with a class key of
// clen bytes when clen > 0) and value encoding vals.
func (o *thresholdOp) newRow(key, vals []byte, clen int) *trow {
	enc := make([]byte, 0, len(key)+len(vals))
	r := &trow{enc: string(append(append(enc, key...), vals...)), klen: int32(len(key)), clen: int32(clen), in: true}
	o.rows[r.key()] = r
	o.attach(r)
	return r
}

// log logs r and frees it if its count is zero.
func (o *thresholdOp) log(s *stepCtx, r *trow) {
	o.kbuf = append(append(o.kbuf[:0], s.prefix...), r.key()...)
	if r.n == 0 {
		s.log.del(o.kbuf)
		delete(o.rows, r.key())
		o.detach(r)
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
	o.ctouched = o.ctouched[:0]
}

func (o *thresholdOp) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.n = t.n
		switch {
		case !t.existed && t.r.in:
			delete(o.rows, t.r.key())
			o.detach(t.r)
			t.r.in = false
		case t.existed && !t.r.in:
			o.rows[t.r.key()] = t.r
			o.attach(t.r)
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
	clen := 0
	if repr.RowMultiRep(r[1:]) {
		clen = len(repr.AppendRowKey(nil, r[1:]))
	}
	o.newRow(key, repr.AppendDatums(o.vbuf[:0], r[1:]), clen).n = r[0].Int()
	return nil
}

func (o *thresholdOp) restored() error { return nil }
