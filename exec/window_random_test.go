package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// windowPlans are windowed plans over event-time sources with columns
// (k int4, v int4, ts timestamp); ts carries the watermark. %e is
// replaced by " emit=close" or nothing; plans whose output is an
// EmitOnClose Reduce have the window as output column #0.
var windowPlans = []string{
	// TUMBLE(3s) with every retractable aggregate.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#3, #0, #1] <- %0
%2 = Reduce key=[#0, #1] aggs=[count(*), sum(#2), min(#2), max(#2), count(DISTINCT #2)]%e <- %1`,
	// HOP(2s slide, 5s size) as a Union of Maps.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[tumble_start(#2, '00:00:02'::interval), (#3 + '00:00:05'::interval)] project=[#3, #4, #1] <- %0
%2 = MFP map=[(tumble_start(#2, '00:00:02'::interval) - '00:00:02'::interval), (#3 + '00:00:05'::interval)] filter=[(#2 < #4)] project=[#3, #4, #1] <- %0
%3 = MFP map=[(tumble_start(#2, '00:00:02'::interval) - '00:00:04'::interval), (#3 + '00:00:05'::interval)] filter=[(#2 < #4)] project=[#3, #4, #1] <- %0
%4 = Union <- %1, %2, %3
%5 = Reduce key=[#0, #1] aggs=[count(*), max(#2)]%e <- %4`,
	// q5's shape: count per (window, k), then the largest count per window.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#3, #0] <- %0
%2 = Reduce key=[#0, #1] aggs=[count(*)] <- %1
%3 = Reduce key=[#0] aggs=[max(#2), count(*)]%e <- %2`,
	// q8's shape: a window join of two DISTINCT window projections.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = Source coll=2 watermark=#2 :: int4, int4, timestamp
%2 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#0, #3, #1] <- %0
%3 = MFP map=[tumble_start(#2, '00:00:03'::interval)] project=[#0, #3, #1] <- %1
%4 = Join kind=inner on=[#0=#0, #1=#1] residual=[(#2 <= (#5 + 1))] <- %2, %3
%5 = Reduce key=[#1, #0] aggs=[count(*), sum(#5)]%e <- %4`,
	// q5's HOP shape: the count per (window, k) after a fused fan-out
	// that absorbs a filter, then the largest count per window. k is
	// copied by every branch, so the fan-out's input is routed by k
	// (shard_preroute.go) and the count's shards refined to it.
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP filter=[(#2 IS NOT NULL)] project=[#0, #2, #1] <- %0
%2 = MFP map=[tumble_start(#1, '00:00:02'::interval)] project=[#3, #0, #2] <- %1
%3 = MFP map=[(tumble_start(#1, '00:00:02'::interval) - '00:00:02'::interval), (#3 + '00:00:04'::interval)] filter=[(#1 < #4)] project=[#3, #0, #2] <- %1
%4 = Union <- %2, %3
%5 = Reduce key=[#0, #1] aggs=[count(*), min(#2), sum(#2)]%e <- %4
%6 = Reduce key=[#0] aggs=[max(#2)] <- %5`,
}

// TestWindowedEqualsBatch checks, for random windowed plans and random
// update sequences whose watermarks only grow and which have no late
// data, that freeing state by the watermark never changes results: after
// every Step the accumulated output of an emit-on-update plan equals the
// output of a fresh dataflow fed the accumulated input at once (without
// watermarks, so it frees nothing), and that of an EMIT ON WINDOW CLOSE
// plan equals that batch result restricted to the closed windows. Steps
// are randomly rolled back, the dataflow is randomly replaced by one
// restored from its logged state, and once the watermark has passed every
// window all state must be gone, in memory and from the store.
func TestWindowedEqualsBatch(t *testing.T) { testWindowedEqualsBatch(t, false) }

// TestWindowedEqualsBatchDeferred is TestWindowedEqualsBatch with most
// Steps deferring what they may (Input.DeferState: what a plan's
// operators leave to FlushState; windowed Reduces and joins log at once),
// flushes at random points and before every restore (a checkpoint's); once
// every window has closed and been flushed the store must still hold no
// state of a node bounded by the watermarks.
func TestWindowedEqualsBatchDeferred(t *testing.T) { testWindowedEqualsBatch(t, true) }

func testWindowedEqualsBatch(t *testing.T, deferState bool) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^1))
	for iter := range 80 {
		tmpl := windowPlans[iter%len(windowPlans)]
		emit := iter/len(windowPlans)%2 == 1
		if err := runWindowed(tmpl, emit, deferState, rng); err != nil {
			t.Fatalf("seed %d, plan (emit on close %t):\n%s\n%v", seed, emit, tmpl, err)
		}
	}
}

// windowRun is one randomized windowed run.
type windowRun struct {
	plan, batchPlan *dataflow.Plan
	emitOnClose     bool
	d               *Dataflow
	store           *memStore
	// wm is each source's watermark (microseconds): rows drawn at or above
	// it are not late.
	wm     map[repr.CollectionID]int64
	base   int64
	inputs map[repr.CollectionID][]repr.Update
	output []repr.Update
	// deferState makes Steps defer (Input.DeferState) what they may
	// until flush.
	deferState bool
}

func runWindowed(tmpl string, emit, deferState bool, rng *rand.Rand) error {
	e := ""
	if emit {
		e = " emit=close"
	}
	p, err := dataflow.Parse(strings.ReplaceAll(tmpl, "%e", e))
	if err != nil {
		return err
	}
	bp, err := dataflow.Parse(strings.ReplaceAll(tmpl, "%e", ""))
	if err != nil {
		return err
	}
	d, err := Build(p)
	if err != nil {
		return err
	}
	baseRow, err := dataflow.ParseRow("('2024-01-01 00:00:00')", []repr.T{repr.Timestamp})
	if err != nil {
		return err
	}
	base := baseRow[0].Micros()
	r := &windowRun{plan: p, batchPlan: bp, emitOnClose: emit, d: d, store: newMemStore(),
		wm: map[repr.CollectionID]int64{}, base: base, inputs: map[repr.CollectionID][]repr.Update{}, deferState: deferState}
	for step := uint64(1); step <= 40; step++ {
		final := step == 40
		in := r.randomInput(rng, step, final)
		in.DeferState = deferState && rng.IntN(4) != 0
		if err := r.step(step, in, !final && rng.IntN(6) == 0); err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		if deferState && rng.IntN(5) == 0 {
			if err := r.flush(); err != nil {
				return err
			}
		}
		if rng.IntN(8) == 0 {
			if err := r.restore(); err != nil {
				return fmt.Errorf("restore after step %d: %w", step, err)
			}
		}
	}
	for _, rep := range r.d.Bounded() {
		if s := r.d.DebugState(rep.Node); rep.Bounded && s != "empty\n" {
			return fmt.Errorf("node %%%d (%s) keeps state after every window closed:\n%s", rep.Node, rep, s)
		}
	}
	if err := r.flush(); err != nil {
		return err
	}
	for _, rep := range r.d.Bounded() {
		if !rep.Bounded {
			continue
		}
		prefix := nodePrefix(nil, rep.Node)
		for k := range r.store.m {
			if strings.HasPrefix(k, string(prefix)) {
				return fmt.Errorf("node %%%d (%s) keeps state key %x in the store after every window closed", rep.Node, rep, k)
			}
		}
	}
	return nil
}

// flush writes the state the Steps deferred to the store (a checkpoint's
// FlushState).
func (r *windowRun) flush() error {
	var b opBatch
	if err := r.d.FlushState(&b); err != nil {
		return err
	}
	b.apply(r.store)
	return nil
}

// randomInput draws up to 8 updates per source with event times at or
// above its current watermark (inserts, and deletes of live rows that are
// not late), and advances each source's watermark independently by 0-3
// seconds (past every window in the final step), so that the sources of
// a join drift apart.
func (r *windowRun) randomInput(rng *rand.Rand, ts uint64, final bool) Input {
	in := Input{Updates: map[repr.CollectionID][]repr.Update{}, Watermarks: map[repr.CollectionID]int64{}}
	const sec = int64(time.Second / time.Microsecond)
	for _, c := range r.d.Sources() {
		wm, ok := r.wm[c]
		if !ok {
			wm = r.base
		}
		for range rng.IntN(9) {
			var live []repr.Update
			for _, u := range r.inputs[c] {
				if v, _ := wmValue(u.Row[2]); v >= wm && u.Diff > 0 {
					live = append(live, u)
				}
			}
			if len(live) > 0 && rng.IntN(3) == 0 {
				in.Updates[c] = append(in.Updates[c], repr.Update{Row: live[rng.IntN(len(live))].Row, Time: ts, Diff: -1})
				continue
			}
			et := wm + rng.Int64N(7*sec)
			row := repr.Row{repr.NewInt(int64(rng.IntN(3))), repr.NewInt(int64(rng.IntN(5))), repr.NewTimestamp(et)}
			in.Updates[c] = append(in.Updates[c], repr.Update{Row: row, Time: ts, Diff: 1})
		}
		in.Watermarks[c] = wm + rng.Int64N(4)*sec
		if final {
			in.Watermarks[c] = wm + 1000*sec
		}
	}
	return in
}

// step runs one Step and either rolls it back or commits it and checks
// the accumulated output.
func (r *windowRun) step(ts uint64, in Input, rollback bool) error {
	r.dropNegative(in)
	var b opBatch
	out, err := r.d.StepInput(&expr.Ctx{}, ts, in, &b)
	if err != nil {
		return err
	}
	if rollback {
		r.d.Rollback()
		return nil
	}
	r.d.Commit()
	b.apply(r.store)
	r.committed(in)
	if late := r.d.Late(); sum(late) != 0 {
		return fmt.Errorf("no late data was sent, but Late() = %v", late)
	}
	r.output = retime(Consolidate(append(r.output, out...)))
	return r.check()
}

// dropNegative drops from in a source's updates that would make a row's
// multiplicity negative (a delete drawn twice for the same live row).
func (r *windowRun) dropNegative(in Input) {
	for c, us := range in.Updates {
		if !nonNegative(append(slices.Clone(r.inputs[c]), us...)) {
			delete(in.Updates, c)
		}
	}
}

// committed adds a committed Step's input to r's inputs and watermarks.
func (r *windowRun) committed(in Input) {
	for c, us := range in.Updates {
		r.inputs[c] = retime(Consolidate(append(r.inputs[c], us...)))
	}
	for c, w := range in.Watermarks {
		r.wm[c] = max(r.wm[c], w)
	}
}

func sum(m map[repr.CollectionID]int64) int64 {
	var s int64
	for _, v := range m {
		s += v
	}
	return s
}

// nonNegative reports whether every row's accumulated multiplicity is >= 0.
func nonNegative(us []repr.Update) bool {
	for _, u := range retime(Consolidate(us)) {
		if u.Diff < 0 {
			return false
		}
	}
	return true
}

// check compares the accumulated output with the batch result (for EMIT
// ON WINDOW CLOSE, its rows whose window, column #0, is closed).
func (r *windowRun) check() error {
	fresh, err := Build(r.batchPlan)
	if err != nil {
		return err
	}
	want, err := fresh.Step(&expr.Ctx{}, 0, r.inputs, nil)
	if err != nil {
		return err
	}
	want = retime(want)
	if r.emitOnClose {
		wm := r.d.OutputWatermarks()[0]
		want = slices.DeleteFunc(want, func(u repr.Update) bool { return !below(u.Row[0], wm) })
	}
	if got, want := formatUpdates(r.output), formatUpdates(want); got != want {
		return fmt.Errorf("incremental output:\n%sbatch output:\n%s", got, want)
	}
	return nil
}

// restore replaces the dataflow by one restored from the committed state.
func (r *windowRun) restore() error {
	if r.deferState {
		if err := r.flush(); err != nil {
			return err
		}
	}
	d, err := Build(r.plan)
	if err != nil {
		return err
	}
	if err := d.Restore(r.store); err != nil {
		return err
	}
	for i := range r.plan.Nodes {
		if got, want := d.DebugState(i), r.d.DebugState(i); got != want {
			return fmt.Errorf("node %%%d restored:\n%slive:\n%s", i, got, want)
		}
	}
	r.d = d
	return nil
}
