package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// loopReduce is a grouped Reduce with aggregates, a grouped TopK or a
// partitioned Window inside a loop body (see iterate.go), as decorrelated
// subqueries in a recursive term produce (EXISTS, IN, a correlated scalar
// subquery over the recursive row), and DISTINCT ON, LIMIT or windows of
// a recursive term whose groups the planner keys by iteration
// (planner/recursive_tag.go). A group's output at (N, k) is F(its rows
// accumulated at <= (N, k)), where F is the operator itself: a scratch
// reduceOp, topkOp or windowOp is stepped over the rows and rolled back,
// so it keeps exactly its ordinary semantics.
// Iteration k emits F(rows at <= k) - F(past rows at <= k) - what earlier
// iterations of the pending Step emitted for the group, for every group
// changed at an iteration <= k that has diffs at k. Each evaluation costs
// O(rows of the group). A global aggregate (no key) is not supported: its
// row exists before any input, which a per-group evaluation never sees.
//
// State: per group, its input rows with their diffs per iteration. Logged
// as row-key -> row(history..., columns...).
type loopReduce struct {
	key     []int
	scratch scratchOp
	groups  map[string]*lbucket
	emitted map[*lbucket][]repr.Update
	loopGroups[*lbucket]
	touched    []lrowUndo
	epoch      uint64
	off        stateLog
	kbuf       []byte
	rbuf       []byte
	scratchRow repr.Row
	all, past  []repr.Update
}

// scratchOp is the operator a loopReduce evaluates over one group's rows
// and rolls back.
type scratchOp interface {
	step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error)
	rollback()
}

func newLoopReduce(spec dataflow.Reduce, in, out []repr.T) (*loopReduce, error) {
	spec.AppendOnly = false
	r, err := newReduce(spec, in, out)
	if err != nil {
		return nil, err
	}
	return newLoopGroups(spec.Key, r), nil
}

// newLoopTopK is a TopK in a loop body, evaluated per group of its key.
func newLoopTopK(spec dataflow.TopK, in []repr.T) (*loopReduce, error) {
	spec.AppendOnly = false
	t, err := newTopK(spec, in)
	if err != nil {
		return nil, err
	}
	return newLoopGroups(spec.Key, t), nil
}

// newLoopWindow is a Window in a loop body, evaluated per partition: the
// planner partitions every window over the recursive reference by the
// iteration tag, so a partition is one iteration's rows, as PostgreSQL
// evaluates windows over each working table.
func newLoopWindow(spec dataflow.Window, in []repr.T) (*loopReduce, error) {
	w, err := newWindow(spec, in)
	if err != nil {
		return nil, err
	}
	return newLoopGroups(spec.Key, w), nil
}

// newLoopGroups is a loopReduce evaluating scratch per group of key.
func newLoopGroups(key []int, scratch scratchOp) *loopReduce {
	return &loopReduce{key: key, scratch: scratch, groups: map[string]*lbucket{},
		emitted: map[*lbucket][]repr.Update{}, off: stateLog{off: true}}
}

func (o *loopReduce) step(*stepCtx, [][]repr.Update) ([]repr.Update, error) {
	return nil, fmt.Errorf("loop reduce stepped outside its loop")
}

