package exec

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// TestPreRouteHop checks that the HOP plan of windowPlans routes its
// fan-out's input by k and refines the count to k, and that with a branch
// that fails on some rows (division by zero) 1, 2 and 4 workers fail
// alike and otherwise agree on outputs and state across rollbacks and
// restores (every Step run in parts: shardParallelMin 0).
func TestPreRouteHop(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	shardParallelMin = 0
	var hop string
	for _, p := range windowPlans {
		if strings.Contains(p, "%6 = Reduce key=[#0] aggs=[max(#2)] <- %5") {
			hop = p
		}
	}
	if hop == "" {
		t.Fatal("no HOP plan in windowPlans")
	}
	failing := strings.Replace(hop, "filter=[(#1 < #4)]", "filter=[(#1 < #4), ((100 / #2) > -1000)]", 1)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^21))
	for iter, text := range []string{hop, failing, hop, failing} {
		text = strings.ReplaceAll(text, "%e", []string{"", " emit=close"}[iter/2])
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		d, err := BuildWorkers(p, 2)
		if err != nil {
			t.Fatal(err)
		}
		o := d.ops[5].(*shardedOp)
		if r := reduceOf(o.key); r.refine == nil || !slices.Equal(r.refine.pos, []int{1}) || o.from[0] != 5 {
			t.Fatalf("count not routed before the fan-out: refine %+v, from %v", r.refine, o.from)
		}
		if rt := d.par.route[2]; rt == nil || !slices.Equal(rt.cols, []int{0}) {
			t.Fatalf("fan-out route %+v, want by column 0", rt)
		}
		next, commit := windowFeed(t, rng, 30)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("seed %d, plan:\n%s\n%v", seed, text, err)
		}
	}
}
