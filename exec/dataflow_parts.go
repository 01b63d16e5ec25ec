package exec

import (
	"github.com/eddydb/eddy/repr"
)

// Stateless chains in parts (BuildWorkers). A dataflow built for n > 1
// workers carries a node's output between nodes in n parts, whose
// concatenation in order is the output, wherever that lets the next
// node work on the parts concurrently instead of on the whole:
//
//   - a sharded node's output is its shards' outputs, one part each (the
//     concatenation the node returned before it ran in parts);
//   - a stateless per-row node (perRow: an MFP, a fused fan-out, a
//     FlatMap, a Negate) over a parted input runs as n instances, one per
//     part, on the workers' goroutines; over a whole input of at least
//     shardParallelMin updates (a source's batch) it splits the input by
//     position first. Its parts' concatenation is exactly the single
//     operator's output, since it maps each update in order (a fan-out
//     that merges its rows, mfp_fanout_dedup.go, merges per part: the
//     same consolidated output, in updates that may differ);
//   - a sharded node over parted inputs exchanges them concurrently, part
//     by part (shard_exchange.go), in front of its shards;
//   - a fan-out's Union and absorbed input (passFirst) pass parts on.
//
// So a source's batch is split once, the chain after it runs on each part
// in parallel, each part routes its updates to the shards, and the chain
// after a sharded node runs on each shard's output on its own goroutine;
// only a node that is neither (a global Reduce, a Union of several
// inputs, a loop, the dataflow's output) concatenates the parts, in order,
// into the whole output the single dataflow would have produced. The
// rows are the same, in the same order, as without parts: whole outputs,
// shard inputs and so state and the consolidated output are unchanged
// for every n. A Step that counts rows (EXPLAIN ANALYZE) and a dataflow
// with a loop run whole.

// partedRun is the state of a Dataflow's nodes in parts.
type partedRun struct {
	n int
	// ops[i] holds node i's n instances when it is a perRow node (nil:
	// it is not); instance 0 is the Dataflow's.
	ops [][]operator
	// parts[i], during a Step, is node i's output in n parts (nil: the
	// output is whole, in Dataflow.outs).
	parts [][][]repr.Update
	// keyedBy[i], during a Step, is the sharded node whose shards'
	// outputs node i's parts are, one for one (-1: none, or whole).
	keyedBy []int
	// route[i] is how perRow node i routes its input into parts before
	// its instances run (nil: it takes its input's parts; shard_preroute.go).
	route   []*preRoute
	workers []partWorker
}

// partWorker is one worker's context for the perRow nodes' instances.
type partWorker struct {
	slab        rowSlab
	log         stateLog
	in          [][]repr.Update
	err         error
	grown, work int64
}

// perRow reports whether op keeps no state and maps each input update
// to output updates on its own, in input order: its output over parts of
// its input, concatenated, is its output over the whole.
func perRow(op operator) bool {
	switch op.(type) {
	case *mfpOp, *fanoutOp, *flatMapOp, negateOp:
		return true
	}
	return false
}

// newPartedRun returns the parts of d, built for n workers, whose other
// instances of the perRow nodes are those of builds (n-1 more builds of
// d's plan); nil when d has a loop (its nodes run whole).
func newPartedRun(d *Dataflow, builds []*Dataflow) *partedRun {
	for _, op := range d.ops {
		if _, ok := op.(*loopVar); ok {
			return nil
		}
	}
	n := len(builds) + 1
	r := &partedRun{n: n, ops: make([][]operator, len(d.ops)), parts: make([][][]repr.Update, len(d.ops)), workers: make([]partWorker, n)}
	for i, op := range d.ops {
		if !perRow(op) {
			continue
		}
		r.ops[i] = []operator{op}
		for _, e := range builds {
			r.ops[i] = append(r.ops[i], e.ops[i])
		}
	}
	for k := range r.workers {
		r.workers[k].in = make([][]repr.Update, 1)
	}
	r.keyedBy = make([]int, len(d.ops))
	r.route = make([]*preRoute, len(d.ops))
	r.end()
	return r
}

// output returns node j's whole output, concatenating its parts (once
// per Step) if it has them.
func (d *Dataflow) output(j int) []repr.Update {
	if d.par != nil && d.par.parts[j] != nil && d.outs[j] == nil {
		d.outs[j] = concatParts(d.par.parts[j])
	}
	return d.outs[j]
}

