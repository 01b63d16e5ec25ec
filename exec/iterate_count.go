package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// loopCount is a DISTINCT (a Reduce without aggregates) or a Threshold
// inside a loop body (see iterate.go): a function of each group's count.
// A group's output at (N, k) is f(count accumulated at <= (N, k)), where
// f is 1 if the count is positive (DISTINCT, whose groups are the key
// columns) or max(count, 0) (Threshold, whose groups are whole rows); past
// Steps already emitted f of the past count, earlier iterations of the
// pending Step the sum of their changes, so iteration k emits
//
//	f(p(<=k) + n(<=k)) - f(p(<=k)) - emitted
//
// for every group changed at an iteration <= k that has diffs at k.
// This is what makes a UNION recursion converge: a row derived again at
// a later iteration changes only its count.
//
// State: per group, its output row and its count's diffs per iteration.
// Logged as group-key -> row(history..., output columns...).
type loopCount struct {
	key       []int
	threshold bool
	groups    map[string]*cgroup
	loopGroups[*cgroup]
	touched []cgroupUndo
	kbuf    []byte
	scratch repr.Row
}

// cgroup is one group: its output row and count history.
type cgroup struct {
	row     repr.Row
	key     string
	h       ihist
	emitted int64
	loopMarks
}

// cgroupUndo remembers a group the pending Step changed.
type cgroupUndo struct {
	g       *cgroup
	oldP    []iterDiff
	existed bool
}

func newLoopCount(key []int, threshold bool) *loopCount {
	return &loopCount{key: key, threshold: threshold, groups: map[string]*cgroup{}}
}

func (o *loopCount) step(*stepCtx, [][]repr.Update) ([]repr.Update, error) {
	return nil, fmt.Errorf("loop operator stepped outside its loop")
}

// f is the output multiplicity of a group with count n.
func (o *loopCount) f(n int64) int64 {
	switch {
	case o.threshold:
		return max(n, 0)
	case n > 0:
		return 1
	}
	return 0
}

func (o *loopCount) iter(s *stepCtx, k int, ins [][]repr.Update) ([]repr.Update, error) {
	o.begin(k)
	for _, u := range ins[0] {
		g := o.group(s, u.Row, k)
		g.h.add(k, u.Diff)
		o.queue(g, k)
	}
	var out []repr.Update
	for _, g := range o.cand {
		pLt, pEq, nLt, nEq := g.h.sums(s.epoch, k)
		past := pLt + pEq
		if d := o.f(past+nLt+nEq) - o.f(past) - g.emitted; d != 0 {
			g.emitted += d
			out = append(out, repr.Update{Row: g.row, Time: s.t, Diff: d})
		}
	}
	return out, nil
}

// group returns row's group, touching it: the first touch in a Step
// schedules it at every later iteration at which it has past diffs.
func (o *loopCount) group(s *stepCtx, row repr.Row, k int) *cgroup {
	if o.threshold {
		o.kbuf = repr.AppendRowKey(o.kbuf[:0], row)
	} else {
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.key)
	}
	g := o.groups[string(o.kbuf)]
	existed := g != nil
	if g == nil {
		g = &cgroup{row: o.output(row), key: string(o.kbuf)}
		o.groups[g.key] = g
	}
	if o.touch(s.epoch, g) {
		g.emitted = 0
		o.touched = append(o.touched, cgroupUndo{g: g, oldP: g.h.p, existed: existed})
		o.after(k, g, g.h.p)
	}
	return g
}

// output returns the output row of row's group.
func (o *loopCount) output(row repr.Row) repr.Row {
	if o.threshold {
		return row
	}
	out := make(repr.Row, len(o.key))
	for i, c := range o.key {
		out[i] = row[c]
	}
	return out
}

func (o *loopCount) next() int { return o.sched.next() }

// finish folds every touched group's pending diffs into its past ones and
// logs it (deleting it once no diff is left).
func (o *loopCount) finish(s *stepCtx) {
	for _, t := range o.touched {
		g := t.g
		o.kbuf = append(append(o.kbuf[:0], s.prefix...), g.key...)
		if foldHist(s, o.kbuf, &g.h, g.row, &o.scratch) {
			delete(o.groups, g.key)
		}
	}
	o.sched.reset()
}

func (o *loopCount) commit() { o.touched = o.touched[:0] }

func (o *loopCount) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.g.h.p, t.g.h.n = t.oldP, nil
		if t.existed {
			o.groups[t.g.key] = t.g
		} else {
			delete(o.groups, t.g.key)
		}
	}
	o.sched.reset()
	o.commit()
}

func (o *loopCount) restore(key, value []byte) error {
	h, row, err := decodeLogged(value)
	if err != nil {
		return err
	}
	o.groups[string(key)] = &cgroup{row: row, key: string(key), h: ihist{p: h}, loopMarks: loopMarks{mark: -1}}
	return nil
}

func (o *loopCount) restored() error { return nil }

// debug lists every group with its count history.
func (o *loopCount) debug() []string {
	var lines []string
	for _, g := range o.groups {
		lines = append(lines, dataflow.FormatRow(g.row)+formatHist(g.h.p))
	}
	return lines
}
