package exec

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// Loops (dataflow.Variable ... dataflow.Fixpoint) run as differential
// dataflow's iterate, specialized to Eddy's totally ordered Steps.
//
// Times inside a loop are pairs (Step, iteration). Every update a Step has
// processed is at a time before the current Step's, so the past Steps'
// updates are compacted into one past time P (as differential dataflow
// advances times to the frontier): (P, i) <= (N, j) iff i <= j, where N is
// the pending Step. A body operator therefore keeps, per row, its diffs per
// iteration from past Steps (ihist.p) and from the pending one (ihist.n),
// and at iteration k emits exactly the change of its output at (N, k): the
// output accumulated over all times <= (N, k) minus what past Steps and
// earlier iterations already emitted. A key that changes at iteration j
// must also be reconsidered at every later iteration at which it has past
// updates (the least upper bound of (N, j) and (P, i) is (N, max(i, j))),
// so touching a key schedules those iterations (loopSchedule).
//
// Because each iteration's collection is kept separately, a derivation is
// only counted at the iteration it is made, and a row supported only by a
// cycle loses its support at the iteration its last acyclic derivation
// goes: deletions are exact, where counting derivations of the fixed point
// alone would keep a cycle alive forever.
//
// The Step's driver (runLoop) runs the body in plan order for iteration 0,
// 1, ...: the Variable emits the body result's change at the previous
// iteration, nodes before the Variable deliver their Step updates at
// iteration 0 only. It skips iterations at which nothing changes and
// nothing is scheduled, and stops when neither is left; the Fixpoint emits
// the sum of the result's changes over all iterations. Commit folds the
// pending diffs into the past ones (after logging them: finish).

// iterDiff is a diff at one iteration of a loop.
type iterDiff struct {
	iter int
	diff int64
}

// ihist is the history of one row (or group) of a body operator: diffs by
// iteration from past Steps (p: sorted by iteration, no zeros) and from
// the pending Step (n: in nondecreasing iteration order, since a Step
// runs iterations in order).
type ihist struct {
	p, n []iterDiff
	cur  histCursor
}

// histCursor makes sums incremental within a Step, whose iterations only
// grow: pi and ni index the first past and pending diffs at or after
// iteration k, pAcc and nAcc sum the diffs before them. It belongs to the
// Step numbered stamp.
type histCursor struct {
	stamp      uint64
	k, pi, ni  int
	pAcc, nAcc int64
}

// add records diff d at iteration k of the pending Step.
func (h *ihist) add(k int, d int64) {
	if last := len(h.n) - 1; last >= 0 && h.n[last].iter == k {
		h.n[last].diff += d
		return
	}
	h.n = append(h.n, iterDiff{k, d})
}

// sums returns the past and pending diffs summed over the iterations
// before k and at k, in amortized O(1) while the Step epoch asks for
// growing k: the pending diffs before k no longer change, and past ones
// only change when the Step ends (finish).
func (h *ihist) sums(epoch uint64, k int) (pLt, pEq, nLt, nEq int64) {
	c := &h.cur
	if c.stamp != epoch || k < c.k {
		*c = histCursor{stamp: epoch}
	}
	c.k = k
	for ; c.pi < len(h.p) && h.p[c.pi].iter < k; c.pi++ {
		c.pAcc += h.p[c.pi].diff
	}
	for ; c.ni < len(h.n) && h.n[c.ni].iter < k; c.ni++ {
		c.nAcc += h.n[c.ni].diff
	}
	if c.pi < len(h.p) && h.p[c.pi].iter == k {
		pEq = h.p[c.pi].diff
	}
	if c.ni < len(h.n) && h.n[c.ni].iter == k {
		nEq = h.n[c.ni].diff
	}
	return c.pAcc, pEq, c.nAcc, nEq
}

