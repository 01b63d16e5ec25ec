package exec

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// globalPlans are global Reduces of every aggregate that merges
// (expr.AggKind.Mergeable), over retractions and append-only; the source
// has columns (k int4, v int4, s text).
var globalPlans = []string{
	// Counts, integer, numeric (of varying scales) and interval sums and
	// averages, min and max of each type, bools, bits and the moments.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[round(CAST(#1 AS numeric) / 3, (#1 % 3)), (#1 > %a), CAST(#1 AS double precision) / 8, (#1 * '1 day 02:00:00'::interval)] project=[#0, #1, #2, #3, #4, #5, #6] <- %0
%2 = Reduce key=[] aggs=[count(*), count(#1), sum(#1), avg(#1), sum(#3), avg(#3), min(#3), max(#2), min(#5), max(#6), sum(#6), avg(#6), bool_and(#4), bool_or(#4), bit_and(#1), bit_or(#0), bit_xor(#1), var_samp(#1), stddev_pop(#3), var_pop(#5), stddev_samp(#5)] <- %1`,
	// DISTINCT: counts of every type, integer sums, bools.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[round(CAST(#1 AS numeric) / 3, (#1 % 3)), (#1 > %a)] project=[#0, #1, #2, #3, #4] <- %0
%2 = Reduce key=[] aggs=[count(DISTINCT #2), count(DISTINCT #3), sum(DISTINCT #1), avg(DISTINCT #0), bool_or(DISTINCT #4), min(DISTINCT #2), count(*)] <- %1`,
	// Append-only: the min and max keep only the extremum, the DISTINCT
	// aggregates a key set.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[round(CAST(#1 AS numeric) / 3, (#1 % 3))] project=[#0, #1, #2, #3] <- %0
%2 = Reduce key=[] aggs=[count(*), min(#1), max(#2), min(#3), max(#3), count(DISTINCT #2), sum(DISTINCT #1), sum(#3)] append-only=true <- %1`,
}

// TestShardedGlobalEqualsSingle is TestShardedEqualsSingle over the
// global Reduces that run in parts (globalPlans), in random batches of
// up to 10 and of up to 700 updates: 2 and 4 workers give the output,
// logged state and restored state of 1.
func TestShardedGlobalEqualsSingle(t *testing.T) {
	defer func(n, b int) { shardParallelMin, globalBackoff, globalFoldOne = n, b, true }(shardParallelMin, globalBackoff)
	globalFoldOne = false // 1 worker: the Reduce's own fold, the reference
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^11))
	for iter := range 4 * len(globalPlans) * 2 {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		globalBackoff = []int{0, 2}[iter/12%2] // with 2, parts and whole alternate
		tmpl := globalPlans[iter/4%len(globalPlans)]
		text := instantiate(tmpl, rng)
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		d, err := BuildWorkers(p, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.ops[len(d.ops)-1].(*globalReduce); !ok {
			t.Fatalf("plan\n%s\ndid not split its global Reduce", text)
		}
		size := []int{10, 700}[iter/2%2]
		next, commit := globalFeed(rng, size, p.Nodes[len(p.Nodes)-1].Op.(dataflow.Reduce).AppendOnly)
		if err := runSharded(p, rng, 20, next, commit); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// TestGlobalSplitsOnlyMergeable checks that a global Reduce with an
// aggregate that has no merge (a float sum, string_agg, an ordered-set
// aggregate, a DISTINCT numeric sum) stays whole, and that a grouped one
// is sharded rather than split.
func TestGlobalSplitsOnlyMergeable(t *testing.T) {
	for _, aggs := range []string{
		"count(*), sum(#3)", "min(#1), avg(#3)", "count(*), string_agg(#2, #2)",
		"mode() WITHIN GROUP (ORDER BY #1)", "sum(DISTINCT #4)",
	} {
		text := `%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[CAST(#1 AS double precision), CAST(#1 AS numeric)] project=[#0, #1, #2, #3, #4] <- %0
%2 = Reduce key=[] aggs=[` + aggs + `] <- %1`
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		d, err := BuildWorkers(p, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.ops[2].(*reduceOp); !ok {
			t.Errorf("aggs=[%s]: node is %T, want the whole *reduceOp", aggs, d.ops[2])
		}
	}
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[count(*)] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.ops[1].(*shardedOp); !ok {
		t.Errorf("grouped Reduce is %T, want *shardedOp", d.ops[1])
	}
}

// globalFeed returns runSharded's next and commit over random batches of
// up to size updates of source 1: inserts of random rows (a deletion
// may precede its insertion) and, unless appendOnly, deletes of live
// ones.
func globalFeed(rng *rand.Rand, size int, appendOnly bool) (next func(*Dataflow, uint64) Input, commit func(Input)) {
	var live []repr.Update
	next = func(_ *Dataflow, step uint64) Input {
		var batch []repr.Update
		avail := slices.Clone(live)
		for range rng.IntN(size + 1) {
			if len(avail) > 0 && !appendOnly && rng.IntN(3) == 0 {
				if u := &avail[rng.IntN(len(avail))]; u.Diff > 0 {
					u.Diff--
					batch = append(batch, repr.Update{Row: u.Row, Time: step, Diff: -1})
				}
				continue
			}
			row, d := randomRow(rng), int64(1+rng.IntN(2))
			if !appendOnly && rng.IntN(5) == 0 {
				batch = append(batch, repr.Update{Row: row, Time: step, Diff: -1})
				d++
			}
			batch = append(batch, repr.Update{Row: row, Time: step, Diff: d})
		}
		return Input{Updates: map[repr.CollectionID][]repr.Update{1: batch}}
	}
	commit = func(in Input) {
		live = retime(Consolidate(append(live, in.Updates[1]...)))
	}
	return next, commit
}

// TestGlobalFoldOneEqualsWhole checks that a global Reduce on one worker
// folding its Steps as one part (globalFoldOne) gives the output and the
// logged state of the Reduce's own fold, over globalPlans' random feeds.
func TestGlobalFoldOneEqualsWhole(t *testing.T) {
	defer func(n int) { shardParallelMin, globalFoldOne = n, true }(shardParallelMin)
	shardParallelMin = 0
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^12))
	for iter := range 2 * len(globalPlans) {
		text := instantiate(globalPlans[iter%len(globalPlans)], rng)
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		r := &shardRun{plan: p, workers: []int{1, 1}}
		for _, fold := range []bool{false, true} {
			globalFoldOne = fold
			d, err := BuildWorkers(p, 1)
			if err != nil {
				t.Fatal(err)
			}
			r.ds, r.stores = append(r.ds, d), append(r.stores, newMemStore())
		}
		if _, ok := r.ds[1].ops[len(r.ds[1].ops)-1].(*globalReduce); !ok {
			t.Fatalf("plan\n%s\ndoes not fold in one part", text)
		}
		next, commit := globalFeed(rng, []int{10, 700}[iter%2], p.Nodes[len(p.Nodes)-1].Op.(dataflow.Reduce).AppendOnly)
		for step := uint64(1); step <= 20; step++ {
			in := next(r.ds[0], step)
			rollback := rng.IntN(6) == 0
			if err := r.step(step, in, rollback); err != nil {
				t.Fatalf("seed %d, plan:\n%s\nstep %d: %v", seed, text, step, err)
			}
			if !rollback && !r.failed {
				commit(in)
			}
		}
	}
}
