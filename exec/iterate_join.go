package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// loopJoin is an equi-join inside a loop body (see iterate.go). At
// iteration k it emits, for each pair of rows a (left) and b (right) of
// one key, the change of a⋈b at (N, k): the pairs of their diffs at
// iterations i and j with max(i, j) = k, at least one of them from the
// pending Step N:
//
//	a.n(k)·b(<=k) + a.p(k)·b.n(<=k) + a.n(<k)·b(k) + a.p(<k)·b.n(k)
//
// where .p are past and .n pending diffs. A key is evaluated at the
// iterations at which one of its rows has diffs, from the first iteration
// the pending Step changed it on.
//
// An outer join also pads each row of a preserved side that has no match
// (residual included): the padded row's multiplicity is a function of the
// key's rows, f(rows at <= (N, k)), so iteration k emits its value minus
// the past Steps' value f(past rows at <= k) minus what earlier iterations
// of the pending Step emitted (lrow.pad). Rows of a preserved side with a
// NULL key each get a bucket of their own; other NULL-key rows are dropped.
//
// State: both inputs' rows by join key, each with its diffs per iteration
// (O(live rows × iterations at which they changed)); rows with a NULL key
// never match and are not kept. Logged as {1 or 2 for left or right}
// row-key -> row(history..., columns...).
type loopJoin struct {
	spec    dataflow.Join
	keys    [2][]int
	outer   [2]bool
	widths  [2]int
	buckets map[string]*lbucket
	loopGroups[*lbucket]
	touched []lrowUndo
	kbuf    []byte
	rbuf    []byte
	scratch repr.Row
	sums    [2][]rowSums
}

// lbucket holds the rows of one join key, per side.
type lbucket struct {
	key  string
	rows [2]map[string]*lrow
	loopMarks
}

// lrow is one distinct row of one side.
type lrow struct {
	row   repr.Row
	key   string
	h     ihist
	stamp uint64
	// pad is the multiplicity of the row's NULL-padded output the pending
	// Step has emitted so far (outer sides only).
	pad int64
}

// lrowUndo remembers a row the pending Step changed.
type lrowUndo struct {
	b       *lbucket
	side    int
	r       *lrow
	oldP    []iterDiff
	existed bool
}

// rowSums are a row's diffs summed around iteration k (ihist.sums).
type rowSums struct {
	r                  *lrow
	pLt, pEq, nLt, nEq int64
}

func newLoopJoin(spec dataflow.Join, widths [2]int) *loopJoin {
	o := &loopJoin{spec: spec, keys: [2][]int{spec.LeftKey, spec.RightKey}, widths: widths,
		buckets: map[string]*lbucket{}}
	o.outer[0] = spec.Kind == dataflow.LeftJoin || spec.Kind == dataflow.FullJoin
	o.outer[1] = spec.Kind == dataflow.RightJoin || spec.Kind == dataflow.FullJoin
	return o
}

// bucketKey leaves in o.kbuf the key of row's bucket on side: "k" and the
// join key, or for a row of a preserved side with a NULL key column, "n",
// the side and the row; ok is false for other rows with a NULL key.
func (o *loopJoin) bucketKey(side int, row repr.Row) (ok bool) {
	for _, c := range o.keys[side] {
		if row[c].IsNull() {
			if !o.outer[side] {
				return false
			}
			o.kbuf = repr.AppendRowKey(append(o.kbuf[:0], 'n', byte(side)), row)
			return true
		}
	}
	o.kbuf = repr.AppendColsKey(append(o.kbuf[:0], 'k'), row, o.keys[side])
	return true
}

func (o *loopJoin) step(*stepCtx, [][]repr.Update) ([]repr.Update, error) {
	return nil, fmt.Errorf("loop join stepped outside its loop")
}

