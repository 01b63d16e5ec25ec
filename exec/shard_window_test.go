package exec

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// TestShardedWindowFuncsEqualSingle is TestShardedEqualsSingle over the
// window function plans of TestWindowRandom: a Window with PARTITION BY
// runs as shards by partition key and gives the same outputs, logs the
// same state and restores the same partitions as one operator on 1, 2 and
// 4 workers; one without stays whole.
func TestShardedWindowFuncsEqualSingle(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^13))
	for iter := range 2 * len(windowRandomPlans) {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		text := instantiate(windowRandomPlans[iter/2%len(windowRandomPlans)], rng)
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		checkWindowShards(t, p)
		next, commit := randomFeed(rng)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// checkWindowShards checks that p's Windows with PARTITION BY run as
// shards on two workers, and those without whole.
func checkWindowShards(t *testing.T, p *dataflow.Plan) {
	t.Helper()
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range p.Nodes {
		w, ok := n.Op.(dataflow.Window)
		if !ok {
			continue
		}
		if _, sharded := d.ops[i].(*shardedOp); sharded != (len(w.Key) > 0) {
			t.Fatalf("node %%%d: sharded %t, key %v", i, sharded, w.Key)
		}
		if _, ok := unsharded(d.ops[i]).(*windowOp); !ok {
			t.Fatalf("node %%%d is a %T, not a windowOp", i, unsharded(d.ops[i]))
		}
	}
}
