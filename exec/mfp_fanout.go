package exec

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// A fan-out is a Union whose inputs are all MFPs over one node X (each
// MFP read only by the Union): the planner's form of HOP and CUMULATE
// windows (one MFP per window a row is in) and of UNION ALL branches that
// read one input. Stepped node by node it copies every update of X into
// each branch, evaluates the branches' common subexpressions once per
// branch (q5's tumble_start five times per bid), and copies the branches'
// outputs again into the Union's. fuseFanouts runs it as one pass instead:
// the first branch's node (fanoutOp) reads each update of X once,
// evaluates the subexpressions the branches share once, then each branch,
// and emits the Union's updates row by row (each input row's branch
// outputs together: the same updates, in another order, as with --workers;
// a float sum over them may round differently); the other branches emit
// nothing and the Union passes the first branch's output on. When X
// is itself an MFP read only by the branches (q5's NOT NULL filter and
// projection of the bids), X passes its input through and fanoutOp applies
// X first, into scratch, so X's rows are never allocated.
//
// The plan is unchanged (EXPLAIN, stored plans and watermark derivation
// see the same nodes), as are the Step's output (as a multiset) and its
// errors: an expression
// is shared only if some branch evaluates it on every row that reaches the
// branches, so it runs on no row it did not run on before, and a Step
// fails exactly when one of the branches would have failed. Row counts
// (EXPLAIN ANALYZE) are corrected to what each node would have emitted.

// fanoutOp runs a fused fan-out at the first branch's node.
type fanoutOp struct {
	stateless
	// prefix is X's MFP when X was absorbed (nil: not), evaluated into
	// scratch before the branches; prefixNode is X's node.
	prefix     *mfpOp
	prefixNode int
	// shared are the expressions the branches share, each appended to the
	// row (after X's columns) before the branches run; the branches read
	// them as columns nIn, nIn+1, ...
	shared []expr.Expr
	// sharedEval are shared as evaluated (expr.Specialize).
	sharedEval []expr.Expr
	// branches are the Union's inputs in order, over X's columns and the
	// shared ones; nodes their nodes (nodes[0] is this node).
	branches []*mfpOp
	nodes    []int
	// row is the scratch row: X's (projected) columns, then shared ones.
	row repr.Row
	// counts[b] sums branch b's output diffs in a Step (when counting).
	counts []int64
	// dedup merges the input rows the branches cannot tell apart (see
	// fanoutDedup); nil when a branch is volatile.
	dedup *fanoutDedup
}

// passFirst is the Union of a fused fan-out (the first input holds the
// whole output) and X when absorbed (its input passes through): stateless.
type passFirst struct{ stateless }

func (passFirst) step(_ *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	return ins[0], nil
}

// emitNothing is a fused fan-out's branch after the first.
type emitNothing struct{ stateless }

func (emitNothing) step(*stepCtx, [][]repr.Update) ([]repr.Update, error) { return nil, nil }

// fuseFanouts replaces the operators of every fan-out of d (see above)
// that runs outside loops by a fanoutOp and its pass-throughs.
func (d *Dataflow) fuseFanouts() error {
	if !fanoutFusion {
		return nil
	}
	readers := consumers(d.plan)
	for u, n := range d.plan.Nodes {
		if _, ok := d.ops[u].(unionOp); !ok || len(n.Inputs) < 2 {
			continue
		}
		x, ok := fanoutSource(d, n.Inputs, readers)
		if !ok {
			continue
		}
		f, err := d.newFanout(x, n.Inputs, readers)
		if err != nil {
			return err
		}
		d.ops[n.Inputs[0]] = f
		for _, b := range n.Inputs[1:] {
			d.ops[b] = emitNothing{}
		}
		d.ops[u] = passFirst{}
		if f.prefix != nil {
			d.ops[x] = passFirst{}
		}
	}
	return nil
}

// fanoutFusion is on but in tests that compare fused fan-outs with the
// node-by-node run.
var fanoutFusion = true

// consumers returns, per node of p, how many times other nodes read it
// (the plan's output counts as one more read).
func consumers(p *dataflow.Plan) []int {
	n := make([]int, len(p.Nodes))
	for _, node := range p.Nodes {
		for _, j := range node.Inputs {
			n[j]++
		}
	}
	n[p.Output]++
	return n
}

