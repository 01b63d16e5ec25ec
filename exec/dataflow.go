package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/faults"
	"github.com/eddydb/eddy/repr"
)

// Dataflow is an instantiated dataflow.Plan: one operator per plan node,
// run in the plan's topological order once per logical time by Step.
//
// A Step is tentative until Commit or Rollback: every operator remembers
// what it touched during the Step (the old values of those parts of its
// state), which serves three purposes at once: computing the output diff of
// a touched group or row, logging only touched state once per Step, and
// undoing the Step on Rollback. Commit merely forgets that record, so both
// cost time proportional to what the Step touched, never to the state.
//
// A Dataflow is not safe for concurrent use.
type Dataflow struct {
	plan    *dataflow.Plan
	ops     []operator
	sources []repr.CollectionID
	// epoch numbers Steps; operators stamp touched state with it so each
	// piece of state is recorded at most once per Step.
	epoch   uint64
	pending bool
	log     stateLog
	slab    rowSlab
	outs    [][]repr.Update
	ins     [][]repr.Update
	// wm derives and keeps the watermarks of every node (watermark.go).
	wm wmRuntime
	// workers is the number of shards of the keyed nodes (shard.go; 0
	// or 1: none are sharded).
	workers int
	// par carries outputs in parts and runs the stateless per-row nodes
	// in parts (dataflow_parts.go; nil: one worker).
	par *partedRun
	// counts, when CountRows enabled it, sums each node's output diffs
	// over every Step (-1 for the nodes of a loop, not counted).
	counts []int64
}

// CountRows makes d sum each node's output diffs from now on, for EXPLAIN
// ANALYZE (RowCounts). It costs a loop over each node's output per Step.
func (d *Dataflow) CountRows() { d.counts = make([]int64, len(d.ops)) }

// RowCounts returns, per node, the sum of its output diffs over the Steps
// since CountRows (the rows it produced, for a one-shot query; -1 for a
// node inside a loop, not counted), or nil without CountRows. A join
// input read from a shared arrangement counts the rows its lookups found
// (over every lookup: one per row of the other input).
func (d *Dataflow) RowCounts() []int64 { return d.counts }

// operator is one node of a running dataflow: a deterministic state
// machine over update batches.
type operator interface {
	// step consumes the batches of this Step, one per plan input (each at
	// time s.t), and returns the node's output updates at s.t. Changes to
	// state are recorded so that rollback can undo them, and the touched
	// state is logged to s.log before step returns.
	step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error)
	// commit forgets the record of the last step's changes.
	commit()
	// rollback undoes every change of the last step, newest first.
	rollback()
	// restore loads one logged key (relative to the node's prefix).
	restore(key, value []byte) error
	// restored is called after every key of the node was restored.
	restored() error
}

// stepCtx is what operators see during one Step.
type stepCtx struct {
	ctx   *expr.Ctx
	t     repr.Time
	epoch uint64
	// prefix is the state key prefix of the node being stepped.
	prefix []byte
	log    *stateLog
	slab   *rowSlab
	// watermarks are the Step's new source watermarks (Input.Watermarks).
	watermarks map[repr.CollectionID]int64
	// inWM holds, per input of the node being stepped, the watermark of
	// each of its columns after this Step (NoWatermark: none).
	inWM [][]int64
	// now is the Step's wall-clock time (Input.Now).
	now int64
	// arr serves shared arrangements (Input.Arrangements).
	arr Arrangements
	// counts are the dataflow's row counts (nil: not counting), to which
	// an operator reading a node's rows from a shared arrangement adds
	// them for that node.
	counts []int64
	// work counts rows handled since the Step began, so operators look
	// at ctx.Interrupt once per pollEvery of them (interrupt.go).
	work uint64
	// mem is ctx.Memory (nil: no accounting); grown is the state bytes
	// operators added during the Step, memBase the slab's growth when it
	// began and reported the growth already reported (memory.go).
	mem                      expr.Memory
	grown, memBase, reported int64
	// pairs is the slab growth of the Step's join nodes whose output a
	// later node consumes (settle).
	pairs int64
	// inKeys, when the node runs as a shard whose operator takes them
	// (takesInKeys), are its input 0's key encodings (shard_run.go).
	inKeys *inKeys
	// deferState is Input.DeferState of a logged Step.
	deferState bool
}

