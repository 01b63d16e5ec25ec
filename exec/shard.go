package exec

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// Data-parallel execution (BuildWorkers). A dataflow built for n > 1
// workers runs each stateful node whose state is partitioned by a key (a
// keyed operator: a grouped Reduce, ...) as n shards: n independent
// instances of the node's operator, shard k owning the keys whose
// shardOf hash is k. Inside a Step the node's input is exchanged by that
// hash (timely dataflow's Exchange pact, done in place: the shards of one
// process share memory, so the exchange is a partition of the batch, not
// a copy through channels), the shards step concurrently, each with its
// own row slab and state log, and their outputs and logs are concatenated
// in shard order. The stateless chains between them run in parts, one
// per worker (dataflow_parts.go), and parted inputs are exchanged by
// their parts concurrently (shard_exchange.go).
//
// Determinism: a shard sees its keys' updates in input order, so its
// state and output for a key are those of the single operator; the
// node's output is a permutation of the single operator's, the same
// permutation for the same inputs and n whatever the scheduling. The
// consolidated output of a Step (StepInput) is identical for every n.
//
// State keys are unchanged: each shard logs under the node's prefix by
// key, as the single operator does, so the store holds the same state
// for every n, Restore routes each logged key to the shard of its key,
// and a restart may change n. Memory accounting and interrupts go
// through the Step's context as before (shards poll their interrupt and
// report their growth after they finish). A spilled shard reads the
// store on demand, so the shards of a node with a spilled shard run one
// after the other.
//
// The goroutines belong to this driver, never to an operator: operators
// stay deterministic state machines that know nothing of workers.

// keyed is an operator whose every input row and every logged state key
// belongs to one key, and whose state and output for a key depend only
// on that key's input rows: it can run as shards.
type keyed interface {
	operator
	// inputKey appends to buf the encoding of the key of a row of input
	// in (empty: the node is not keyed after all, e.g. a global Reduce).
	inputKey(buf []byte, in int, row repr.Row) []byte
	// logShardKey returns the encoding, as inputKey computes it, of the key
	// a logged state entry (key relative to the node's prefix, and its
	// value) belongs to.
	logShardKey(key, value []byte) ([]byte, error)
	// shardable reports whether this instance can run as shards.
	shardable() bool
}

// keyedOf returns op as a keyed operator, or nil when it cannot run as
// shards. The operators are listed, not found by interface: a wrapper
// such as windowReduce embeds a keyed operator but keeps state of its own
// that must be keyed too before it may run as shards.
func keyedOf(op operator) keyed {
	switch o := op.(type) {
	case *reduceOp, *joinOp, *appendJoin, *topkOp, *thresholdOp, *windowReduce, *windowTopK, *windowJoin, *intervalJoin, *sessionOp, *windowOp, *temporalOp:
		return o.(keyed)
	}
	return nil
}

// unsharded returns op, or the first shard's operator if op is sharded:
// for what the shards have alike (their kind and configuration).
func unsharded(op operator) operator {
	if o, ok := op.(*shardedOp); ok {
		return o.shards[0].op
	}
	return op
}

// shardParallelMin is the number of input updates below which a sharded
// node steps its shards one after the other on the Step's goroutine: a
// goroutine hand-off costs about a microsecond, the work of a few
// updates less. Tests set it to 0 to run every Step concurrently.
var shardParallelMin = 512

// shardedOp is a keyed node run as len(shards) shards (see above).
type shardedOp struct {
	shards []*shard
	key    keyed // shards[0]'s operator, which computes the keys
	kbuf   []byte
	// outs holds the shards' outputs of the last Step, in shard order.
	outs [][]repr.Update
	// xb is the exchange's buckets: xb[j][k] holds what part j sends to
	// shard k (shard_exchange.go).
	xb [][]bucket
	// from holds, per input, the sharded node whose shards' outputs are
	// partitioned as this node's shards want (-1: none; shard_copart.go);
	// same, during a Step, whether an input's parts are those outputs,
	// and cur the Step's input parts.
	from []int
	same []bool
	cur  [][][]repr.Update
	// passKeys is set when the operator takes its input's keys from the
	// partition (stepCtx.inKeys) instead of encoding them again.
	passKeys bool
	// routed is set when input 0 is routed by this node's key before a
	// fan-out (shard_preroute.go): its parts are then this node's own.
	routed bool
	// stepLen is the Step's input length; peak the largest since the
	// shards' and exchange's buffers were last let go, and sparse the
	// Steps in a row under a quarter of it (keepBuffers).
	stepLen, peak, sparse int
}

