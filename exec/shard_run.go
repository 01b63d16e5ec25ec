package exec

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The goroutines that step shards (shard.go), and the keys a shard's
// operator takes from the partition.
//
// A parallel Step hands each shard but the first to a parked runner: a
// goroutine of the process-wide pool (shardRunners) that waits for tasks. Handing
// off is a channel send to a parked goroutine, not a goroutine start per
// shard per Step; when no runner is parked (every one is busy with other
// dataflows' shards), a new one joins the pool, up to its bound,
// past which the Step's goroutine runs the shard itself (correct, merely
// not concurrent). Runners never exit: the pool is as large as the most
// shards ever stepped at once, bounded, and parked runners cost a stack.

// shardTask is one shard to step with a fork of s's context; wg is done
// when it has run.
type shardTask struct {
	sh   *shard
	s    *stepCtx
	wg   *sync.WaitGroup
	keys bool
}

// runnerPool is a pool of shard runners.
type runnerPool struct {
	// tasks carries tasks to parked runners (unbuffered: a send succeeds
	// only when a runner is waiting).
	tasks chan shardTask
	// runners counts the runners started; at most max.
	runners atomic.Int64
	max     int64
}

// shardRunners is the process-wide pool every sharded node hands off to,
// bounded so that every core can step a shard of several dataflows at
// once.
var shardRunners = newRunnerPool(int64(8 * runtime.GOMAXPROCS(0)))

// newRunnerPool returns an empty pool of at most max runners.
func newRunnerPool(max int64) *runnerPool {
	return &runnerPool{tasks: make(chan shardTask), max: max}
}

// handOff runs t on a parked runner, on a new one, or (past max) on the
// calling goroutine.
func (p *runnerPool) handOff(t shardTask) {
	select {
	case p.tasks <- t:
		return
	default:
	}
	if p.runners.Add(1) <= p.max {
		go p.run(t)
		return
	}
	p.runners.Add(-1)
	t.run()
}

// run runs first, then every task handed to the pool, forever.
func (p *runnerPool) run(first shardTask) {
	for t := first; ; t = <-p.tasks {
		t.run()
	}
}

// run steps the task's shard and marks it done.
func (t shardTask) run() {
	defer t.wg.Done()
	t.sh.run(t.s, t.keys)
}

// inKeys holds the key encodings of a shard's input 0, in input order,
// as the partition computed them (keyed.inputKey): an operator that
// takes them (takesInKeys) does not encode its rows' keys again.
type inKeys struct {
	buf  []byte
	ends []int32
}

// add appends the key of the next update.
func (k *inKeys) add(key []byte) {
	k.buf = append(k.buf, key...)
	k.ends = append(k.ends, int32(len(k.buf)))
}

// reset empties k for the next Step.
func (k *inKeys) reset() { k.buf, k.ends = k.buf[:0], k.ends[:0] }

// at returns the key of update i, nil when k is nil (the operator then
// encodes the key itself). The slice is valid until the Step ends and
// must not be written to.
func (k *inKeys) at(i int) []byte {
	if k == nil || i >= len(k.ends) {
		return nil
	}
	start := int32(0)
	if i > 0 {
		start = k.ends[i-1]
	}
	return k.buf[start:k.ends[i]:k.ends[i]]
}

// takesInKeys reports whether op reads its input 0's keys from
// stepCtx.inKeys (its step is given its input unchanged, so that the
// keys line up with the updates).
func takesInKeys(op operator) bool {
	switch op.(type) {
	case *reduceOp, *windowReduce, *thresholdOp:
		return true
	}
	return false
}