// fanoutSource returns the node X that every branch (all MFPs, distinct,
// each read only once) reads, if they do.
func fanoutSource(d *Dataflow, branches []int, readers []int) (int, bool) {
	x := -1
	seen := map[int]bool{}
	for _, b := range branches {
		if _, ok := d.ops[b].(*mfpOp); !ok || readers[b] != 1 || seen[b] {
			return 0, false
		}
		seen[b] = true
		in := d.plan.Nodes[b].Inputs[0]
		if x >= 0 && in != x {
			return 0, false
		}
		x = in
	}
	return x, true
}

// newFanout builds the fused operator of the branches over node x,
// absorbing x when it is an MFP that only the branches read.
func (d *Dataflow) newFanout(x int, branches []int, readers []int) (*fanoutOp, error) {
	f := &fanoutOp{nodes: branches, prefixNode: x, counts: make([]int64, len(branches))}
	cols := d.plan.Nodes[x].Types
	if _, ok := d.ops[x].(*mfpOp); ok && readers[x] == len(branches) {
		pre, err := newMFP(d.plan.Nodes[x].Op.(dataflow.MFP), d.plan.Nodes[d.plan.Nodes[x].Inputs[0]].Types)
		if err != nil {
			return nil, err
		}
		f.prefix = pre
	}
	specs := make([]dataflow.MFP, len(branches))
	for i, b := range branches {
		specs[i] = d.plan.Nodes[b].Op.(dataflow.MFP)
	}
	f.shared, specs = shareAcross(specs, len(cols))
	f.sharedEval = specializeAll(f.shared)
	in := append([]repr.T(nil), cols...)
	for _, e := range f.shared {
		in = append(in, e.Type())
	}
	for _, spec := range specs {
		m, err := newMFP(spec, in)
		if err != nil {
			return nil, err
		}
		f.branches = append(f.branches, m)
	}
	f.dedup = newFanoutDedup(specs, len(in))
	return f, nil
}

// shareAcross returns the subexpressions that at least two of the specs
// (MFPs over nIn columns) compute from input columns alone and that one of
// them evaluates on every row, and the specs rewritten to read them as
// columns nIn, nIn+1, ... (their own map columns shifted past them).
func shareAcross(specs []dataflow.MFP, nIn int) ([]expr.Expr, []dataflow.MFP) {
	var shared []expr.Expr
	for {
		c := commonSubexpr(specs, nIn+len(shared))
		if c == nil {
			return shared, specs
		}
		col := &expr.Col{Idx: nIn + len(shared), T: c.Type()}
		shared = append(shared, c)
		for i := range specs {
			specs[i] = insertColumn(specs[i], col, exprKey(c))
		}
	}
}

// commonSubexpr returns the largest subexpression reading only columns
// below nIn that occurs in the maps of at least two specs and that one of
// them evaluates on every row, or nil.
func commonSubexpr(specs []dataflow.MFP, nIn int) expr.Expr {
	type seen struct {
		e      expr.Expr
		specs  int
		last   int
		always bool
	}
	found := map[string]*seen{}
	var order []string
	for i, spec := range specs {
		for m, e := range spec.Map {
			visitSubexprs(e, evaluatedOnEveryRow(spec, nIn, m), func(x expr.Expr, always bool) {
				if maxCol(x) >= nIn {
					return
				}
				k := exprKey(x)
				o := found[k]
				if o == nil {
					o = &seen{e: x, last: -1}
					found[k] = o
					order = append(order, k)
				}
				if o.last != i {
					o.specs, o.last = o.specs+1, i
				}
				o.always = o.always || always
			})
		}
	}
	var best string
	for _, k := range order {
		if o := found[k]; o.specs >= 2 && o.always && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return nil
	}
	return found[best].e
}

// evaluatedOnEveryRow reports whether spec (over nIn input columns)
// evaluates map m on every input row: no filter runs before it.
func evaluatedOnEveryRow(spec dataflow.MFP, nIn, m int) bool {
	for _, f := range spec.Filter {
		if maxCol(f)+1-nIn <= m {
			return false
		}
	}
	return true
}

