package exec

import (
	"bytes"
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// Arrangements gives a Step read access to shared arrangements: indexes
// of source collections kept by the caller (the coordinator's tables and
// views), by index id. Lookup calls fn with every row of the collection
// whose index columns' key encoding (repr.AppendColsKey) starts with key,
// and its multiplicity, as of the Step: the Step's own updates of that
// collection are already in it. With d nil, the rows are fresh and fn may
// keep them for the Step; otherwise d decodes them (repr.ColDecoder):
// the row is d's scratch, valid only until fn returns, and the columns d
// does not need hold NULL or their value. fn must not mutate the
// collection.
type Arrangements interface {
	Lookup(index uint64, key []byte, d *repr.ColDecoder, fn func(row repr.Row, count int64) bool) error
}

// sharedReader reads one join input from shared arrangements: the
// collection's rows of a key, decoded only in the columns the input's
// MFP reads, filtered and mapped by it into rows of the Step's slab, and
// kept only if their key is exactly the lookup's. Filtered-out rows cost
// the decode of the MFP's columns and no allocation.
type sharedReader struct {
	// mfp maps the collection's rows to the input's rows (nil: the
	// input is the Source itself).
	mfp *mfpOp
	// more are MFPs applied after mfp, in order (a shared Reduce's input
	// may be a chain of MFPs over the Source).
	more []*mfpOp
	dec  repr.ColDecoder
	cbuf []byte
	// visitFn is visit as a method value, made once: the callback a
	// lookup passes to Arrangements, which then allocates nothing per
	// lookup (a closure over the lookup's arguments would escape).
	visitFn func(repr.Row, int64) bool
	// The lookup in progress, for visit: its Step, key, key columns,
	// the rows found so far and the MFP's error.
	s    *stepCtx
	key  []byte
	cols []int
	buf  []repr.Update
	err  error
}

// newSharedReader returns the reader of shared input node in of p, a
// Source or an MFP over one whose key columns (input columns) are source
// columns.
func newSharedReader(p *dataflow.Plan, in int, keys []int) (*sharedReader, error) {
	m, err := sharedInputMFP(p, in, keys)
	if err != nil {
		return nil, err
	}
	r := &sharedReader{mfp: m}
	r.visitFn = r.visit
	if m != nil {
		r.dec.Need = mfpReads(p.Nodes[in].Op.(dataflow.MFP), len(p.Nodes[p.Nodes[in].Inputs[0]].Types))
	}
	return r, nil
}

// lookup appends to buf the input's rows (in the Step's slab) whose key
// columns cols encode exactly to key, found in shared arrangement index,
// with their multiplicities at the Step's time.
func (r *sharedReader) lookup(s *stepCtx, index uint64, key []byte, cols []int, buf []repr.Update) ([]repr.Update, error) {
	if s.arr == nil {
		return nil, fmt.Errorf("shared arrangement %d is not available to this Step", index)
	}
	r.dec.Decs = &s.slab.decs
	r.s, r.key, r.cols, r.buf, r.err = s, key, cols, buf, nil
	err := s.arr.Lookup(index, key, &r.dec, r.visitFn)
	if err == nil {
		err = r.err
	}
	buf = r.buf
	r.s, r.key, r.cols, r.buf, r.err = nil, nil, nil, nil, nil
	return buf, err
}

// visit keeps one row of the lookup in progress: mapped by the MFP, if
// it passes, and only if its key is exactly the lookup's.
func (r *sharedReader) visit(row repr.Row, n int64) bool {
	if r.mfp == nil {
		row = r.s.slab.concat(row, nil)
	} else {
		var ok bool
		if row, ok, r.err = r.mfp.apply(r.s, row); !ok {
			return r.err == nil
		}
		for _, m := range r.more {
			if row, ok, r.err = m.apply(r.s, row); !ok {
				return r.err == nil
			}
		}
	}
	// A lookup is a prefix scan of key encodings; keep only rows whose
	// key is exactly key (an encoding that extends another, such as a
	// multidimensional array's of a one-dimensional one with the same
	// elements, must not match it).
	r.cbuf = repr.AppendColsKey(r.cbuf[:0], row, r.cols)
	if bytes.Equal(r.cbuf, r.key) {
		r.buf = append(r.buf, repr.Update{Row: row, Time: r.s.t, Diff: n})
	}
	return true
}

// mfpReads marks the input columns (of nIn) that m's maps, filters and
// projection read.
func mfpReads(m dataflow.MFP, nIn int) []bool {
	used := make([]bool, nIn)
	mark := func(c int) {
		if c < nIn {
			used[c] = true
		}
	}
	for _, e := range m.Map {
		walkCols(e, mark)
	}
	for _, f := range m.Filter {
		walkCols(f, mark)
	}
	for _, c := range m.Project {
		mark(c)
	}
	return used
}

// sharedJoin is an inner equi-join (dataflow.Join with Shared set) one of
// whose inputs, the shared side S, is read from a shared arrangement: an
// index of S's source collection that the coordinator keeps anyway, so
// the join does not keep a private copy of S. With private side P, on a
// batch with changes dP and dS it emits
//
//	dS⋈P + dP⋈S'
//
// where P is the private arrangement before the batch and S' the shared
// one after it (it already holds dS): the same sum as joinOp's
// dP⋈S + P'⋈dS, since S = S' - dS and P' = P + dP. dS⋈P is found in
// P's arrangement by key; dP⋈S' by a lookup in the shared arrangement, of
// whose rows the MFP between S's source and the join (if any) keeps and
// maps the ones S's input would hold. This is the half of Materialize's
// delta join that reads a base arrangement.
//
// State: P's rows by join key, as joinOp keeps one side (logged the same
// way, under side byte 1 or 2); nothing for S. Size: O(live rows of P).
type sharedJoin struct {
	j      *joinOp // the private side's arrangement; the shared side stays empty
	side   int     // the shared side
	index  uint64
	shared *sharedReader
	// sharedIn is the shared input's node, whose row count (under
	// CountRows) the lookups' rows add to.
	sharedIn int
	kbuf     []byte
	ups      []repr.Update
	order    keyOrder // the private changes' keys (joinShared)
}

// newSharedJoin builds the shared join of node i of p, whose Shared input
// must be a Source or a Map-free or Map-using MFP over a Source (the join
// key columns on that side must then be source columns).
func newSharedJoin(p *dataflow.Plan, i int, in [][]repr.T) (operator, error) {
	n := &p.Nodes[i]
	spec := n.Op.(dataflow.Join)
	sh := spec.Shared
	if spec.Kind != dataflow.InnerJoin || spec.AppendOnly || sh.Side < 0 || sh.Side > 1 {
		return nil, fmt.Errorf("a shared arrangement serves only a plain inner join")
	}
	j, err := newJoin(spec, in[0], in[1])
	if err != nil {
		return nil, err
	}
	keys := [2][]int{spec.LeftKey, spec.RightKey}[sh.Side]
	r, err := newSharedReader(p, n.Inputs[sh.Side], keys)
	if err != nil {
		return nil, err
	}
	return &sharedJoin{j: j, side: sh.Side, index: sh.Index, shared: r, sharedIn: n.Inputs[sh.Side]}, nil
}

func (o *sharedJoin) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	p := 1 - o.side
	var out []repr.Update
	var err error
	for _, u := range ins[o.side] {
		if out, err = o.joinPrivate(s, u, out); err != nil {
			return nil, err
		}
	}
	if out, err = o.joinShared(s, ins[p], out); err != nil {
		return nil, err
	}
	for _, u := range ins[p] {
		r, _, err := o.j.lookup(s, p, u.Row)
		if err != nil {
			return nil, err
		}
		r.n += u.Diff
	}
	return out, o.j.log(s)
}

