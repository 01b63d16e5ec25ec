package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/exec/dataflow"
)

// shardPlan is the harness's "shards workers=n" command: the plan built
// for n workers, and per sharded node the columns its shards are
// partitioned by and, per input, whether it is exchanged or taken from a
// co-partitioned node's shards as it is.
func shardPlan(t *testing.T, td *datadriven.TestData) (string, error) {
	n := 2
	td.MaybeScanArgs(t, "workers", &n)
	p, err := dataflow.Parse(td.Input)
	if err != nil {
		return "", err
	}
	d, err := BuildWorkers(p, n)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, op := range d.ops {
		o, ok := op.(*shardedOp)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%%%d %T", i, unsharded(o))
		var cols []string
		for in := range d.plan.Nodes[i].Inputs {
			cols = append(cols, fmt.Sprint(keyColumns(o.key, in)))
		}
		fmt.Fprintf(&b, " by %s", strings.Join(cols, " "))
		if r := reduceOf(o.key); r != nil && r.refine != nil {
			fmt.Fprintf(&b, " (refined: key positions %v of %v)", r.refine.pos, r.spec.Key)
		}
		for in, j := range d.plan.Nodes[i].Inputs {
			if o.from[in] == i {
				b0 := d.plan.Nodes[j].Inputs[0]
				fmt.Fprintf(&b, "; input %%%d: routed by %v at fan-out %%%d, no exchange", j, d.par.route[b0].cols, b0)
			} else if o.from[in] >= 0 {
				fmt.Fprintf(&b, "; input %%%d: %%%d's parts, no exchange", j, o.from[in])
			} else {
				fmt.Fprintf(&b, "; input %%%d: exchanged", j)
			}
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// refinePlan has Reduces grouped by the join key and more columns: %3 by
// (join key, right column) is refined to the join key; %5 groups %3's
// output by the same columns in another order (refined, the key second);
// %6 by a text column and the join key (refined past a text column); %7
// by its own whole key after %3 (exchanged). %3's min over retractions
// keeps multiset entries, whose restore is routed by the refined key.
const refinePlan = `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] <- %0, %1
%3 = Reduce key=[#0, #4] aggs=[max(#1), count(*), min(#5)] <- %2
%4 = MFP project=[#1, #0, #2, #4] <- %3
%5 = Reduce key=[#0, #1] aggs=[sum(#2), min(#3)] <- %4
%6 = Reduce key=[#5, #0] aggs=[count(*), max(#2)] <- %2
%7 = Reduce key=[#2] aggs=[count(*)] <- %3`

// TestRefinedKeys checks which Reduces are refined and co-partitioned
// (under verifyCopartition every row taken without exchange is checked
// to hash to its shard), and that 1, 2 and 4 workers give the same
// outputs and state across rollbacks and restores that change the count.
func TestRefinedKeys(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	p, err := dataflow.Parse(refinePlan)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	for node, want := range map[int][]int{3: {0}, 5: {1}, 6: {1}, 7: nil} {
		r := unsharded(d.ops[node]).(*reduceOp)
		var got []int
		if r.refine != nil {
			got = r.refine.pos
		}
		if !slices.Equal(got, want) {
			t.Fatalf("node %d: refined to key positions %v, want %v", node, got, want)
		}
	}
	for node, want := range map[int][]int{3: {2}, 5: {3}, 6: {2}, 7: {-1}} {
		if got := d.ops[node].(*shardedOp).from; !slices.Equal(got, want) {
			t.Fatalf("node %d: co-partitioned with %v, want %v", node, got, want)
		}
	}
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 15))
	for iter := range 6 {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		next, commit := randomFeed(rng)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("inline below %d: %v", shardParallelMin, err)
		}
	}
}