// insertColumn returns spec over one more input column, col (at spec's
// first map column), with every occurrence of the expression whose key is
// key replaced by a read of col.
func insertColumn(spec dataflow.MFP, col *expr.Col, key string) dataflow.MFP {
	at := col.Idx
	shift := func(i int) int {
		if i >= at {
			return i + 1
		}
		return i
	}
	out := dataflow.MFP{Map: make([]expr.Expr, len(spec.Map)), Filter: make([]expr.Expr, len(spec.Filter)), Project: make([]int, len(spec.Project))}
	for i, e := range spec.Map {
		out.Map[i] = replaceExpr(expr.Remap(e, shift), key, col)
	}
	for i, e := range spec.Filter {
		out.Filter[i] = replaceExpr(expr.Remap(e, shift), key, col)
	}
	for i, c := range spec.Project {
		out.Project[i] = shift(c)
	}
	return out
}

// step applies X (if absorbed), the shared expressions and each branch to
// every input update, and returns the branches' outputs row by row: the
// Union's updates, in the order of the input rows (each row's windows
// together), not branch after branch. The rows are then allocated in the
// order the consumer reads them: a Step of q5 holds tens of thousands of
// bids, and reading every fifth row of the slab, branch after branch,
// cost the Reduce after it more in cache misses than fusing saved.
func (o *fanoutOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	if o.dedup != nil && o.dedup.try(len(ins[0])) {
		return o.stepDedup(s, ins[0])
	}
	counting := s.counts != nil
	if counting {
		clear(o.counts)
	}
	out := make([]repr.Update, 0, len(ins[0])*len(o.branches))
	passed := int64(0)
	for _, u := range ins[0] {
		if err := s.poll(); err != nil {
			return nil, err
		}
		r, ok, err := o.fill(s, u.Row)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		passed += u.Diff
		if out, err = o.branch(s, r, u.Time, u.Diff, out); err != nil {
			return nil, err
		}
	}
	if counting {
		o.count(s, ins[0], passed)
	}
	return out, nil
}

// branch appends each branch's output for row r (at time t, diff) to
// out. A diff of 0 (merged rows that cancel) evaluates the branches, so
// that their errors stay, and emits nothing.
func (o *fanoutOp) branch(s *stepCtx, r repr.Row, t uint64, diff int64, out []repr.Update) ([]repr.Update, error) {
	for b, m := range o.branches {
		row, ok, err := m.apply(s, r)
		if err != nil {
			return nil, err
		}
		if ok && diff != 0 {
			out = append(out, repr.Update{Row: row, Time: t, Diff: diff})
			if s.counts != nil {
				o.counts[b] += diff
			}
		}
	}
	return out, nil
}

// fill returns the row the branches read for input row in: X's output
// row (ok false if X filters it out) followed by the shared columns. It is
// in itself or o.row, valid until the next call.
func (o *fanoutOp) fill(s *stepCtx, in repr.Row) (repr.Row, bool, error) {
	r := in
	switch {
	case o.prefix != nil:
		full, ok, err := o.prefix.eval(s, in)
		if !ok || err != nil {
			return nil, false, err
		}
		r = o.row[:0]
		for _, c := range o.prefix.spec.Project {
			r = append(r, full[c])
		}
	case len(o.shared) > 0:
		r = append(o.row[:0], in...)
	default:
		return in, true, nil
	}
	for _, e := range o.sharedEval {
		v, err := e.Eval(s.ctx, r)
		if err != nil {
			return nil, false, err
		}
		r = append(r, v)
	}
	o.row = r
	return r, true, nil
}

// count corrects the row counts of the fused nodes: the Step adds this
// node's whole output to its count and X's input to X's.
func (o *fanoutOp) count(s *stepCtx, in []repr.Update, passed int64) {
	if o.prefix != nil {
		s.counts[o.prefixNode] += passed - sumDiffs(in)
	}
	for b, node := range o.nodes {
		if b > 0 {
			s.counts[node] += o.counts[b]
			s.counts[o.nodes[0]] -= o.counts[b]
		}
	}
}

// sumDiffs sums the diffs of us.
func sumDiffs(us []repr.Update) int64 {
	var n int64
	for _, u := range us {
		n += u.Diff
	}
	return n
}
