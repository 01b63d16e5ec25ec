package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// partsPlan has a stateless chain before a sharded Reduce (an MFP, then
// a fused fan-out), one between it and a TopK keyed otherwise, and one
// after the TopK, which is the output.
const partsPlan = `%0 = Source coll=1 :: int8, int8, text
%1 = MFP map=[(#1 * 3)] filter=[(#1 >= 0)] project=[#0, #3, #2] <- %0
%2 = MFP map=[(#1 + 1)] project=[#0, #3] <- %1
%3 = MFP map=[(#1 + 2)] project=[#0, #3] <- %1
%4 = Union <- %2, %3
%5 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %4
%6 = MFP map=[(#2 % 7)] project=[#3, #0, #2] <- %5
%7 = TopK key=[#0] order=[#2 DESC, #1] limit=2 <- %6
%8 = MFP map=[(#2 * 10)] project=[#1, #3] <- %7`

// TestPartsRunChainsPerWorker checks that a dataflow built for 2 and 3
// workers runs its stateless chains in parts, every worker's instance
// producing rows (each worker's slab grew), and that its raw output at
// every Step, order included, is the concatenation a single dataflow's
// nodes would give in shard order: the same multiset as one worker's,
// Step after Step, with deletions and a rollback.
func TestPartsRunChainsPerWorker(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	shardParallelMin = 0
	p, err := dataflow.Parse(partsPlan)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		one, err := BuildWorkers(p, 1)
		if err != nil {
			t.Fatal(err)
		}
		d, err := BuildWorkers(p, n)
		if err != nil {
			t.Fatal(err)
		}
		if d.par == nil {
			t.Fatalf("%d workers: no parts", n)
		}
		for _, i := range []int{2, 6, 8} { // %1 is absorbed by the fan-out at %2
			if len(d.par.ops[i]) != n {
				t.Fatalf("%d workers: node %d has %d instances", n, i, len(d.par.ops[i]))
			}
		}
		for step := uint64(1); step <= 12; step++ {
			var in []repr.Update
			for k := range 300 {
				v := int64(k*int(step)) % 97
				diff := int64(1)
				if step%4 == 0 && k%3 == 0 {
					diff = -1 // retracts what step-1 added for this row
					v = int64(k*int(step-1)) % 97
				}
				in = append(in, repr.Update{Row: repr.Row{repr.NewInt(int64(k % 41)), repr.NewInt(v - 5), repr.NewText(fmt.Sprint(k % 5))}, Time: step, Diff: diff})
			}
			input := Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}
			want, err := one.StepInput(&expr.Ctx{}, step, input, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.StepInput(&expr.Ctx{}, step, input, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := formatUpdates(got), formatUpdates(want); a != b {
				t.Fatalf("%d workers, step %d: output\n%s\nwant\n%s", n, step, a, b)
			}
			if step == 7 {
				one.Rollback()
				d.Rollback()
				continue
			}
			one.Commit()
			d.Commit()
		}
		for k := range d.par.workers {
			if d.par.workers[k].slab.rows == 0 {
				t.Fatalf("%d workers: worker %d's instances made no row", n, k)
			}
		}
	}
}

// TestPartsSlabFollowsTheStep checks that a worker's slab, let go after
// every Step, allocates for what the next Step emits: after a large Step
// grew its chunks to the largest size, a Step of a few rows allocates a
// few small chunks, not a largest one per worker.
func TestPartsSlabFollowsTheStep(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	shardParallelMin = 0
	p, err := dataflow.Parse(partsPlan)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	step := func(t uint64, n int) {
		var in []repr.Update
		for k := range n {
			in = append(in, repr.Update{Row: repr.Row{repr.NewInt(int64(k)), repr.NewInt(int64(k)), repr.NewText("x")}, Time: t, Diff: 1})
		}
		if _, err := d.StepInput(&expr.Ctx{}, t, Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}, nil); err != nil {
			panic(err)
		}
		d.Commit()
	}
	step(1, 20000)
	allocated := func() (a int64) {
		for k := range d.par.workers {
			a += d.par.workers[k].slab.allocated
		}
		return a
	}
	before := allocated()
	for i := range 10 {
		step(uint64(2+i), 4)
	}
	// Four rows, each three datums wide in at most three chained MFPs per
	// worker: within the first two chunk sizes, far from slabChunk.
	if grew := allocated() - before; grew > 10*2*(slabFirstChunk+2*slabFirstChunk)*datumBytes {
		t.Fatalf("ten Steps of 4 rows allocated %d bytes of slab chunks (a largest chunk is %d)", grew, slabChunk*datumBytes)
	}
}