// shard is one instance of a sharded node and its Step's working set.
type shard struct {
	op operator
	// kbuf is the key buffer of the shard's part of the exchange.
	kbuf []byte
	ins  [][]repr.Update
	// keys holds the key encodings of ins[0]'s updates, in order.
	keys inKeys
	out  []repr.Update
	err  error
	// log and slab serve the shard when it steps concurrently; grown and
	// work are what it added to its stepCtx's counters.
	log         stateLog
	slab        rowSlab
	grown, work int64
}

// BuildWorkers is Build for workers workers: every keyed stateful node
// runs as workers shards (see shardedOp), every global Reduce whose
// aggregates merge folds in workers parts (shard_global.go; in one part
// on one worker, the cheaper fold). 1 or less is one worker.
func BuildWorkers(p *dataflow.Plan, workers int) (*Dataflow, error) {
	d, err := build(p)
	if err != nil {
		return d, err
	}
	d.splitGlobal(max(workers, 1))
	if workers > 1 {
		if err := d.shard(p, workers); err != nil {
			return d, err
		}
	}
	d.allowDeferral()
	return d, nil
}

// shard turns d's keyed nodes into n shards each, taking the other
// shards' operators from n-1 more builds of p (so that every wrapping
// Build does, watermarks and joins, applies to each shard alike), and
// runs its stateless per-row nodes in parts (dataflow_parts.go) with
// instances from the same builds.
func (d *Dataflow) shard(p *dataflow.Plan, n int) error {
	var nodes []int
	rows := false
	for i, op := range d.ops {
		if k := keyedOf(op); k != nil && k.shardable() {
			nodes = append(nodes, i)
		}
		rows = rows || perRow(op)
	}
	if len(nodes) == 0 && !rows {
		return nil
	}
	builds := make([]*Dataflow, n-1)
	for b := range builds {
		e, err := build(p)
		if err != nil {
			return err
		}
		builds[b] = e
	}
	d.par = newPartedRun(d, builds)
	if len(nodes) == 0 {
		return nil
	}
	sh := make(map[int]*shardedOp, len(nodes))
	for _, i := range nodes {
		o := &shardedOp{key: d.ops[i].(keyed), shards: []*shard{{op: d.ops[i]}}, passKeys: takesInKeys(d.ops[i])}
		for _, e := range builds {
			o.shards = append(o.shards, &shard{op: e.ops[i]})
		}
		for k, x := range o.shards {
			if s, ok := x.op.(interface{ setOwner(func([]byte) bool) }); ok {
				s.setOwner(func(key []byte) bool { return shardOf(key, n) == k })
			}
		}
		sh[i] = o
	}
	for i, o := range sh {
		d.ops[i] = o
	}
	d.refineKeys(sh)
	for i, o := range sh {
		o.from = d.copartition(i, sh)
		if o.routed {
			o.from[0] = i
		}
	}
	d.workers = n
	return nil
}

// Workers returns the number of shards of d's keyed nodes (1: none).
func (d *Dataflow) Workers() int { return max(d.workers, 1) }