// merged returns p and n summed by iteration, without zeros (a new slice).
func (h *ihist) merged() []iterDiff {
	out := make([]iterDiff, 0, len(h.p)+len(h.n))
	i, j := 0, 0
	for i < len(h.p) || j < len(h.n) {
		var x iterDiff
		switch {
		case j == len(h.n) || i < len(h.p) && h.p[i].iter < h.n[j].iter:
			x, i = h.p[i], i+1
		case i == len(h.p) || h.n[j].iter < h.p[i].iter:
			x, j = h.n[j], j+1
		default:
			x = iterDiff{h.p[i].iter, h.p[i].diff + h.n[j].diff}
			i, j = i+1, j+1
		}
		if last := len(out) - 1; last >= 0 && out[last].iter == x.iter {
			out[last].diff += x.diff
			if out[last].diff == 0 {
				out = out[:last]
			}
		} else if x.diff != 0 {
			out = append(out, x)
		}
	}
	return out
}

// appendHist appends h's past diffs to r as (count, iter, diff, ...).
func appendHist(r repr.Row, h []iterDiff) repr.Row {
	r = append(r, repr.NewInt(int64(len(h))))
	for _, x := range h {
		r = append(r, repr.NewInt(int64(x.iter)), repr.NewInt(x.diff))
	}
	return r
}

// decodeHist decodes what appendHist wrote at the start of r, returning
// the history and the rest of r.
func decodeHist(r repr.Row) ([]iterDiff, repr.Row, error) {
	if len(r) < 1 {
		return nil, nil, errCorrupt
	}
	n := int(r[0].Int())
	if n < 0 || len(r) < 1+2*n {
		return nil, nil, errCorrupt
	}
	h := make([]iterDiff, n)
	for i := range h {
		h[i] = iterDiff{int(r[1+2*i].Int()), r[2+2*i].Int()}
	}
	return h, r[1+2*n:], nil
}

// formatHist prints a history as @iter:+diff words.
func formatHist(h []iterDiff) string {
	s := ""
	for _, x := range h {
		s += fmt.Sprintf(" @%d:%+d", x.iter, x.diff)
	}
	return s
}

// loopSchedule lists, per future iteration of the pending Step, the groups
// a body operator must reconsider then.
type loopSchedule[G any] struct{ at map[int][]G }

func (s *loopSchedule[G]) add(k int, g G) {
	if s.at == nil {
		s.at = map[int][]G{}
	}
	s.at[k] = append(s.at[k], g)
}

// take removes and returns the groups scheduled at iteration k.
func (s *loopSchedule[G]) take(k int) []G {
	gs := s.at[k]
	delete(s.at, k)
	return gs
}

// next returns the smallest scheduled iteration, or -1.
func (s *loopSchedule[G]) next() int {
	n := -1
	for k := range s.at {
		if n < 0 || k < n {
			n = k
		}
	}
	return n
}

func (s *loopSchedule[G]) reset() { clear(s.at) }

// scheduleAfter schedules g at every iteration after k at which one of
// hs has past diffs, unless seen (which it updates) holds the iteration.
func scheduleAfter[G any](s *loopSchedule[G], k int, g G, seen map[int]bool, hs ...[]iterDiff) {
	for _, h := range hs {
		for _, x := range h {
			if x.iter > k && !seen[x.iter] {
				seen[x.iter] = true
				s.add(x.iter, g)
			}
		}
	}
}

// loopOperator is a body node of a loop.
type loopOperator interface {
	operator
	// iter consumes the node's input changes at iteration k of the pending
	// Step and returns its output changes at iteration k.
	iter(s *stepCtx, k int, ins [][]repr.Update) ([]repr.Update, error)
	// next returns the smallest iteration of the pending Step at which the
	// operator has scheduled work, or -1.
	next() int
	// finish logs the state the pending Step changed (s.prefix is the
	// node's) once the loop has converged.
	finish(s *stepCtx)
}

// loopLinear runs a stateless linear operator (MFP, Union, Negate,
// FlatMap) in a loop body: a change at iteration k maps to a change at
// iteration k.
type loopLinear struct {
	operator
}

func (o loopLinear) iter(s *stepCtx, _ int, ins [][]repr.Update) ([]repr.Update, error) {
	return o.step(s, ins)
}
func (loopLinear) next() int       { return -1 }
func (loopLinear) finish(*stepCtx) {}

