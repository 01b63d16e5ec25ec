package exec

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// EDDY_WORKERS=n (n > 1) runs every test of this package with its
// dataflows built for n workers, and every sharded Step concurrent.
func init() {
	if n, err := strconv.Atoi(os.Getenv("EDDY_WORKERS")); err == nil && n > 1 {
		buildWorkers, shardParallelMin = n, 0
	}
}

// shardWorkers are the worker counts TestShardedEqualsSingle compares.
var shardWorkers = []int{1, 2, 4}

// TestShardedEqualsSingle checks, for the random plans and random update
// sequences, that dataflows built for 1, 2 and 4 workers give the same
// consolidated output at every Step, log the same state (the stores they
// write are equal), and go on doing so when, at random Steps, each is
// replaced by a dataflow of another worker count restored from its store.
// Steps are randomly rolled back; half the runs step the shards
// concurrently, the other half inline.
func TestShardedEqualsSingle(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^9))
	for iter := range 2 * len(randomPlans) * 3 {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		text := instantiate(randomPlans[iter/2%len(randomPlans)], rng)
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		next, commit := randomFeed(rng)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// TestShardedWindowsEqualSingle is TestShardedEqualsSingle over the
// windowed and interval plans, with growing watermarks: windowed Reduces
// and TopKs, window and interval joins close their windows per shard.
func TestShardedWindowsEqualSingle(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^10))
	plans := append(slices.Clone(windowPlans), intervalPlans...)
	for iter := range 4 * len(plans) {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		tmpl := plans[iter/2%len(plans)]
		text := strings.ReplaceAll(tmpl, "%e", []string{"", " emit=close"}[iter/2/len(plans)%2])
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		next, commit := windowFeed(t, rng, 30)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// shardRun is a dataflow per worker count of shardWorkers, each with
// its store.
type shardRun struct {
	plan    *dataflow.Plan
	workers []int
	ds      []*Dataflow
	stores  []*memStore
	// same compares two stores (nil: byte for byte).
	same func(a, b *memStore) bool
	// failed is whether the last Step failed (on every worker count
	// alike): its input never entered the dataflows, so the feed must
	// not count it as committed.
	failed bool
}

// runSharded runs steps Steps of p on a dataflow per worker count,
// drawing each Step's input from next and telling commit the inputs of
// the Steps kept.
func runSharded(p *dataflow.Plan, rng *rand.Rand, steps uint64, next func(*Dataflow, uint64) Input, commit func(Input)) error {
	return runShardedSame(p, rng, steps, next, commit, nil)
}

// runShardedSame is runSharded comparing the stores with same (nil: byte
// for byte).
func runShardedSame(p *dataflow.Plan, rng *rand.Rand, steps uint64, next func(*Dataflow, uint64) Input, commit func(Input), same func(a, b *memStore) bool) error {
	r := &shardRun{plan: p, workers: shardWorkers, same: same}
	for _, w := range r.workers {
		d, err := BuildWorkers(p, w)
		if err != nil {
			return err
		}
		r.ds, r.stores = append(r.ds, d), append(r.stores, newMemStore())
	}
	for step := uint64(1); step <= steps; step++ {
		in := next(r.ds[0], step)
		rollback := rng.IntN(6) == 0
		if err := r.step(step, in, rollback); err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		if !rollback && !r.failed {
			commit(in)
		}
		if rng.IntN(6) == 0 {
			if err := r.restart(); err != nil {
				return fmt.Errorf("restart after step %d: %w", step, err)
			}
		}
	}
	return nil
}

// step runs one Step on every dataflow and compares their outputs (or
// errors) and, once committed, their stores.
func (r *shardRun) step(t uint64, in Input, rollback bool) error {
	var want string
	for k, d := range r.ds {
		var b opBatch
		out, err := d.StepInput(&expr.Ctx{}, t, in, &b)
		got := formatUpdates(out)
		if err != nil {
			got = "error: " + err.Error()
		}
		r.failed = err != nil
		if k == 0 {
			want = got
		} else if got != want {
			return fmt.Errorf("%d workers output:\n%s1 worker:\n%s", r.workers[k], got, want)
		}
		if err != nil {
			continue
		}
		if rollback {
			d.Rollback()
			continue
		}
		d.Commit()
		b.apply(r.stores[k])
	}
	at, ok := r.ds[0].NextTransition()
	for k, d := range r.ds[1:] {
		if a, o := d.NextTransition(); a != at || o != ok {
			return fmt.Errorf("%d workers: next transition %d %t, 1 worker %d %t", r.workers[k+1], a, o, at, ok)
		}
	}
	for k := range r.ds[1:] {
		if !r.sameStore(r.stores[k+1], r.stores[0]) {
			return fmt.Errorf("%d workers logged other state than 1 worker:\n%s\n1 worker:\n%s",
				r.workers[k+1], formatStore(r.stores[k+1]), formatStore(r.stores[0]))
		}
	}
	return nil
}

// sameStore compares two stores with r.same, or byte for byte.
func (r *shardRun) sameStore(a, b *memStore) bool {
	if r.same != nil {
		return r.same(a, b)
	}
	return maps.EqualFunc(a.m, b.m, bytes.Equal)
}

// restart replaces every dataflow by one of the next worker count
// restored from its store, and compares every node's restored state.
func (r *shardRun) restart() error {
	r.workers = append(r.workers[1:], r.workers[0])
	for k, w := range r.workers {
		d, err := BuildWorkers(r.plan, w)
		if err != nil {
			return err
		}
		if err := d.Restore(r.stores[k]); err != nil {
			return fmt.Errorf("%d workers: %w", w, err)
		}
		r.ds[k] = d
	}
	for i := range r.plan.Nodes {
		want := r.ds[0].DebugState(i)
		for k, d := range r.ds[1:] {
			if got := d.DebugState(i); got != want {
				return fmt.Errorf("node %%%d restored with %d workers:\n%swith %d:\n%s", i, r.workers[k+1], got, r.workers[0], want)
			}
		}
	}
	return nil
}

// formatStore prints a store's keys and values in hex, sorted.
func formatStore(s *memStore) string {
	var b bytes.Buffer
	_ = s.Scan(nil, func(k, v []byte) error {
		fmt.Fprintf(&b, "%x = %x\n", k, v)
		return nil
	})
	return b.String()
}

// TestShardOfSpreads checks that the shard hash spreads consecutive
// integer keys evenly over two and four shards.
func TestShardOfSpreads(t *testing.T) {
	for _, n := range []int{2, 4} {
		counts := make([]int, n)
		var buf []byte
		for i := range 10000 {
			buf = repr.AppendKey(buf[:0], repr.NewInt(int64(2*i)))
			counts[shardOf(buf, n)]++
		}
		for k, c := range counts {
			if c < 10000/n*9/10 || c > 10000/n*11/10 {
				t.Errorf("%d shards: shard %d has %d of 10000 keys: %v", n, k, c, counts)
			}
		}
	}
}

// shardsOf returns op's shards' operators, or op alone if not sharded.
func shardsOf(op operator) []operator {
	o, ok := op.(*shardedOp)
	if !ok {
		return []operator{op}
	}
	var out []operator
	for _, sh := range o.shards {
		out = append(out, sh.op)
	}
	return out
}

// randomFeed returns runSharded's next and commit over a randomRun's
// random batches.
func randomFeed(rng *rand.Rand) (next func(*Dataflow, uint64) Input, commit func(Input)) {
	gen := &randomRun{inputs: map[repr.CollectionID][]repr.Update{}}
	next = func(d *Dataflow, step uint64) Input {
		gen.live = d
		return Input{Updates: retimeBatch(gen.randomBatch(rng, step), step)}
	}
	commit = func(in Input) {
		for c, us := range in.Updates {
			gen.inputs[c] = retime(Consolidate(append(gen.inputs[c], us...)))
		}
	}
	return next, commit
}

// windowFeed returns runSharded's next and commit over a windowRun's
// random inputs with growing watermarks; Step last closes every window.
func windowFeed(t *testing.T, rng *rand.Rand, last uint64) (next func(*Dataflow, uint64) Input, commit func(Input)) {
	t.Helper()
	base, err := dataflow.ParseRow("('2024-01-01 00:00:00')", []repr.T{repr.Timestamp})
	if err != nil {
		t.Fatal(err)
	}
	gen := &windowRun{wm: map[repr.CollectionID]int64{}, base: base[0].Micros(), inputs: map[repr.CollectionID][]repr.Update{}}
	next = func(d *Dataflow, step uint64) Input {
		gen.d = d
		in := gen.randomInput(rng, step, step == last)
		gen.dropNegative(in)
		return in
	}
	return next, gen.committed
}