// TestPartsErrorIsTheFirst checks that a Step whose stateless chain fails
// on rows of several parts fails with the error of the first such row in
// input order, as one worker does, and rolls back.
func TestPartsErrorIsTheFirst(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	shardParallelMin = 0
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int8, int8
%1 = MFP map=[(100 / #1), (9223372036854775807 + #0)] project=[#0, #2, #3] <- %0
%2 = Reduce key=[#0] aggs=[sum(#1)] <- %1`)
	if err != nil {
		t.Fatal(err)
	}
	var in []repr.Update
	for k := range 100 {
		in = append(in, repr.Update{Row: repr.Row{repr.NewInt(0), repr.NewInt(int64(k%30 + 1))}, Time: 1, Diff: 1})
	}
	in[20].Row = repr.Row{repr.NewInt(0), repr.NewInt(0)} // division by zero, in the first part
	in[80].Row = repr.Row{repr.NewInt(5), repr.NewInt(1)} // overflow, in the last
	var errs []string
	for _, n := range []int{1, 2, 4} {
		d, err := BuildWorkers(p, n)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.StepInput(&expr.Ctx{}, 1, Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}, nil)
		if err == nil {
			t.Fatalf("%d workers: no error", n)
		}
		errs = append(errs, err.Error())
		out, err := d.StepInput(&expr.Ctx{}, 2, Input{Updates: map[repr.CollectionID][]repr.Update{1: in[:10]}}, nil)
		if err != nil || len(out) != 1 {
			t.Fatalf("%d workers: after the failed Step: %v, %v", n, out, err)
		}
	}
	if !strings.Contains(errs[0], "division by zero") || strings.Join(errs, "|") != strings.Join([]string{errs[0], errs[0], errs[0]}, "|") {
		t.Fatalf("errors differ by worker count: %q", errs)
	}
}

// Every test of the package checks co-partitioned inputs row by row.
func init() { verifyCopartition = true }

// copartPlan chains sharded nodes keyed alike: the TopK by the join's
// key (through a projection), and a join whose inputs are that TopK's
// output and a Reduce's by the same key.
const copartPlan = `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] <- %0, %1
%3 = MFP project=[#3, #0, #1, #2] <- %2
%4 = TopK key=[#1] order=[#2, #3] limit=2 <- %3
%5 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %1
%6 = MFP project=[#1, #0, #2] <- %5
%7 = Join kind=inner on=[#1=#1] <- %4, %6`

// TestCopartitionedInputs checks that the co-partitioned inputs are
// found (the TopK's from the join, both of the last join's), and, under
// verifyCopartition (every row taken without exchange hashes to its
// shard), that 1, 2 and 4 workers give the same outputs and state across
// rollbacks and restores that change the count.
func TestCopartitionedInputs(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	p, err := dataflow.Parse(copartPlan)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	for node, want := range map[int][]int{2: {-1, -1}, 4: {2}, 5: {-1}, 7: {4, 5}} {
		if got := d.ops[node].(*shardedOp).from; !slices.Equal(got, want) {
			t.Fatalf("node %d: co-partitioned with %v, want %v", node, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := range 4 {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		next, commit := randomFeed(rng)
		if err := runSharded(p, rng, 30, next, commit); err != nil {
			t.Fatalf("inline below %d: %v", shardParallelMin, err)
		}
	}
}