// joinPrivate joins a change u of the shared side with the private rows
// of its key (as they were before this Step's private changes).
func (o *sharedJoin) joinPrivate(s *stepCtx, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	key, ok := o.key(u.Row, o.side)
	if !ok {
		return out, nil
	}
	if o.j.sp != nil {
		if err := o.j.useSide(1-o.side, key, false); err != nil {
			return nil, err
		}
	}
	priv := &o.j.sides[1-o.side]
	b := priv.buckets[string(key)]
	if b == nil {
		return out, nil
	}
	for _, id := range b.rows {
		if err := s.poll(); err != nil {
			return nil, err
		}
		q := priv.at(id)
		if q.n == 0 {
			continue
		}
		d := q.n * u.Diff
		row, ok, err := o.j.match(s, o.side, u.Row, q, d != 0)
		if err != nil {
			return nil, err
		}
		if ok && d != 0 {
			out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
		}
	}
	return out, nil
}

// joinShared joins the private side's changes ups with the shared
// arrangement's rows of their keys (mapped by the shared input's MFP),
// looked up in key order and once per distinct key. The private
// arrangement does not take part, so it may change before or after.
func (o *sharedJoin) joinShared(s *stepCtx, ups []repr.Update, out []repr.Update) ([]repr.Update, error) {
	o.order.reset()
	for idx, u := range ups {
		if key, ok := o.key(u.Row, 1-o.side); ok {
			o.order.add(idx, key)
		}
	}
	err := o.order.runs(func(key []byte, rows []keyedRow) error {
		found, err := o.shared.lookup(s, o.index, key, o.j.sides[o.side].keyCols, o.ups[:0])
		if err != nil {
			return err
		}
		for _, r := range rows {
			u := ups[r.idx]
			for _, q := range found {
				if out, err = o.emit(s, u.Row, u.Diff, q.Row, q.Diff, out); err != nil {
					return err
				}
				if s.counts != nil {
					s.counts[o.sharedIn] += q.Diff
				}
			}
		}
		clear(found)
		o.ups = found[:0]
		return nil
	})
	return out, err
}

// key encodes row's join key on side; ok is false when a key column is
// NULL (such a row never matches).
func (o *sharedJoin) key(row repr.Row, side int) ([]byte, bool) {
	cols := o.j.sides[side].keyCols
	for _, c := range cols {
		if row[c].IsNull() {
			return nil, false
		}
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, cols)
	return o.kbuf, true
}

// emit appends the joined row of a private row (count pn) and a shared
// row (count sn), in the join's column order, if the residual holds.
func (o *sharedJoin) emit(s *stepCtx, prow repr.Row, pn int64, srow repr.Row, sn int64, out []repr.Update) ([]repr.Update, error) {
	if err := s.poll(); err != nil {
		return nil, err
	}
	l, r := prow, srow
	if o.side == 0 {
		l, r = srow, prow
	}
	ok, err := o.j.residual(s, l, r)
	if err != nil || !ok {
		return out, err
	}
	if d := pn * sn; d != 0 {
		out = append(out, repr.Update{Row: s.slab.concat(l, r), Time: s.t, Diff: d})
	}
	return out, nil
}

func (o *sharedJoin) commit()                         { o.j.commit() }
func (o *sharedJoin) rollback()                       { o.j.rollback() }
func (o *sharedJoin) restore(key, value []byte) error { return o.j.restore(key, value) }
func (o *sharedJoin) restored() error                 { return nil }