// step steps node i in parts if it runs so (see above) and reports
// whether it did; otherwise the caller steps it whole.
func (r *partedRun) step(d *Dataflow, s *stepCtx, i int, op operator) (bool, error) {
	inputs := d.plan.Nodes[i].Inputs
	switch o := op.(type) {
	case *shardedOp:
		ins := make([][][]repr.Update, len(inputs))
		keyedBy := make([]int, len(inputs))
		for x, j := range inputs {
			if ins[x], keyedBy[x] = r.parts[j], r.keyedBy[j]; ins[x] == nil {
				ins[x] = [][]repr.Update{d.outs[j]}
			}
		}
		outs, err := o.stepParts(s, ins, keyedBy)
		r.setParts(d, i, outs, i)
		return true, err
	case passFirst:
		if p := r.parts[inputs[0]]; p != nil {
			r.setParts(d, i, p, r.keyedBy[inputs[0]])
			return true, nil
		}
		return false, nil
	case emitNothing:
		return true, nil
	}
	if r.ops[i] == nil {
		return false, nil
	}
	parts, keyedBy := r.parts[inputs[0]], r.keyedBy[inputs[0]]
	if parts == nil {
		whole := d.outs[inputs[0]]
		if len(whole) < shardParallelMin {
			return false, nil
		}
		parts, keyedBy = splitParts(whole, r.n), -1
	} else if len(parts) != r.n {
		parts, keyedBy = splitParts(concatParts(parts), r.n), -1
	}
	if partsLen([][][]repr.Update{parts}) < shardParallelMin {
		return false, nil
	}
	if rt := r.route[i]; rt != nil {
		return true, r.runRouted(d, s, i, rt, parts)
	}
	outs, err := r.runParts(s, i, parts)
	r.setParts(d, i, outs, keyedBy)
	return true, err
}

// runRouted runs node i over its input parts routed by rt (one part per
// shard of node rt.node), and records its parts as that node's. When a
// part fails, the node runs again over the whole input, so that the error
// is the first failing update's in input order.
func (r *partedRun) runRouted(d *Dataflow, s *stepCtx, i int, rt *preRoute, parts [][]repr.Update) error {
	routed, err := rt.routeParts(parts, r.n)
	if err != nil {
		return err
	}
	outs, err := r.runParts(s, i, routed)
	if err == nil {
		r.setParts(d, i, outs, rt.node)
		return nil
	}
	if _, werr := runStep(r.ops[i][0], s, [][]repr.Update{concatParts(parts)}); werr != nil {
		return werr
	}
	return err
}

// setParts records node i's output in parts, which are sharded node
// keyedBy's shards' outputs one for one (-1: not).
func (r *partedRun) setParts(d *Dataflow, i int, parts [][]repr.Update, keyedBy int) {
	r.parts[i], d.outs[i], r.keyedBy[i] = parts, nil, keyedBy
}

// runParts runs node i's instance k over parts[k], for every k
// concurrently, each with its worker's context, and merges their logs
// and counters in part order; it returns their outputs in part order.
func (r *partedRun) runParts(s *stepCtx, i int, parts [][]repr.Update) ([][]repr.Update, error) {
	outs := make([][]repr.Update, r.n)
	parallel(r.n, func(k int) {
		w := &r.workers[k]
		w.in[0] = parts[k]
		outs[k], w.grown, w.work, w.err = stepForked(r.ops[i][k], s, &w.log, &w.slab, w.in, nil)
		w.in[0] = nil
	})
	for k := range r.workers {
		if err := r.workers[k].err; err != nil {
			return nil, err
		}
	}
	for k := range r.workers {
		w := &r.workers[k]
		s.log.splice(&w.log)
		s.grown += w.grown
		s.work += uint64(w.work)
	}
	if s.mem != nil {
		if err := s.accountPieces(); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// end forgets the Step's parts and lets go of the workers' current slab
// chunks, as a shard does after a Step (trim), so that they
// do not pin the Step's rows.
func (r *partedRun) end() {
	clear(r.parts)
	for i := range r.keyedBy {
		r.keyedBy[i] = -1
	}
	for k := range r.workers {
		w := &r.workers[k]
		w.slab.release()
	}
}
