package exec

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

var seedFlag = flag.Uint64("seed", 0, "seed of TestIncrementalEqualsBatch (0: time-based)")

// randomPlans is the family of plans the randomized test draws from. Both
// sources have columns (k int4, v int4, s text); %a/%b are replaced by
// random parameters.
var randomPlans = []string{
	// MFP + Reduce with every retractable aggregate.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[(#1 * 2)] filter=[(#1 > %a)] project=[#0, #3, #2] <- %0
%2 = Reduce key=[#0] aggs=[count(*), count(#1), sum(#1), avg(#1), min(#1), max(#2), count(DISTINCT #1), string_agg(#2, #2)] <- %1`,
	// The registry's other aggregates: moments over integers, numerics
	// and floats, bools, bits, ordered string_agg, ordered-set aggregates.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[(#1 > %a), CAST(#1 AS numeric) / 4, CAST(#1 AS double precision) / 8] project=[#0, #1, #2, #3, #4, #5] <- %0
%2 = Reduce key=[#0] aggs=[var_samp(#1), stddev_pop(#1), var_pop(#4), stddev_samp(#4), var_samp(#5), bool_and(#3), bool_or(#3), bit_and(#1), bit_or(#1), string_agg(#2, #2 ORDER BY #1%d, #2), mode() WITHIN GROUP (ORDER BY #1%d), percentile_cont(0.5) WITHIN GROUP (ORDER BY #1%d), percentile_disc(0.3) WITHIN GROUP (ORDER BY #2%d), min(#4), sum(DISTINCT #4)] <- %1`,
	// Global aggregate.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[] aggs=[count(*), sum(#1), min(#2), max(#1), bool_or((#1 > 0))] <- %0`,
	// Join + Reduce.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] residual=[(#1 <= (#4 + %a))] <- %0, %1
%3 = Reduce key=[#2] aggs=[count(*), sum(#4), max(#1)] <- %2`,
	// Outer joins.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=%j on=[#0=#0] residual=[(#1 <> #4)] <- %0, %1`,
	// TopK.
	`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#0] order=[#1%d, #2] limit=%l offset=%o <- %0`,
	// EXCEPT ALL and UNION ALL.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = MFP project=[#0, #2] <- %0
%3 = MFP project=[#0, #2] <- %1
%4 = Negate <- %3
%5 = Union <- %2, %4, %2
%6 = Threshold <- %5
%7 = Union <- %6, %3`,
	// DISTINCT then TopK over a left join.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=left on=[#0=#0] <- %0, %1
%3 = Reduce key=[#0, #5] aggs=[] <- %2
%4 = TopK key=[] order=[#1 DESC NULLS LAST, #0] limit=%l <- %3`,
	// Set-returning functions: lockstep with ordinality, then an outer
	// FlatMap with ON, aggregated.
	`%0 = Source coll=1 :: int4, int4, text
%1 = FlatMap funcs=[generate_series(#0, #1), regexp_split_to_table(#2, '')] ordinality=true <- %0
%2 = FlatMap funcs=[generate_series(1, #0)] outer=true on=[(#6 <> %a)] <- %1
%3 = Reduce key=[#2] aggs=[count(*), sum(#3), max(#6), count(#5)] <- %2`,
	// The packed accumulators: counts, integer, numeric (of varying
	// scales) and float sums and averages, grouped by a two-column key.
	`%0 = Source coll=1 :: int4, int4, text
%1 = MFP map=[round(CAST(#1 AS numeric) / 3, (#1 % 3)), CAST(#1 AS double precision) / 8, (#1 > %a)] project=[#0, #1, #3, #4, #5, #2] <- %0
%2 = Reduce key=[#5, #0] aggs=[count(*), sum(#2), avg(#2), sum(#3), avg(#3), count(#2), sum(#1), avg(#1), bool_and(#4), max(#2)] <- %1`,
}

// instantiate fills in a plan template's parameters: %a a small
// constant, %j a join kind, %d a sort direction, %l a limit, %o an
// offset, %e emission on window close or not, %n a positive constant, %k
// an offset (possibly negative), %f and %g frames and %F a frame that may
// have RANGE offsets (randomFrame).
func instantiate(tmpl string, rng *rand.Rand) string {
	r := strings.NewReplacer(
		"%a", fmt.Sprint(rng.IntN(7)-3),
		"%j", []string{"left", "right", "full", "inner"}[rng.IntN(4)],
		"%d", []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST"}[rng.IntN(4)],
		"%l", fmt.Sprint(rng.IntN(4)),
		"%o", fmt.Sprint(rng.IntN(3)),
		"%e", []string{"", " emit=close"}[rng.IntN(2)],
		"%n", fmt.Sprint(1+rng.IntN(3)),
		"%k", fmt.Sprint(rng.IntN(5)-1),
	)
	text := r.Replace(tmpl)
	for strings.Contains(text, "%f") || strings.Contains(text, "%g") || strings.Contains(text, "%F") {
		text = strings.Replace(text, "%f", randomFrame(rng, false), 1)
		text = strings.Replace(text, "%g", randomFrame(rng, false), 1)
		text = strings.Replace(text, "%F", randomFrame(rng, true), 1)
	}
	return text
}

// bool_or over an expression is not a plan form; the global template uses
// a column instead.
func init() {
	randomPlans[2] = strings.Replace(randomPlans[2], "bool_or((#1 > 0))", "string_agg(#2, #2)", 1)
}

// randomRow draws a row (k, v, s) from small domains so that rows collide.
func randomRow(rng *rand.Rand) repr.Row {
	r := repr.Row{repr.NewInt(int64(rng.IntN(4))), repr.NewInt(int64(rng.IntN(9) - 4)), repr.NewText(string(rune('a' + rng.IntN(3))))}
	for i := range r {
		if rng.IntN(10) == 0 {
			r[i] = repr.Null
		}
	}
	return r
}

// TestIncrementalEqualsBatch checks, for random plans and random update
// sequences (inserts, and deletes of live rows) in random batch sizes,
// that after every Step the accumulated output equals the output of a
// fresh dataflow fed the accumulated input at once; that a dataflow
// restored from the logged state produces the same outputs as the live
// one; and that rolled-back Steps leave no trace.
func TestIncrementalEqualsBatch(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for iter := range 60 {
		text := instantiate(randomPlans[iter%len(randomPlans)], rng)
		if err := runRandom(text, rng); err != nil {
			t.Fatalf("seed %d, plan:\n%s\n%v", seed, text, err)
		}
	}
}

// TestIncrementalEqualsBatchDeferred is TestIncrementalEqualsBatch with
// every Step deferring what it may (Input.DeferState): the logged state
// reaches the store only through FlushState, at every third Step and
// before a restore (a checkpoint's), so a restored dataflow proves that
// the flushes wrote every deferred change, rolled-back Steps included.
func TestIncrementalEqualsBatchDeferred(t *testing.T) {
	randomDeferState = true
	defer func() { randomDeferState = false }()
	TestIncrementalEqualsBatch(t)
}

// randomDeferState makes randomized runs step with Input.DeferState.
var randomDeferState bool

// randomRun is the state of one randomized run.
type randomRun struct {
	plan     *dataflow.Plan
	live     *Dataflow
	restored *Dataflow
	store    *memStore
	inputs   map[repr.CollectionID][]repr.Update // accumulated, consolidated
	output   []repr.Update                       // accumulated, consolidated
}

// scriptStep is one step of a randomized run: its input batch, whether it
// is rolled back, and whether a restored dataflow is started before it.
type scriptStep struct {
	batch    map[repr.CollectionID][]repr.Update
	rollback bool
	restore  bool
}

// runRandom draws a random script for the plan and runs it; on failure it
// shrinks the script (dropping steps while it still fails) and reports the
// smallest failing one.
func runRandom(text string, rng *rand.Rand) error {
	p, err := dataflow.Parse(text)
	if err != nil {
		return err
	}
	var script []scriptStep
	err = runScript(p, func(r *randomRun, step uint64) (scriptStep, bool) {
		if step > 30 {
			return scriptStep{}, false
		}
		st := scriptStep{restore: r.restored == nil && rng.IntN(8) == 0}
		st.batch, st.rollback = r.randomBatch(rng, step), rng.IntN(6) == 0
		script = append(script, st)
		return st, true
	})
	if err == nil {
		return nil
	}
	for i := 0; i < len(script); {
		shorter := slices.Delete(slices.Clone(script), i, i+1)
		if e := runScript(p, replay(shorter)); e != nil {
			script, err = shorter, e
			continue
		}
		i++
	}
	return fmt.Errorf("%w\nshrunk script:\n%s", err, formatScript(script))
}

// replay returns a step source that plays back script.
func replay(script []scriptStep) func(*randomRun, uint64) (scriptStep, bool) {
	return func(_ *randomRun, step uint64) (scriptStep, bool) {
		if int(step) > len(script) {
			return scriptStep{}, false
		}
		return script[step-1], true
	}
}

// runScript runs the steps next returns on a fresh dataflow for p.
func runScript(p *dataflow.Plan, next func(*randomRun, uint64) (scriptStep, bool)) error {
	d, err := Build(p)
	if err != nil {
		return err
	}
	r := &randomRun{plan: p, live: d, store: newMemStore(), inputs: map[repr.CollectionID][]repr.Update{}}
	for step := uint64(1); ; step++ {
		st, ok := next(r, step)
		if !ok {
			return nil
		}
		if st.restore && r.restored == nil {
			if err := r.restore(); err != nil {
				return err
			}
		}
		if err := r.step(step, retimeBatch(st.batch, step), st.rollback); err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
	}
}

// retimeBatch gives every update of batch time t.
func retimeBatch(batch map[repr.CollectionID][]repr.Update, t uint64) map[repr.CollectionID][]repr.Update {
	out := map[repr.CollectionID][]repr.Update{}
	for c, us := range batch {
		for _, u := range us {
			out[c] = append(out[c], repr.Update{Row: u.Row, Time: t, Diff: u.Diff})
		}
	}
	return out
}

// formatScript prints a script one step per line.
func formatScript(script []scriptStep) string {
	var b strings.Builder
	for i, st := range script {
		fmt.Fprintf(&b, "step %d rollback=%t restore=%t:", i+1, st.rollback, st.restore)
		for _, c := range slices.Sorted(maps.Keys(st.batch)) {
			for _, u := range st.batch[c] {
				fmt.Fprintf(&b, " src=%d %+d %s", c, u.Diff, dataflow.FormatRow(u.Row))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// randomBatch draws up to 10 updates over the plan's sources: inserts of
// random rows, or deletes of live ones.
func (r *randomRun) randomBatch(rng *rand.Rand, ts uint64) map[repr.CollectionID][]repr.Update {
	batch := map[repr.CollectionID][]repr.Update{}
	avail := map[repr.CollectionID][]repr.Update{}
	srcs := r.live.Sources()
	for range rng.IntN(11) {
		c := srcs[rng.IntN(len(srcs))]
		if _, ok := avail[c]; !ok {
			avail[c] = slices.Clone(r.inputs[c])
		}
		if live := avail[c]; len(live) > 0 && rng.IntN(3) == 0 {
			// Delete a live row, keeping multiplicities non-negative.
			if u := &live[rng.IntN(len(live))]; u.Diff > 0 {
				u.Diff--
				batch[c] = append(batch[c], repr.Update{Row: u.Row, Time: ts, Diff: -1})
			}
			continue
		}
		row, d := randomRow(rng), int64(1+rng.IntN(2))
		if rng.IntN(5) == 0 {
			// A deletion may precede the insertion it cancels within a batch.
			batch[c] = append(batch[c], repr.Update{Row: row, Time: ts, Diff: -1})
			d++
		}
		batch[c] = append(batch[c], repr.Update{Row: row, Time: ts, Diff: d})
	}
	return batch
}

// step feeds batch to the live (and restored) dataflow, then either rolls
// back or commits and checks the accumulated output against a fresh
// dataflow fed the accumulated input.
func (r *randomRun) step(ts uint64, batch map[repr.CollectionID][]repr.Update, rollback bool) error {
	var b opBatch
	out, err := r.live.StepInput(&expr.Ctx{}, ts, Input{Updates: batch, DeferState: randomDeferState}, &b)
	if err != nil {
		return err
	}
	if r.restored != nil {
		out2, err := r.restored.Step(&expr.Ctx{}, ts, batch, nil)
		if err != nil {
			return err
		}
		if got, want := formatUpdates(out2), formatUpdates(out); got != want {
			return fmt.Errorf("restored dataflow output:\n%swant:\n%s", got, want)
		}
	}
	if rollback {
		r.live.Rollback()
		if r.restored != nil {
			r.restored.Rollback()
		}
		return nil
	}
	r.live.Commit()
	if r.restored != nil {
		r.restored.Commit()
	}
	b.apply(r.store)
	if randomDeferState && ts%3 == 0 {
		if err := r.flush(); err != nil {
			return err
		}
	}
	for c, us := range batch {
		r.inputs[c] = retime(Consolidate(append(r.inputs[c], us...)))
	}
	r.output = retime(Consolidate(append(r.output, out...)))
	return r.checkBatch(ts)
}

// retime gives every update time 0, so accumulations consolidate across times.
func retime(us []repr.Update) []repr.Update {
	for i := range us {
		us[i].Time = 0
	}
	return Consolidate(us)
}

// checkBatch compares the accumulated output with a from-scratch run.
func (r *randomRun) checkBatch(ts uint64) error {
	fresh, err := Build(r.plan)
	if err != nil {
		return err
	}
	in := map[repr.CollectionID][]repr.Update{}
	for c, us := range r.inputs {
		in[c] = us
	}
	want, err := fresh.Step(&expr.Ctx{}, 0, in, nil)
	if err != nil {
		return err
	}
	if got, want := formatUpdates(r.output), formatUpdates(retime(want)); got != want {
		return fmt.Errorf("incremental output:\n%sbatch output:\n%s", got, want)
	}
	return nil
}

// flush writes the live dataflow's deferred state to the store.
func (r *randomRun) flush() error {
	var b opBatch
	if err := r.live.FlushState(&b); err != nil {
		return err
	}
	b.apply(r.store)
	return nil
}

// restore builds a second dataflow from the committed state (flushed
// first, as a checkpoint is).
func (r *randomRun) restore() error {
	if err := r.flush(); err != nil {
		return err
	}
	d, err := Build(r.plan)
	if err != nil {
		return err
	}
	r.restored = d
	return d.Restore(r.store)
}

// TestJoinHashCollisions runs the random join plans with rowHash (lo) cut to
// one bit, so that most distinct rows of a side share a hash and are told
// apart along their chain (found, removed from its middle, restored,
// rolled back).
func TestJoinHashCollisions(t *testing.T) {
	defer func(m uint32) { joinHashMask = m }(joinHashMask)
	joinHashMask = 1
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	joins := []string{randomPlans[3], randomPlans[4], randomPlans[7]}
	for iter := range 30 {
		text := instantiate(joins[iter%len(joins)], rng)
		if err := runRandom(text, rng); err != nil {
			t.Fatalf("seed %d, plan:\n%s\n%v", seed, text, err)
		}
	}
}

// TestReduceMultisetMaps runs the random Reduce plans with multisets
// leaving their sorted slice at the second entry, so that the map, its
// cached extrema and its B-tree serve every multiset of more than one
// entry (migrated mid-Step, rolled back, restored).
func TestReduceMultisetMaps(t *testing.T) {
	defer func(n int) { smallSet = n }(smallSet)
	smallSet = 1
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	reduces := []string{randomPlans[0], randomPlans[1], randomPlans[2], randomPlans[3], randomPlans[8], randomPlans[9]}
	for iter := range 30 {
		text := instantiate(reduces[iter%len(reduces)], rng)
		if err := runRandom(text, rng); err != nil {
			t.Fatalf("seed %d, plan:\n%s\n%v", seed, text, err)
		}
	}
}
