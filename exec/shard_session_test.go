package exec

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// shardSessionPlans are the keyed SessionWindows of
// TestSpilledSessionEqualsInMemory, and one without Key columns, which
// stays whole.
var shardSessionPlans = append(slices.Clone(sessionSpillPlans), sessionKeylessPlans[2])

// TestShardedSessionsEqualSingle is TestShardedWindowsEqualSingle over
// SessionWindows: run as shards by group key, they give the same
// outputs, close the same sessions at the same Steps and log the same
// state as one operator, across rollbacks and restores that change the
// worker count.
func TestShardedSessionsEqualSingle(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^12))
	for iter := range 6 * len(shardSessionPlans) {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		text := shardSessionPlans[iter/2%len(shardSessionPlans)]
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		checkSessionShards(t, p)
		next, commit := windowFeed(t, rng, 30)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// checkSessionShards checks that p's SessionWindows with Key columns run
// as shards on two workers, and those without whole.
func checkSessionShards(t *testing.T, p *dataflow.Plan) {
	t.Helper()
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range p.Nodes {
		sw, ok := n.Op.(dataflow.SessionWindow)
		if !ok {
			continue
		}
		if _, sharded := d.ops[i].(*shardedOp); sharded != (len(sw.Key) > 0) {
			t.Fatalf("node %%%d: sharded %t, key %v", i, sharded, sw.Key)
		}
		if _, ok := unsharded(d.ops[i]).(*sessionOp); !ok {
			t.Fatalf("node %%%d is a %T, not a sessionOp", i, unsharded(d.ops[i]))
		}
	}
}