// Build instantiates the operators of p (no state yet). It checks that p is
// well formed: inputs precede their consumers, operators have the right
// number of inputs, and column references are in range. It builds for one
// worker (BuildWorkers), but for buildWorkers in this package's tests.
func Build(p *dataflow.Plan) (*Dataflow, error) { return BuildWorkers(p, buildWorkers) }

// buildWorkers is the workers Build builds for: 1, but for this package's
// tests under EDDY_WORKERS, which run every test's dataflows sharded.
var buildWorkers = 1

// build is Build for one worker.
func build(p *dataflow.Plan) (*Dataflow, error) {
	if len(p.Nodes) == 0 || p.Output < 0 || p.Output >= len(p.Nodes) {
		return nil, fmt.Errorf("dataflow: output %%%d out of range (%d nodes)", p.Output, len(p.Nodes))
	}
	d := &Dataflow{plan: p, outs: make([][]repr.Update, len(p.Nodes))}
	seen := map[repr.CollectionID]bool{}
	for i := range p.Nodes {
		op, err := buildNode(p, i)
		if err != nil {
			return nil, fmt.Errorf("dataflow: node %%%d: %w", i, err)
		}
		d.ops = append(d.ops, op)
		if src, ok := p.Nodes[i].Op.(dataflow.Source); ok && !seen[src.Collection] {
			seen[src.Collection] = true
			d.sources = append(d.sources, src.Collection)
		}
	}
	if err := d.initWatermarks(); err != nil {
		return nil, err
	}
	if err := d.buildLoops(); err != nil {
		return nil, err
	}
	if err := d.linkBorrows(); err != nil {
		return nil, err
	}
	d.useAppendJoins()
	d.keyJoins()
	if err := d.fuseFanouts(); err != nil {
		return nil, err
	}
	return d, nil
}

// buildNode checks node i's inputs and builds its operator.
func buildNode(p *dataflow.Plan, i int) (operator, error) {
	n := &p.Nodes[i]
	want := wantInputs(n.Op)
	if want >= 0 && len(n.Inputs) != want || want < 0 && len(n.Inputs) == 0 {
		return nil, fmt.Errorf("%s has %d inputs", opName(n.Op), len(n.Inputs))
	}
	var in [][]repr.T
	for _, j := range n.Inputs {
		if j < 0 || j >= i {
			return nil, fmt.Errorf("input %%%d does not precede the node", j)
		}
		in = append(in, p.Nodes[j].Types)
	}
	if j, ok := n.Op.(dataflow.Join); ok && j.Shared != nil {
		return newSharedJoin(p, i, in)
	}
	if _, ok := n.Op.(dataflow.DeltaJoin); ok {
		return newDeltaJoin(p, i, in)
	}
	if r, ok := n.Op.(dataflow.Reduce); ok && r.Shared != nil {
		return newSharedReduce(p, i, in)
	}
	return newOperator(i, n, in)
}

// wantInputs is the number of inputs op takes, -1 for one or more.
func wantInputs(op dataflow.Op) int {
	switch op.(type) {
	case dataflow.Source, dataflow.Constant, dataflow.Variable:
		return 0
	case dataflow.Join, dataflow.Fixpoint:
		return 2
	case dataflow.Union, dataflow.DeltaJoin:
		return -1
	}
	return 1
}

// opName returns the operator's name, e.g. "Reduce".
func opName(op dataflow.Op) string { return fmt.Sprintf("%T", op)[len("dataflow."):] }

// newOperator builds the operator of node n (index i) whose inputs have the
// column types in.
func newOperator(i int, n *dataflow.Node, in [][]repr.T) (operator, error) {
	switch op := n.Op.(type) {
	case dataflow.Source:
		return newSource(op), nil
	case dataflow.Constant:
		return &constantOp{rows: op.Rows}, nil
	case dataflow.MFP:
		return newMFP(op, in[0])
	case dataflow.Reduce:
		return newReduce(op, in[0], n.Types)
	case dataflow.Join:
		return newJoin(op, in[0], in[1])
	case dataflow.Union:
		return unionOp{}, nil
	case dataflow.Negate:
		return negateOp{}, nil
	case dataflow.Threshold:
		return newThreshold(len(in[0])), nil
	case dataflow.TopK:
		return newTopK(op, in[0])
	case dataflow.SessionWindow:
		return newSession(op, in[0])
	case dataflow.TemporalFilter:
		return newTemporal(op, in[0])
	case dataflow.Window:
		return newWindow(op, in[0])
	case dataflow.Variable, dataflow.Fixpoint:
		return fixpointOp{}, nil // replaced by buildLoops
	case dataflow.FlatMap:
		return newFlatMap(op, in[0])
	}
	return nil, fmt.Errorf("unknown operator %T", n.Op)
}