// loopVar is the operator of a loop's Variable: the driver runs the
// whole loop when the Step reaches it.
type loopVar struct {
	stateless
	spec   dataflow.Variable
	loop   dataflow.Loop
	result int
}

func (*loopVar) step(*stepCtx, [][]repr.Update) ([]repr.Update, error) {
	return nil, fmt.Errorf("loop variable stepped outside its loop")
}

// fixpointOp is the operator of a loop's Fixpoint; runLoop sets its output.
type fixpointOp struct{ stateless }

func (fixpointOp) step(*stepCtx, [][]repr.Update) ([]repr.Update, error) {
	return nil, fmt.Errorf("fixpoint stepped outside its loop")
}

// buildLoops replaces the operators of every loop's Variable, body and
// Fixpoint by their loop forms.
func (d *Dataflow) buildLoops() error {
	loops, err := d.plan.Loops()
	if err != nil || len(loops) == 0 {
		return err
	}
	if !d.wm.off {
		return repr.Unsupported("watermarks through WITH RECURSIVE")
	}
	for _, l := range loops {
		n := &d.plan.Nodes[l.Fixpoint]
		if vt, rt := d.plan.Nodes[l.Var].Types, d.plan.Nodes[n.Inputs[1]].Types; !slices.Equal(vt, rt) {
			return fmt.Errorf("dataflow: loop %%%d: the body's result %%%d has types %v, the Variable %v", l.Var, n.Inputs[1], rt, vt)
		}
		d.ops[l.Var] = &loopVar{spec: d.plan.Nodes[l.Var].Op.(dataflow.Variable), loop: l, result: n.Inputs[1]}
		d.ops[l.Fixpoint] = fixpointOp{}
		for j := l.Var + 1; j < l.Fixpoint; j++ {
			op, err := d.newLoopOperator(j)
			if err != nil {
				return err
			}
			d.ops[j] = op
		}
	}
	return nil
}

// newLoopOperator builds the loop form of body node j.
func (d *Dataflow) newLoopOperator(j int) (loopOperator, error) {
	n := &d.plan.Nodes[j]
	switch op := n.Op.(type) {
	case dataflow.MFP, dataflow.Union, dataflow.Negate, dataflow.FlatMap:
		return loopLinear{d.ops[j]}, nil
	case dataflow.Join:
		if op.Shared != nil {
			return nil, fmt.Errorf("a join inside a loop cannot read a shared arrangement")
		}
		in := n.Inputs
		return newLoopJoin(op, [2]int{len(d.plan.Nodes[in[0]].Types), len(d.plan.Nodes[in[1]].Types)}), nil
	case dataflow.Reduce:
		switch {
		case len(op.Aggs) == 0:
			return newLoopCount(op.Key, false), nil
		case len(op.Key) == 0 || op.EmitOnClose:
			return nil, repr.Unsupported("global aggregate over the recursive reference of WITH RECURSIVE")
		}
		return newLoopReduce(op, d.plan.Nodes[n.Inputs[0]].Types, n.Types)
	case dataflow.Threshold:
		return newLoopCount(nil, true), nil
	case dataflow.TopK:
		if len(op.Key) == 0 {
			return nil, repr.Unsupported("LIMIT over the recursive reference of WITH RECURSIVE")
		}
		return newLoopTopK(op, d.plan.Nodes[n.Inputs[0]].Types)
	case dataflow.Window:
		if len(op.Key) == 0 {
			return nil, repr.Unsupported("a window function over the whole recursive term of WITH RECURSIVE")
		}
		return newLoopWindow(op, d.plan.Nodes[n.Inputs[0]].Types)
	}
	return nil, repr.Unsupported("%s inside the recursive term of WITH RECURSIVE", opName(n.Op))
}