// shardOf maps a key encoding to one of n shards: FNV-1a then a
// MurmurHash3 finalizer, fixed (not seeded per process) so that a
// node's partition, and thus its output order, is the same in every run.
func shardOf(key []byte, n int) int {
	h := uint64(14695981039346656037)
	for _, b := range key {
		h = (h ^ uint64(b)) * 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return int(h % uint64(n))
}

func (o *shardedOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	parts := make([][][]repr.Update, len(ins))
	for in, us := range ins {
		parts[in] = [][]repr.Update{us}
	}
	outs, err := o.stepParts(s, parts, nil)
	if err != nil {
		return nil, err
	}
	return concatParts(outs), nil
}

// stepParts steps the node over its inputs given in parts (ins[in] holds
// input in's parts, whose concatenation in order is the input) and
// returns its output in parts, shard k's output the k-th, whose
// concatenation in shard order is the node's output (valid until the
// next Step). keyedBy[in] is the sharded node whose shards' outputs
// input in's parts are (-1 or nil: not known). Below shardParallelMin
// updates, or spilled, the Step's goroutine partitions the input and
// steps the shards one after the other; else the parts are exchanged
// concurrently (exchange) and the shards step concurrently.
func (o *shardedOp) stepParts(s *stepCtx, ins [][][]repr.Update, keyedBy []int) ([][]repr.Update, error) {
	if partsLen(ins) < shardParallelMin || o.spilled() {
		o.partition(ins)
		o.prepare(ins)
		return o.stepInline(s)
	}
	if err := o.exchange(ins, keyedBy); err != nil {
		return nil, err
	}
	o.prepare(ins)
	o.stepLen = partsLen(ins)
	return o.stepParallel(s)
}

// prepare calls the operator's shardPreparer, if it has one, once the
// input is partitioned.
func (o *shardedOp) prepare(ins [][][]repr.Update) {
	if p, ok := o.key.(shardPreparer); ok {
		p.prepareShards(o, ins)
	}
}

// begin readies the shards' input buffers for a Step's partition.
func (o *shardedOp) begin(inputs int) {
	for _, sh := range o.shards {
		for len(sh.ins) < inputs {
			sh.ins = append(sh.ins, nil)
		}
		sh.release() // after a failed Step, its batches are still here
	}
}

// partition splits each input among the shards by key, on the calling
// goroutine.
func (o *shardedOp) partition(ins [][][]repr.Update) {
	o.begin(len(ins))
	n := len(o.shards)
	for in, parts := range ins {
		keep := in == 0 && o.passKeys // the shard's operator takes its keys
		for _, us := range parts {
			for _, u := range us {
				o.kbuf = o.key.inputKey(o.kbuf[:0], in, u.Row)
				sh := o.shards[shardOf(o.kbuf, n)]
				sh.ins[in] = append(sh.ins[in], u)
				if keep {
					sh.keys.add(o.kbuf)
				}
			}
		}
	}
}

// stepInline steps the shards one after the other with the Step's own
// context; it returns their outputs in shard order.
func (o *shardedOp) stepInline(s *stepCtx) ([][]repr.Update, error) {
	o.outs = o.outs[:0]
	defer func() { s.inKeys = nil }()
	for _, sh := range o.shards {
		s.inKeys = sh.inKeys(o.passKeys)
		out, err := sh.op.step(s, sh.ins)
		if err != nil {
			return nil, err
		}
		o.outs = append(o.outs, out)
		sh.release()
	}
	return o.outs, nil
}

// stepParallel steps every shard on its own goroutine (the first on the
// Step's), each with a fork of the Step's context, after it gathered its
// input from the exchange; then it merges their logs and counters in
// shard order and returns their outputs in shard order.
func (o *shardedOp) stepParallel(s *stepCtx) ([][]repr.Update, error) {
	parallel(len(o.shards), func(k int) {
		if o.shards[k].err = o.gather(k); o.shards[k].err == nil {
			o.shards[k].run(s, o.passKeys)
		}
	})
	o.cur = nil
	for _, sh := range o.shards {
		if sh.err != nil {
			return nil, sh.err
		}
	}
	o.outs = o.outs[:0]
	for _, sh := range o.shards {
		o.outs = append(o.outs, sh.out)
		s.log.splice(&sh.log)
		s.grown += sh.grown
		s.work += uint64(sh.work)
		sh.release()
		sh.slab.release()
	}
	if !o.keepBuffers() {
		for _, sh := range o.shards {
			sh.trim()
		}
		o.trimExchange()
	}
	if s.mem != nil {
		if err := s.accountPieces(); err != nil {
			return nil, err
		}
	}
	return o.outs, nil
}

// accountPieces reports the Step's growth since its last report, which
// concurrent shards could not report as they grew, in the pieces of
// memReportBytes that one operator would have reported: an account
// judges a request by what it already holds, so one large request is not
// the same as many small ones.
func (s *stepCtx) accountPieces() error {
	g := s.growth()
	for s.reported+memReportBytes <= g {
		s.reported += memReportBytes
		if err := s.mem.Grow(memReportBytes); err != nil {
			return err
		}
	}
	return nil
}

// run steps the shard with a context of its own derived from s (the
// parent's is not touched): its own expression context, log and slab, no
// memory account (the parent reports the shard's growth afterwards).
func (sh *shard) run(s *stepCtx, keys bool) {
	sh.out, sh.grown, sh.work, sh.err = stepForked(sh.op, s, &sh.log, &sh.slab, sh.ins, sh.inKeys(keys))
}

// stepForked steps op over ins beside the Step s (a shard, or one part of
// a stateless node: dataflow_parts.go) in a context of its own derived
// from s, which is not touched: its own expression context, log (reset
// here) and slab, input keys keys, and no memory account: it returns the
// output, the estimated growth (which the Step reports afterwards), the
// work done and the error.
func stepForked(op operator, s *stepCtx, log *stateLog, slab *rowSlab, ins [][]repr.Update, keys *inKeys) ([]repr.Update, int64, int64, error) {
	c := *s
	c.ctx = s.ctx.Fork()
	c.ctx.Memory, c.mem = nil, nil
	log.truncate()
	log.off, log.ranges = s.log.off, s.log.ranges
	c.log, c.slab = log, slab
	c.work, c.grown, c.counts, c.inKeys = 0, 0, nil, keys
	before := slab.growth()
	out, err := runStep(op, &c, ins)
	return out, c.grown + slab.growth() - before, int64(c.work), err
}

// release empties the shard's input buffers (kept for the next Step,
// cleared so they do not hold the Step's rows).
func (sh *shard) release() {
	for i := range sh.ins {
		clear(sh.ins[i])
		sh.ins[i] = sh.ins[i][:0]
	}
	sh.keys.reset()
	sh.out = nil
}

// inKeys returns the shard's input keys for its operator's stepCtx (nil
// unless the operator takes them).
func (sh *shard) inKeys(keys bool) *inKeys {
	if !keys {
		return nil
	}
	return &sh.keys
}

// shardKeepBytes bounds the buffers a shard keeps between Steps once
// they are let go (keepBuffers): its input partitions and keys, and the
// exchange's buckets. Past it they are let go, so that n
// shards of n nodes do not pin n*n Step-sized buffers beyond what the
// single operator would (under a small --memory-limit those buffers were
// standing memory the spill policy cannot free: TestSourceTinyBudget).
const shardKeepBytes = 64 << 10

// keepBuffers reports whether the shards and the exchange keep their
// buffers after this parallel Step: unless logShrinkSteps Steps in a row
// had under a quarter of the largest input since they were last let go.
// Letting them go past shardKeepBytes after every Step (as before) made
// every Step of a steady stream grow its partitions and buckets again
// from nothing; now a burst lets go of them logShrinkSteps Steps later,
// as a state log does (stateLog.reset).
func (o *shardedOp) keepBuffers() bool {
	if o.stepLen*4 < o.peak {
		o.sparse++
	} else {
		o.sparse, o.peak = 0, max(o.peak, o.stepLen)
	}
	if o.sparse < logShrinkSteps {
		return true
	}
	o.sparse, o.peak = 0, o.stepLen
	return false
}

// trim lets go of the shard's buffers past shardKeepBytes (keepBuffers).
// Its log's go to the Step's log, which keeps or lets go of them
// (splice); its slab's current chunk is let go after every parallel Step
// (its rows stay valid: a slab never reuses a chunk).
func (sh *shard) trim() {
	if cap(sh.keys.buf) > shardKeepBytes {
		sh.keys = inKeys{}
	}
	for i, in := range sh.ins {
		if int64(cap(in))*updateBytes > shardKeepBytes {
			sh.ins[i] = nil
		}
	}
}

// spilled reports whether a shard's state is spilled (it then reads the
// store while it steps).
func (o *shardedOp) spilled() bool {
	sp := spillerOf(o.shards[0].op)
	if sp == nil {
		return false
	}
	for _, sh := range o.shards {
		if spilled, _, _, _ := spillerOf(sh.op).spilledStats(); spilled {
			return true
		}
	}
	return false
}

func (o *shardedOp) commit() {
	o.dropOut()
	for _, sh := range o.shards {
		sh.op.commit()
	}
}

func (o *shardedOp) rollback() {
	o.dropOut()
	for _, sh := range o.shards {
		sh.op.rollback()
	}
}

// dropOut lets go of the last Step's inputs and outputs, so that they do
// not pin their rows' slab chunks until the next Step. The node's output
// itself is not cleared: a Step's raw output may be the node's, which
// the caller may read after Commit (StepInputRaw); each Step allocates a
// fresh one instead.
func (o *shardedOp) dropOut() {
	clear(o.outs)
	for _, sh := range o.shards {
		sh.release()
	}
}

// restore hands a logged key to the shard of its key.
func (o *shardedOp) restore(key, value []byte) error {
	if o.shared(key) {
		for _, sh := range o.shards {
			if err := sh.op.restore(key, value); err != nil {
				return err
			}
		}
		return nil
	}
	sh, err := o.shardOfState(key, value)
	if err != nil {
		return err
	}
	return sh.op.restore(key, value)
}

// shardOfState returns the shard a logged state entry belongs to.
func (o *shardedOp) shardOfState(key, value []byte) (*shard, error) {
	k, err := o.key.logShardKey(key, value)
	if err != nil {
		return nil, err
	}
	return o.shards[shardOf(k, len(o.shards))], nil
}

func (o *shardedOp) restored() error {
	for _, sh := range o.shards {
		if err := sh.op.restored(); err != nil {
			return err
		}
	}
	return nil
}
