package exec

import "fmt"

// Deferred group records. A Reduce logs each touched group's record
// ({0x01} group-key -> key columns, row count, accumulators) at the end
// of every Step; with 1,000 groups and 1,000-row commits every commit
// rewrites every group, and the checkpoint batch, which keeps only the
// last write of a key, sorts them away again (BENCHMARKS.md, write path).
// A Step with Input.DeferState instead marks the groups it touched dirty;
// FlushState logs each dirty group's current record once, at the
// checkpoint, to the same batch. Multiset entries (per value, rarely
// rewritten) and scale pairs are still logged by the Step.
//
// Invariants: a dirty group is in o.dirty exactly once (g.dirty); a group
// a Step freed stays in o.dirty, out of o.groups, until the flush logs its
// deletion, after any earlier group of its key (a later group of the same
// key comes later in o.dirty, so the batch keeps its record); the flush
// writes current state, so a rolled-back Step's marks only cost a
// rewrite. Only plain Reduces in memory defer (allowDeferral): a spilled
// one logs every Step (its evictions need the store to hold what the
// Step wrote), and spilling refuses while groups are dirty (spillTo),
// which a checkpoint's flush always precedes.

// allowDeferral lets d's plain Reduces, sharded or not, defer their group
// records. Windowed and two-phase global Reduces wrap reduceOp and log as
// before.
func (d *Dataflow) allowDeferral() {
	for _, op := range d.ops {
		switch o := op.(type) {
		case *reduceOp:
			o.deferOK = true
		case *shardedOp:
			for _, sh := range o.shards {
				if r, ok := sh.op.(*reduceOp); ok {
					r.deferOK = true
				}
			}
		}
	}
}

// FlushState logs to w every state change that Steps with
// Input.DeferState kept dirty since the last FlushState, each key's
// current state once. It fails, writing nothing, while a Step is pending:
// its state is not yet the one to write.
func (d *Dataflow) FlushState(w StateWriter) error {
	if d.pending {
		return fmt.Errorf("dataflow: state flushed while a Step is pending")
	}
	d.log.reset()
	d.log.off = w == nil
	_, d.log.ranges = w.(PrefixDeleter)
	d.log.direct = w // no op fails part way: nothing to buffer
	defer func() { d.log.direct = nil }()
	s := stepCtx{log: &d.log}
	for i, op := range d.ops {
		s.prefix = nodePrefix(s.prefix[:0], i)
		switch o := op.(type) {
		case *reduceOp:
			o.flushDirty(&s)
		case *shardedOp:
			for _, sh := range o.shards {
				if r, ok := sh.op.(*reduceOp); ok {
					r.flushDirty(&s)
				}
			}
		}
	}
	return nil
}

// defers reports whether the Step s leaves o's group records to
// FlushState.
func (o *reduceOp) defers(s *stepCtx) bool { return s.deferState && o.deferOK && o.sp == nil }

// markDirty adds g to the groups FlushState logs, once.
func (o *reduceOp) markDirty(s *stepCtx, g *group) {
	if g.dirty {
		return
	}
	g.dirty = true
	o.dirty = append(o.dirty, g)
	s.grown += 8
}

// flushDirty logs every dirty group's record (its deletion if freed), in
// the order they became dirty, and the runs of the multisets owing them
// (reduce_runs.go), and forgets them.
func (o *reduceOp) flushDirty(s *stepCtx) {
	o.flushRuns(s)
	for i, g := range o.dirty {
		g.dirty = false
		o.logGroupRecord(s, g)
		o.dirty[i] = nil
	}
	o.dirty = reuse(o.dirty)
}
