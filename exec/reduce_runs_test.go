package exec

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestReduceRunsRestore drives min and max (entries in runs) with Steps
// that defer and Steps that do not (which convert runs to entries of
// their own), rollbacks, flushes at random points and rewrites forced
// often (runCompactMin and runCompactRuns 2); at random points the dataflow is replaced by
// one restored from the store, which must hold the same state as the live
// one and as one fed the live rows from scratch, and goes on from there
// (so a restored multiset's run numbers must not reuse a stored one's).
func TestReduceRunsRestore(t *testing.T) {
	defer func(n, r int) { runCompactMin, runCompactRuns = n, r }(runCompactMin, runCompactRuns)
	runCompactMin, runCompactRuns = 2, 2
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int4, text, text
%1 = Reduce key=[#0] aggs=[min(#1), max(#1), count(*), string_agg(#2, #3 ORDER BY #1), count(DISTINCT #1), sum(#1)] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		rng := rand.New(rand.NewPCG(seed, uint64(workers)))
		if _, err := runRunsScript(p, workers, rng, 60); err != nil {
			t.Fatalf("seed %d, %d workers: %v", seed, workers, err)
		}
	}
}

// TestReduceLazyRestore is TestReduceRunsRestore for lazy min/max values
// (multiset_lazy.go): every multiset past two entries in the hash table,
// so that values between the extrema go to lz, over bigint values; the
// output is checked against the from-scratch dataflow's as well as the
// state, and some restore must have read a diff run.
func TestReduceLazyRestore(t *testing.T) {
	defer func(n, r, s, l int) {
		runCompactMin, runCompactRuns, smallSet, lazyCompactMin = n, r, s, l
	}(runCompactMin, runCompactRuns, smallSet, lazyCompactMin)
	runCompactMin, runCompactRuns, smallSet, lazyCompactMin = 2, 4, 2, 2
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int8, text, text
%1 = Reduce key=[#0] aggs=[min(#1), max(#1), count(*), sum(#1)] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	diffs := 0
	for _, workers := range []int{1, 2} {
		for i := range 4 {
			rng := rand.New(rand.NewPCG(seed, uint64(workers*10+i)))
			n, err := runRunsScript(p, workers, rng, 200)
			if err != nil {
				t.Fatalf("seed %d, %d workers, script %d: %v", seed, workers, i, err)
			}
			diffs += n
		}
	}
	if diffs == 0 {
		t.Fatal("no restore read a diff run: the test tested nothing")
	}
}

// runsState strips the cached output rows from a Reduce's debug state
// (a restored Reduce has none until a Step touches the group).
var runsState = regexp.MustCompile(` out=\([^)]*\)`)

// runRunsScript runs one random script of TestReduceRunsRestore, its
// values below vals, and returns the number of restores that read a diff
// run (multiset_lazy.go).
func runRunsScript(p *dataflow.Plan, workers int, rng *rand.Rand, vals int) (int, error) {
	live, err := BuildWorkers(p, workers)
	if err != nil {
		return 0, err
	}
	store := newMemStore()
	var rows []repr.Row // the live input, one entry per copy
	outs := map[string]int64{}
	restores, runs, diffs := 0, 0, 0
	for ts := uint64(1); ts <= 400; ts++ {
		var batch []repr.Update
		next := rows
		for range 1 + rng.IntN(12) {
			if len(next) > 0 && rng.IntN(5) < 2 {
				i := rng.IntN(len(next))
				batch = append(batch, repr.Update{Row: next[i], Time: ts, Diff: -1})
				next = append(next[:i:i], next[i+1:]...)
				continue
			}
			r := repr.Row{repr.NewInt(int64(rng.IntN(3))), repr.NewInt(int64(rng.IntN(vals))), repr.NewText(fmt.Sprint(rng.IntN(5))), repr.NewText(",")}
			batch = append(batch, repr.Update{Row: r, Time: ts, Diff: 1})
			next = append(next, r)
		}
		var b opBatch
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: batch}, DeferState: rng.IntN(4) != 0}
		out, err := live.StepInput(&expr.Ctx{}, ts, in, &b)
		if err != nil {
			return 0, fmt.Errorf("step %d: %w", ts, err)
		}
		if rng.IntN(6) == 0 {
			live.Rollback()
			continue
		}
		live.Commit()
		addOuts(outs, out)
		b.apply(store)
		rows = next
		if rng.IntN(4) == 0 || rng.IntN(12) == 0 {
			var fb opBatch
			if err := live.FlushState(&fb); err != nil {
				return 0, err
			}
			fb.apply(store)
		}
		if rng.IntN(12) != 0 {
			continue
		}
		var fb opBatch
		if err := live.FlushState(&fb); err != nil {
			return 0, err
		}
		fb.apply(store)
		restored, err := BuildWorkers(p, workers)
		if err != nil {
			return 0, err
		}
		if err := restored.Restore(store); err != nil {
			return 0, fmt.Errorf("step %d: restore: %w", ts, err)
		}
		fresh, err := BuildWorkers(p, workers)
		if err != nil {
			return 0, err
		}
		all := make([]repr.Update, len(rows))
		for i, r := range rows {
			all[i] = repr.Update{Row: r, Time: ts, Diff: 1}
		}
		fout, err := fresh.Step(&expr.Ctx{}, ts, map[repr.CollectionID][]repr.Update{1: all}, nil)
		if err != nil {
			return 0, err
		}
		fresh.Commit()
		if got, want := fmt.Sprint(outs), fmt.Sprint(addOuts(map[string]int64{}, fout)); got != want {
			return 0, fmt.Errorf("step %d: output %s, from scratch %s", ts, got, want)
		}
		want := runsState.ReplaceAllString(live.DebugState(1), "")
		if got := runsState.ReplaceAllString(restored.DebugState(1), ""); got != want {
			return 0, fmt.Errorf("step %d: restored state:\n%swant (live):\n%s", ts, got, want)
		}
		if got := runsState.ReplaceAllString(fresh.DebugState(1), ""); got != want {
			return 0, fmt.Errorf("step %d: from-scratch state:\n%swant (live):\n%s", ts, got, want)
		}
		live = restored
		restores++
		if storedRuns(store) > 0 {
			runs++
		}
		if storedDiffRuns(store) > 0 {
			diffs++
		}
	}
	if restores == 0 || runs == 0 {
		return 0, fmt.Errorf("%d restores, %d of them from runs: the script tested nothing", restores, runs)
	}
	return diffs, nil
}