func (o *loopJoin) iter(s *stepCtx, k int, ins [][]repr.Update) ([]repr.Update, error) {
	o.begin(k)
	for side := range 2 {
		for _, u := range ins[side] {
			if b := o.bucket(s, side, u.Row, k); b != nil {
				o.row(s, b, side, u.Row).h.add(k, u.Diff)
				o.queue(b, k)
			}
		}
	}
	var out []repr.Update
	for _, b := range o.cand {
		var err error
		if out, err = o.eval(s, b, k, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bucket returns the bucket of row's join key (nil if the key has a
// NULL), touching it: the first touch in a Step schedules the bucket at
// every later iteration at which it has past diffs.
func (o *loopJoin) bucket(s *stepCtx, side int, row repr.Row, k int) *lbucket {
	if !o.bucketKey(side, row) {
		return nil
	}
	b := o.buckets[string(o.kbuf)]
	if b == nil {
		b = &lbucket{key: string(o.kbuf), rows: [2]map[string]*lrow{{}, {}}, loopMarks: loopMarks{mark: -1}}
		o.buckets[b.key] = b
	}
	if o.touch(s.epoch, b) {
		for sd := range 2 {
			for _, r := range b.rows[sd] {
				r.pad = 0
				o.after(k, b, r.h.p)
			}
		}
	}
	return b
}

// row returns b's entry for row on side, recording it for rollback.
func (o *loopJoin) row(s *stepCtx, b *lbucket, side int, row repr.Row) *lrow {
	o.rbuf = repr.AppendRowKey(o.rbuf[:0], row)
	r := b.rows[side][string(o.rbuf)]
	existed := r != nil
	if r == nil {
		r = &lrow{row: row, key: string(o.rbuf)}
		b.rows[side][r.key] = r
	}
	if r.stamp != s.epoch {
		r.stamp = s.epoch
		o.touched = append(o.touched, lrowUndo{b: b, side: side, r: r, oldP: r.h.p, existed: existed})
	}
	return r
}

// eval emits the change of b's join result at iteration k.
func (o *loopJoin) eval(s *stepCtx, b *lbucket, k int, out []repr.Update) ([]repr.Update, error) {
	for side := range 2 {
		o.sums[side] = o.sums[side][:0]
		for _, r := range b.rows[side] {
			x := rowSums{r: r}
			x.pLt, x.pEq, x.nLt, x.nEq = r.h.sums(s.epoch, k)
			if x != (rowSums{r: r}) {
				o.sums[side] = append(o.sums[side], x)
			}
		}
	}
	for _, a := range o.sums[0] {
		for _, c := range o.sums[1] {
			if err := s.poll(); err != nil {
				return nil, err
			}
			d := a.nEq*(c.pLt+c.pEq+c.nLt+c.nEq) + a.pEq*(c.nLt+c.nEq) + a.nLt*(c.pEq+c.nEq) + a.pLt*c.nEq
			if d == 0 {
				continue
			}
			ok, err := joinResidual(s, o.spec.Residual, &o.scratch, a.r.row, c.r.row)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, repr.Update{Row: s.slab.concat(a.r.row, c.r.row), Time: s.t, Diff: d})
			}
		}
	}
	for side := range 2 {
		if o.outer[side] {
			var err error
			if out, err = o.padSide(s, side, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// padSide emits the change of the padded rows of side in the bucket whose
// sums o.sums holds: a row is padded, with its count, while the counts of
// the other side's rows it matches sum to zero.
func (o *loopJoin) padSide(s *stepCtx, side int, out []repr.Update) ([]repr.Update, error) {
	for _, a := range o.sums[side] {
		var all, past int64
		for _, c := range o.sums[1-side] {
			l, r := a.r.row, c.r.row
			if side == 1 {
				l, r = r, l
			}
			ok, err := joinResidual(s, o.spec.Residual, &o.scratch, l, r)
			if err != nil {
				return nil, err
			}
			if ok {
				all += c.pLt + c.pEq + c.nLt + c.nEq
				past += c.pLt + c.pEq
			}
		}
		d := padCount(a.pLt+a.pEq+a.nLt+a.nEq, all) - padCount(a.pLt+a.pEq, past) - a.r.pad
		if d == 0 {
			continue
		}
		a.r.pad += d
		row := s.slab.row(o.widths[0] + o.widths[1])
		copy(row[side*o.widths[0]:], a.r.row)
		out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
	}
	return out, nil
}

func (o *loopJoin) next() int { return o.sched.next() }

// finish folds the pending diffs of every touched row into its past ones
// and logs the row (deleting it once no diff is left).
func (o *loopJoin) finish(s *stepCtx) {
	for _, t := range o.touched {
		o.rbuf = append(append(o.rbuf[:0], s.prefix...), byte(t.side+1))
		o.rbuf = append(o.rbuf, t.r.key...)
		if foldHist(s, o.rbuf, &t.r.h, t.r.row, &o.scratch) {
			o.drop(t.b, t.side, t.r)
		}
	}
	o.sched.reset()
}

// drop removes r from b, and b once empty.
func (o *loopJoin) drop(b *lbucket, side int, r *lrow) {
	delete(b.rows[side], r.key)
	if len(b.rows[0]) == 0 && len(b.rows[1]) == 0 {
		delete(o.buckets, b.key)
	}
}

func (o *loopJoin) commit() { o.touched = o.touched[:0] }

// rollback restores every touched row's past diffs, newest first, and
// drops its pending ones.
func (o *loopJoin) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.h.p, t.r.h.n = t.oldP, nil
		if !t.existed {
			o.drop(t.b, t.side, t.r)
			continue
		}
		t.b.rows[t.side][t.r.key] = t.r
		o.buckets[t.b.key] = t.b
	}
	o.sched.reset()
	o.commit()
}

func (o *loopJoin) restore(key, value []byte) error {
	r, err := repr.DecodeRow(value)
	if err != nil || len(key) == 0 || key[0] < 1 || key[0] > 2 {
		return errCorrupt
	}
	side := int(key[0] - 1)
	h, row, err := decodeHist(r)
	if err != nil || !o.bucketKey(side, row) {
		return errCorrupt
	}
	b := o.buckets[string(o.kbuf)]
	if b == nil {
		b = &lbucket{key: string(o.kbuf), rows: [2]map[string]*lrow{{}, {}}, loopMarks: loopMarks{mark: -1}}
		o.buckets[b.key] = b
	}
	b.rows[side][string(key[1:])] = &lrow{row: row, key: string(key[1:]), h: ihist{p: h}}
	return nil
}

func (o *loopJoin) restored() error { return nil }

// debug lists every row with its side and history.
func (o *loopJoin) debug() []string {
	var lines []string
	for _, b := range o.buckets {
		for side := range 2 {
			for _, r := range b.rows[side] {
				lines = append(lines, fmt.Sprintf("%s %s%s", [2]string{"L", "R"}[side], dataflow.FormatRow(r.row), formatHist(r.h.p)))
			}
		}
	}
	return lines
}