// Sources lists the collections the dataflow reads, in plan order, each once.
func (d *Dataflow) Sources() []repr.CollectionID { return d.sources }

// Plan returns the plan the dataflow runs.
func (d *Dataflow) Plan() *dataflow.Plan { return d.plan }

// Step is StepInput without watermarks: inputs holds, per source
// collection, the updates at time t.
func (d *Dataflow) Step(ctx *expr.Ctx, t repr.Time, inputs map[repr.CollectionID][]repr.Update, w StateWriter) ([]repr.Update, error) {
	return d.StepInput(ctx, t, Input{Updates: inputs}, w)
}

// StepInput processes one logical time: in.Updates holds, per source
// collection, the updates at time t (every Update.Time == t), and
// in.Watermarks the sources' new watermarks. It pushes the updates through
// every operator in topological order, with the watermarks derived for
// each node (see Input and watermark.go), and returns the consolidated
// output updates at time t. Late updates are dropped and counted (Late).
//
// State changes are applied in memory and logged to w (nil: not logged);
// nothing is written to w unless the Step succeeds (if consolidating the
// output is refused memory, StepInput rolls back after writing to w, and
// the caller discards w as after any failed Step). The Step is tentative:
// call Commit to keep it or Rollback to undo it (a Step begun while the
// previous one is still pending commits that one first). If Step fails (an
// expression error such as division by zero) it rolls back before
// returning the error, as if it had never been called.
func (d *Dataflow) StepInput(ctx *expr.Ctx, t repr.Time, in Input, w StateWriter) ([]repr.Update, error) {
	out, err := d.StepInputRaw(ctx, t, in, w)
	if err != nil {
		return nil, err
	}
	if err := growConsolidate(ctx, out); err != nil {
		d.Rollback()
		return nil, err
	}
	return Consolidate(out), nil
}

// StepInputRaw is StepInput without the final consolidation: the output
// has the same sum, but may hold equal rows and cancelling pairs, in no
// particular order, and it may share memory with the operators, so it is
// valid only until the next Step. Consolidating costs a key encoding and a
// sort per output row, which a consumer that accumulates by key anyway (a
// view's collection) need not pay.
func (d *Dataflow) StepInputRaw(ctx *expr.Ctx, t repr.Time, in Input, w StateWriter) ([]repr.Update, error) {
	if d.pending {
		d.Commit()
	}
	if ctx == nil {
		ctx = &expr.Ctx{}
	}
	d.epoch++
	d.pending = true
	d.log.reset()
	d.log.off = w == nil
	_, d.log.ranges = w.(PrefixDeleter)
	s := stepCtx{ctx: ctx, t: t, epoch: d.epoch, log: &d.log, slab: &d.slab, watermarks: in.Watermarks, now: in.Now, arr: in.Arrangements,
		counts: d.counts, mem: ctx.Memory, memBase: d.slab.growth(), deferState: in.DeferState && w != nil}
	d.wm.begin()
	for i := 0; i < len(d.ops); i++ {
		op := d.ops[i]
		if v, ok := op.(*loopVar); ok {
			if err := d.runLoop(&s, v); err != nil {
				d.Rollback()
				return nil, err
			}
			for k := i; d.counts != nil && k <= v.loop.Fixpoint; k++ {
				d.counts[k] = -1
			}
			i = v.loop.Fixpoint
			continue
		}
		if err := s.interrupted(); err != nil {
			d.Rollback()
			return nil, err
		}
		s.prefix = nodePrefix(s.prefix[:0], i)
		s.inWM = d.wm.inputs(d.plan.Nodes[i].Inputs)
		if err := d.stepNode(&s, i, op, in); err != nil {
			d.Rollback()
			return nil, err
		}
		d.wm.derive(ctx, d.plan.Nodes[i].Inputs, i, op)
	}
	d.wm.end(d.plan.Output)
	// The last operators' growth since the last report is reported too:
	// otherwise a Step whose final operator is a large Reduce would leave
	// most of its state unaccounted. It goes in the pieces a sharded node
	// reports its growth in, so 1 and n workers are judged alike.
	if s.mem != nil {
		if err := s.accountPieces(); err != nil {
			d.Rollback()
			return nil, err
		}
	}
	out := d.output(d.plan.Output)
	d.endParts()
	if s.mem != nil {
		s.settle(out)
	}
	if w != nil {
		d.log.flush(w)
		d.log.trim()
	}
	return out, nil
}

