package exec

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// TestShardedAppendJoinsEqualSingle is TestShardedEqualsSingle over the
// append-only join plans with insert-only batches: an appendJoin run as
// shards gives the same outputs and logs the same rows under the same
// sequence numbers as one appendJoin, across rollbacks and restores that
// change the worker count.
func TestShardedAppendJoinsEqualSingle(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^11))
	for iter := range 6 * len(appendJoinPlans) {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		text := instantiate(appendJoinPlans[iter/2%len(appendJoinPlans)], rng)
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		checkAppendShards(t, p)
		next := func(_ *Dataflow, step uint64) Input {
			return Input{Updates: retimeBatch(randomAppendScript(rng, 2, 1)[0].batch, step)}
		}
		same := func(a, b *memStore) bool { return maps.Equal(appendRowSets(p, a), appendRowSets(p, b)) }
		if err := runShardedSame(p, rng, 30, next, func(Input) {}, same); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// appendRowSets prints a store as a map from key to value, but for the
// rows of p's append-only joins: their keys lose the sequence number and
// their values are listed in order. The order of a join's input in a Step
// may depend on the worker count (an upstream sharded node's output is a
// permutation), and with it the sequence numbers of the rows one Step
// stores under a join key; their set, and the next sequence number, may
// not.
func appendRowSets(p *dataflow.Plan, s *memStore) map[string]string {
	var prefixes [][]byte
	for i, n := range p.Nodes {
		if j, ok := n.Op.(dataflow.Join); ok && j.AppendOnly {
			prefixes = append(prefixes, nodePrefix(nil, i))
		}
	}
	sets := map[string][]string{}
	for k, v := range s.m {
		key := []byte(k)
		for _, pre := range prefixes {
			if bytes.HasPrefix(key, pre) && len(key) > len(pre) && key[len(pre)] != appendSeqKey {
				k = "rows " + string(key[:len(key)-8])
			}
		}
		sets[k] = append(sets[k], string(v))
	}
	out := map[string]string{}
	for k, vs := range sets {
		slices.Sort(vs)
		out[k] = strings.Join(vs, "|")
	}
	return out
}

// checkAppendShards checks that p's append-only joins with an equi-key
// run as shards on two workers, and those without one whole.
func checkAppendShards(t *testing.T, p *dataflow.Plan) {
	t.Helper()
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range p.Nodes {
		j, ok := n.Op.(dataflow.Join)
		if !ok {
			continue
		}
		sh, sharded := d.ops[i].(*shardedOp)
		if sharded != (len(j.LeftKey) > 0) {
			t.Fatalf("node %%%d: sharded %t, equi-key %v", i, sharded, j.LeftKey)
		}
		if _, ok := unsharded(d.ops[i]).(*appendJoin); !ok {
			t.Fatalf("node %%%d is a %T, not an appendJoin", i, unsharded(d.ops[i]))
		}
		if sharded && len(sh.shards) != 2 {
			t.Fatalf("node %%%d has %d shards", i, len(sh.shards))
		}
	}
}
