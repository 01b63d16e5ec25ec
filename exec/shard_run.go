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

// poolTask is one task of a parallel phase: fn(k), then wg is done.
type poolTask struct {
	fn func(k int)
	k  int
	wg *sync.WaitGroup
}

// runnerPool is a pool of shard runners.
type runnerPool struct {
	// tasks carries tasks to parked runners (unbuffered: a send succeeds
	// only when a runner is waiting).
	tasks chan poolTask
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
	return &runnerPool{tasks: make(chan poolTask), max: max}
}

// handOff runs t on a parked runner, on a new one, or (past max) on the
// calling goroutine.
func (p *runnerPool) handOff(t poolTask) {
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
func (p *runnerPool) run(first poolTask) {
	for t := first; ; t = <-p.tasks {
		t.run()
	}
}

// run runs the task and marks it done.
func (t poolTask) run() {
	defer t.wg.Done()
	t.fn(t.k)
}

// parallel runs fn(0), ..., fn(n-1) concurrently, fn(0) on the calling
// goroutine and the others on the pool's runners, and returns when all
// have returned. fn must not panic (callers recover inside it).
func parallel(n int, fn func(k int)) {
	if n == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for k := 1; k < n; k++ {
		shardRunners.handOff(poolTask{fn: fn, k: k, wg: &wg})
	}
	fn(0)
	wg.Wait()
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

// appendAll appends m's keys after k's.
func (k *inKeys) appendAll(m *inKeys) {
	base := int32(len(k.buf))
	k.buf = append(k.buf, m.buf...)
	for _, e := range m.ends {
		k.ends = append(k.ends, base+e)
	}
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