// addOuts adds the output updates us to the consolidated rows m (a row's
// text -> its count) and returns m.
func addOuts(m map[string]int64, us []repr.Update) map[string]int64 {
	for _, u := range us {
		k := fmt.Sprint(u.Row)
		if m[k] += u.Diff; m[k] == 0 {
			delete(m, k)
		}
	}
	return m
}

// storedDiffRuns counts the diff runs (multiset_lazy.go) in store.
func storedDiffRuns(store *memStore) int {
	n := 0
	for _, v := range store.m {
		if r, err := repr.DecodeRow(v); err == nil && len(r) == 4 && r[2].Family() == repr.FamBytea && r[1].Int() == diffRunTag {
			n++
		}
	}
	return n
}

// storedRuns counts the runs in store.
func storedRuns(store *memStore) int {
	n := 0
	for _, v := range store.m {
		if r, err := repr.DecodeRow(v); err == nil && len(r) == 4 && r[2].Family() == repr.FamBytea {
			n++
		}
	}
	return n
}

// TestReduceLazyRepeats checks that lazy values repeated over many rows
// (max over a column of few values) are merged at FlushState rather than
// kept one per row, and that max still answers the largest.
func TestReduceLazyRepeats(t *testing.T) {
	d := mustBuild(t, `%0 = Source coll=1 :: int4, int8
%1 = Reduce key=[#0] aggs=[max(#1)] <- %0`)
	d.allowDeferral()
	var o *reduceOp
	for _, op := range d.ops {
		if r, ok := op.(*reduceOp); ok {
			o = r
		}
	}
	if o == nil {
		t.Fatal("no Reduce")
	}
	var out []repr.Update
	row := func(v int64) repr.Update { return repr.Update{Row: repr.Row{repr.NewInt(1), repr.NewInt(v)}, Diff: 1} }
	var batch []repr.Update
	for v := range int64(smallSet + 2) { // past the small slice, extrema 0 and 1000
		batch = append(batch, row(v*100))
	}
	for ts := uint64(1); ts <= 200; ts++ {
		for i := range 50 {
			batch = append(batch, row(int64(1+i%7)))
		}
		var b opBatch
		us, err := d.StepInput(&expr.Ctx{}, ts, Input{Updates: map[repr.CollectionID][]repr.Update{1: batch}, DeferState: true}, &b)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		out = append(out, us...)
		batch = batch[:0]
		if ts%10 == 0 {
			if err := d.FlushState(&opBatch{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ms := o.sets(o.groups[string(repr.AppendKey(nil, repr.NewInt(1)))])[0]
	if len(ms.lz) == 0 || len(ms.lz) > 2*7+lazyCompactMin+10*50 {
		t.Fatalf("lz holds %d values after 10,000 rows of 7 values", len(ms.lz))
	}
	got := addOuts(map[string]int64{}, out)
	if want := fmt.Sprint(map[string]int64{fmt.Sprint(repr.Row{repr.NewInt(1), repr.NewInt(int64(smallSet+1) * 100)}): 1}); fmt.Sprint(got) != want {
		t.Fatalf("output %v, want %s", got, want)
	}
}

// TestReduceConvertRunsLogsOnce checks that a Step that does not defer,
// changing a multiset whose entries are in runs, logs each key once: the
// conversion writes every live entry under its own key, the changed one
// among them, which was then written a second time.
func TestReduceConvertRunsLogsOnce(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, text
%1 = Reduce key=[#0] aggs=[max(#1), min(#1)] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	df, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	row := func(v string) repr.Update {
		return repr.Update{Row: repr.Row{repr.NewInt(1), repr.NewText(v)}, Diff: 1}
	}
	step := func(ts uint64, deferState bool, us ...repr.Update) *opBatch {
		for i := range us {
			us[i].Time = ts
		}
		var b opBatch
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: us}, DeferState: deferState}
		if _, err := df.StepInput(&expr.Ctx{}, ts, in, &b); err != nil {
			t.Fatal(err)
		}
		df.Commit()
		return &b
	}
	step(1, true, row("a"), row("b"))
	var fb opBatch
	if err := df.FlushState(&fb); err != nil {
		t.Fatal(err)
	}
	if n := storedRunsIn(&fb); n != 2 {
		t.Fatalf("the flush wrote %d runs, want 2 (max's and min's)", n)
	}
	b := step(2, false, row("c"))
	seen := map[string]int{}
	for _, op := range b.ops {
		if !op.del {
			seen[string(op.key)]++
		}
	}
	if len(seen) == 0 {
		t.Fatal("the Step logged nothing")
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("key %x written %d times in one Step", k, n)
		}
	}
}

// storedRunsIn counts the runs b writes.
func storedRunsIn(b *opBatch) int {
	store := newMemStore()
	b.apply(store)
	return storedRuns(store)
}