// stepNode steps node i, in parts when it runs so (dataflow_parts.go),
// else over its inputs' whole outputs, and records its output.
func (d *Dataflow) stepNode(s *stepCtx, i int, op operator, in Input) error {
	if d.par != nil && d.counts == nil {
		if done, err := d.par.step(d, s, i, op); done || err != nil {
			return err
		}
	}
	d.ins = d.ins[:0]
	if src, ok := op.(*sourceOp); ok {
		d.ins = append(d.ins, in.Updates[src.coll])
	}
	for _, j := range d.plan.Nodes[i].Inputs {
		d.ins = append(d.ins, d.output(j))
	}
	before := s.slab.growth()
	out, err := runStep(op, s, d.ins)
	if err != nil {
		return err
	}
	if i != d.plan.Output && pairsOnly(op) {
		s.pairs += s.slab.growth() - before
	}
	d.outs[i] = out
	for k := 0; d.counts != nil && k < len(out); k++ {
		d.counts[i] += out[k].Diff
	}
	return nil
}

// endParts forgets the Step's outputs, whole and in parts.
func (d *Dataflow) endParts() {
	clear(d.outs)
	if d.par != nil {
		d.par.end()
	}
}

// runStep steps op, turning a panic inside an operator or expression into
// an error so that the Step rolls back and other dataflows keep running.
func runStep(op operator, s *stepCtx, ins [][]repr.Update) (out []repr.Update, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = operatorPanic(r)
		}
	}()
	faultOperator.Inject()
	return op.step(s, ins)
}

// faultOperator: an operator about to step its inputs (runStep), in any
// dataflow: a view's maintenance, its backfill, an ad hoc query, and the
// log's replay at start-up (tests/e2e_faults_test.go).
var faultOperator = faults.Register("exec.operator", "a dataflow operator stepping its inputs")

// Commit keeps the changes of the last Step.
func (d *Dataflow) Commit() {
	if !d.pending {
		return
	}
	for _, op := range d.ops {
		op.commit()
	}
	d.pending = false
}

// Rollback undoes every in-memory change of the last Step (if it has not
// been committed), e.g. because another dataflow in the same transaction
// failed. The caller discards what the Step wrote to its StateWriter.
func (d *Dataflow) Rollback() {
	if !d.pending {
		return
	}
	for i := len(d.ops) - 1; i >= 0; i-- {
		d.ops[i].rollback()
	}
	d.wm.rollback()
	d.endParts()
	d.pending = false
}

// Restore loads operator state previously logged by Steps through a
// StateWriter. It must be called on a freshly built Dataflow, before any Step.
//
// Key layout (relative to the dataflow): the node index as
// repr.AppendKey(int), then an operator-specific key; see each operator.
func (d *Dataflow) Restore(r StateReader) error {
	for i, op := range d.ops {
		if err := d.restoreNode(r, i, op.restore); err != nil {
			return err
		}
	}
	d.wm.restored(d)
	return nil
}

// nodePrefix appends the state key prefix of node i to buf.
func nodePrefix(buf []byte, i int) []byte { return repr.AppendKey(buf, repr.NewInt(int64(i))) }

// stateless provides the state methods of operators that keep none.
type stateless struct{}

func (stateless) commit()                         {}
func (stateless) rollback()                       {}
func (stateless) restore(key, value []byte) error { return fmt.Errorf("unexpected state key %x", key) }
func (stateless) restored() error                 { return nil }