func (o *loopReduce) iter(s *stepCtx, k int, ins [][]repr.Update) ([]repr.Update, error) {
	o.begin(k)
	for _, u := range ins[0] {
		g := o.group(s, u.Row, k)
		o.row(s, g, u.Row).h.add(k, u.Diff)
		o.queue(g, k)
	}
	var out []repr.Update
	for _, g := range o.cand {
		var err error
		if out, err = o.eval(s, g, k, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// group returns row's group, touching it: the first touch in a Step
// schedules it at every later iteration at which it has past diffs.
func (o *loopReduce) group(s *stepCtx, row repr.Row, k int) *lbucket {
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.key)
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &lbucket{key: string(o.kbuf), rows: [2]map[string]*lrow{{}, nil}, loopMarks: loopMarks{mark: -1}}
		o.groups[g.key] = g
	}
	if o.touch(s.epoch, g) {
		for _, r := range g.rows[0] {
			o.after(k, g, r.h.p)
		}
	}
	return g
}

// row returns g's entry for row, recording it for rollback.
func (o *loopReduce) row(s *stepCtx, g *lbucket, row repr.Row) *lrow {
	o.rbuf = repr.AppendRowKey(o.rbuf[:0], row)
	r := g.rows[0][string(o.rbuf)]
	existed := r != nil
	if r == nil {
		r = &lrow{row: row, key: string(o.rbuf)}
		g.rows[0][r.key] = r
	}
	if r.stamp != s.epoch {
		r.stamp = s.epoch
		o.touched = append(o.touched, lrowUndo{b: g, r: r, oldP: r.h.p, existed: existed})
	}
	return r
}

// eval emits the change of g's output at iteration k.
func (o *loopReduce) eval(s *stepCtx, g *lbucket, k int, out []repr.Update) ([]repr.Update, error) {
	o.all, o.past = o.all[:0], o.past[:0]
	for _, r := range g.rows[0] {
		pLt, pEq, nLt, nEq := r.h.sums(s.epoch, k)
		if n := pLt + pEq + nLt + nEq; n != 0 {
			o.all = append(o.all, repr.Update{Row: r.row, Time: s.t, Diff: n})
		}
		if n := pLt + pEq; n != 0 {
			o.past = append(o.past, repr.Update{Row: r.row, Time: s.t, Diff: n})
		}
	}
	all, err := o.apply(s, o.all)
	if err != nil {
		return nil, err
	}
	past, err := o.apply(s, o.past)
	if err != nil {
		return nil, err
	}
	var d []repr.Update
	d = append(d, all...)
	for _, set := range [][]repr.Update{past, o.emitted[g]} {
		for _, u := range set {
			d = append(d, repr.Update{Row: u.Row, Time: s.t, Diff: -u.Diff})
		}
	}
	d = Consolidate(d)
	o.emitted[g] = append(o.emitted[g], d...)
	return append(out, d...), nil
}

// apply returns the Reduce's output over rows (nothing for none), using
// the scratch reduceOp and rolling it back.
func (o *loopReduce) apply(s *stepCtx, rows []repr.Update) ([]repr.Update, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	o.epoch++
	ss := stepCtx{ctx: s.ctx, t: s.t, epoch: o.epoch, log: &o.off, slab: s.slab, now: s.now}
	res, err := o.scratch.step(&ss, [][]repr.Update{rows})
	o.scratch.rollback()
	return res, err
}

func (o *loopReduce) next() int { return o.sched.next() }

// finish folds every touched row's pending diffs into its past ones and
// logs it (deleting it once no diff is left).
func (o *loopReduce) finish(s *stepCtx) {
	for _, t := range o.touched {
		o.rbuf = append(append(o.rbuf[:0], s.prefix...), t.r.key...)
		if foldHist(s, o.rbuf, &t.r.h, t.r.row, &o.scratchRow) {
			o.drop(t.b, t.r)
		}
	}
	o.sched.reset()
	clear(o.emitted)
}

// drop removes r from g, and g once empty.
func (o *loopReduce) drop(g *lbucket, r *lrow) {
	delete(g.rows[0], r.key)
	if len(g.rows[0]) == 0 {
		delete(o.groups, g.key)
	}
}

func (o *loopReduce) commit() { o.touched = o.touched[:0] }

func (o *loopReduce) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.h.p, t.r.h.n = t.oldP, nil
		if !t.existed {
			o.drop(t.b, t.r)
			continue
		}
		t.b.rows[0][t.r.key] = t.r
		o.groups[t.b.key] = t.b
	}
	o.sched.reset()
	clear(o.emitted)
	o.commit()
}

func (o *loopReduce) restore(key, value []byte) error {
	h, row, err := decodeLogged(value)
	if err != nil {
		return err
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.key)
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &lbucket{key: string(o.kbuf), rows: [2]map[string]*lrow{{}, nil}, loopMarks: loopMarks{mark: -1}}
		o.groups[g.key] = g
	}
	g.rows[0][string(key)] = &lrow{row: row, key: string(key), h: ihist{p: h}}
	return nil
}

func (o *loopReduce) restored() error { return nil }

// debug lists every input row with its history.
func (o *loopReduce) debug() []string {
	var lines []string
	for _, g := range o.groups {
		for _, r := range g.rows[0] {
			lines = append(lines, dataflow.FormatRow(r.row)+formatHist(r.h.p))
		}
	}
	return lines
}