// runLoop runs the loop opened by v to its fixed point for the pending
// Step, leaving the change of its result in d.outs[v.loop.Fixpoint].
func (d *Dataflow) runLoop(s *stepCtx, v *loopVar) error {
	l := v.loop
	var feedback, total []repr.Update
	var budget rowBudget
	for k := 0; k >= 0; {
		if int64(k) > v.spec.Limit {
			return repr.Errorf("54001", "recursive query %q did not reach a fixed point within %d iterations", v.spec.Name, v.spec.Limit).
				WithHint("A UNION ALL recursion must stop producing rows; with UNION, the recursive term must stop producing new rows.")
		}
		if err := s.interrupted(); err != nil {
			return err
		}
		d.outs[l.Var] = feedback
		for j := l.Var + 1; j < l.Fixpoint; j++ {
			var ins [][]repr.Update
			for _, in := range d.plan.Nodes[j].Inputs {
				if in < l.Var && k > 0 {
					ins = append(ins, nil)
				} else {
					ins = append(ins, d.outs[in])
				}
			}
			s.prefix = nodePrefix(s.prefix[:0], j)
			out, err := runIter(d.ops[j].(loopOperator), s, k, ins)
			if err != nil {
				return err
			}
			d.outs[j] = out
		}
		feedback = Consolidate(d.outs[v.result])
		total = append(total, feedback...)
		if err := checkLoopSize(v, feedback, len(total)); err != nil {
			return err
		}
		k = d.nextIteration(l, k, len(feedback) > 0)
		if k >= 0 && budget.enough(v.spec.Rows, feedback) {
			break
		}
	}
	for j := l.Var + 1; j < l.Fixpoint; j++ {
		s.prefix = nodePrefix(s.prefix[:0], j)
		d.ops[j].(loopOperator).finish(s)
		d.outs[j] = nil
	}
	d.outs[l.Var] = nil
	d.outs[l.Fixpoint] = Consolidate(total)
	return nil
}

// rowBudget counts the rows a Step's loop has produced so far, for
// Variable.Rows.
type rowBudget struct {
	rows      int64
	retracted bool
}

// enough adds an iteration's change and reports whether a loop bounded to
// want rows (Variable.Rows, positive) may stop: its change so far inserts
// at least want rows and retracts none (a Step that only inserts, as an
// ad hoc query's).
func (b *rowBudget) enough(want int64, change []repr.Update) bool {
	if want <= 0 {
		return false
	}
	for _, u := range change {
		b.retracted = b.retracted || u.Diff < 0
		b.rows += u.Diff
	}
	return !b.retracted && b.rows >= want
}

// Bounds on a loop's change per Step, past which it fails with 54001: a
// UNION ALL recursion whose rows multiply (walks over a cycle with a
// shortcut) would otherwise overflow the diffs, or exhaust memory, before
// reaching the iteration limit.
const (
	maxLoopDiff = 1 << 40
	maxLoopRows = 1 << 25
)

// checkLoopSize fails when an iteration's change has a row with a
// multiplicity beyond maxLoopDiff or the Step's change has more than
// maxLoopRows rows.
func checkLoopSize(v *loopVar, feedback []repr.Update, rows int) error {
	big := rows > maxLoopRows
	for _, u := range feedback {
		big = big || u.Diff > maxLoopDiff || u.Diff < -maxLoopDiff
	}
	if big {
		return repr.Errorf("54001", "recursive query %q produced too many rows (more than %d, or a row more than %d times)", v.spec.Name, maxLoopRows, int64(maxLoopDiff)).
			WithHint("A UNION ALL recursion over a cycle produces ever more rows; UNION removes duplicates.")
	}
	return nil
}

// nextIteration returns the iteration after k at which the loop has work:
// k+1 if the variable changes, else the first scheduled one (-1: none).
func (d *Dataflow) nextIteration(l dataflow.Loop, k int, changed bool) int {
	if changed {
		return k + 1
	}
	next := -1
	for j := l.Var + 1; j < l.Fixpoint; j++ {
		if n := d.ops[j].(loopOperator).next(); n >= 0 && (next < 0 || n < next) {
			next = n
		}
	}
	return next
}

// runIter is runStep for a body operator.
func runIter(op loopOperator, s *stepCtx, k int, ins [][]repr.Update) (out []repr.Update, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = operatorPanic(r)
		}
	}()
	return op.iter(s, k, ins)
}
