package exec

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// temporalSpillPlans are the temporal filters
// TestSpilledTemporalEqualsInMemory runs: a sliding window (lower and
// upper bounds), rows valid until a deadline, rows valid from a time on
// (forgotten once valid), and a filter under a Reduce. Sources have
// columns (k int4, ts timestamptz).
var temporalSpillPlans = []string{
	`%0 = Source coll=1 :: int4, timestamptz
%1 = TemporalFilter lower=[#1] upper=[(#1 + '00:00:30'::interval)] <- %0`,
	`%0 = Source coll=1 :: int4, timestamptz
%1 = TemporalFilter lower=[] upper=[(#1 + '00:01:00'::interval)] <- %0`,
	`%0 = Source coll=1 :: int4, timestamptz
%1 = TemporalFilter lower=[(#1 - '00:00:20'::interval)] upper=[] <- %0`,
	`%0 = Source coll=1 :: int4, timestamptz
%1 = TemporalFilter lower=[(#1 - '00:00:05'::interval)] upper=[(#1 + '00:00:40'::interval)] <- %0
%2 = Reduce key=[#0] aggs=[count(*)] <- %1`,
}

// TestSpilledTemporalEqualsInMemory checks, over random temporal filters
// and random update streams (rows around a wall clock that advances by
// random steps, inserts, deletes, rolled-back Steps), that a filter whose
// rows spill (at random checkpoints, with caches from nothing to a few
// rows, restarted at random within a random memory bound, with index
// buckets from 256 microseconds to 17 seconds) emits exactly what the same
// filter in memory emits, at the same Steps, logs exactly the same state,
// and reports the same next transition after every Step (spillRun.feed).
func TestSpilledTemporalEqualsInMemory(t *testing.T) {
	defer func(n int) { tdueDrop = n }(tdueDrop)
	runs := checkSpilled(t, temporalSpillPlans, func(text string, rng *rand.Rand) (*spillRun, error) {
		tdueDrop = 1 + rng.IntN(3)
		return runSpilledTemporal(text, rng)
	})
	n := 0
	for _, r := range runs {
		n += r.spilledOps["*exec.temporalOp"]
	}
	if n == 0 {
		t.Fatal("no temporal filter spilled")
	}
}

// temporalBase is the wall clock of the first Step of
// TestSpilledTemporalEqualsInMemory (2024-01-01, in Input.Now units).
const temporalBase = int64(8766) * 86400 * 1_000_000

// runSpilledTemporal runs 60 random Steps of plan text, each at a wall
// clock 0 to 12 seconds after the last (sometimes earlier: ignored).
func runSpilledTemporal(text string, rng *rand.Rand) (*spillRun, error) {
	r, err := newSpillRun(text, false)
	if err != nil {
		return nil, err
	}
	now := temporalBase
	r.draw = func(rng *rand.Rand, t uint64) Input {
		now += int64(rng.IntN(13)-1) * 1_000_000
		return Input{Updates: r.temporalBatch(rng, t, now), Now: now}
	}
	return r.run(rng, []int64{0, 600, 6000}[rng.IntN(3)])
}

// temporalBatch draws up to 10 updates: inserts of rows (k, ts) with ts
// from 40 seconds before now to a minute after (whole seconds, so rows
// and times collide, or milliseconds; NULL at times), or deletes of live
// ones.
func (r *spillRun) temporalBatch(rng *rand.Rand, t uint64, now int64) map[repr.CollectionID][]repr.Update {
	var out []repr.Update
	for range rng.IntN(11) {
		if live := r.live[1]; len(live) > 0 && rng.IntN(3) == 0 {
			out = append(out, repr.Update{Row: live[rng.IntN(len(live))].Row, Time: t, Diff: -1})
			continue
		}
		unit := []int64{1_000, 1_000_000}[rng.IntN(2)]
		ts := repr.NewTimestampTZ((now + int64(rng.IntN(100_001)-40_000)*1_000) / unit * unit)
		if rng.IntN(15) == 0 {
			ts = repr.Null
		}
		row := repr.Row{repr.NewInt(int64(rng.IntN(6))), ts}
		out = append(out, repr.Update{Row: row, Time: t, Diff: int64(1 + rng.IntN(2))})
	}
	return map[repr.CollectionID][]repr.Update{1: out}
}

// TestSpilledTemporalReadsOnlyWhatComesDue checks a spilled temporal
// filter with nothing resident: a Step before any row comes due reads no
// row, one at a row's lower bound reads that row alone, and deleting the
// earliest stored row (loaded by its own interval) moves NextTransition
// to the next one, as in memory.
func TestSpilledTemporalReadsOnlyWhatComesDue(t *testing.T) {
	p, err := dataflow.Parse(temporalSpillPlans[0])
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 1) // one filter's loads, whatever EDDY_WORKERS says
	if err != nil {
		t.Fatal(err)
	}
	store := newMemStore()
	sec := int64(1_000_000)
	row := func(i int64) repr.Row { return repr.Row{repr.NewInt(i), repr.NewTimestampTZ(temporalBase + i*sec)} }
	step := func(ts uint64, now int64, us ...repr.Update) string {
		t.Helper()
		var w opBatch
		out, err := d.StepInput(nil, ts, Input{Updates: map[repr.CollectionID][]repr.Update{1: us}, Now: now}, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		w.apply(store)
		d.Flushed()
		return formatUpdates(out)
	}
	var ins []repr.Update
	for i := int64(10); i <= 50; i += 10 {
		ins = append(ins, repr.Update{Row: row(i), Time: 1, Diff: 1})
	}
	step(1, temporalBase, ins...)
	if !d.SpillNode(1, store, 0) {
		t.Fatal("the temporal filter did not spill")
	}
	o := d.ops[1].(*temporalOp)
	loads := func() int64 { _, _, l, _ := o.spilledStats(); return l }
	if at, ok := d.NextTransition(); !ok || at != temporalBase+10*sec {
		t.Fatalf("next transition %d %t, want the first row's", at, ok)
	}
	if out := step(2, temporalBase+5*sec); out != "(no output)\n" || loads() != 0 {
		t.Fatalf("a Step before any row is due emitted %q and loaded %d rows", out, loads())
	}
	if out := step(3, temporalBase+10*sec); loads() != 1 || !strings.Contains(out, "(10,") {
		t.Fatalf("the Step at the first row's lower bound emitted %q and loaded %d rows", out, loads())
	}
	step(4, temporalBase+11*sec, repr.Update{Row: row(20), Time: 4, Diff: -1})
	if at, ok := d.NextTransition(); !ok || at != temporalBase+30*sec {
		t.Fatalf("next transition %d %t after deleting the row due at 20s, want 30s", at, ok)
	}
	if out := step(5, temporalBase+30*sec); loads() != 3 || !strings.Contains(out, "(30,") {
		t.Fatalf("the Step at 30s emitted %q and loaded %d rows in all", out, loads())
	}
}

// TestRowKeyedTemporalStateRestores checks that a temporal filter's state
// logged by row key alone (tag 2, as before rows were logged by time)
// restores as it was logged: the restored filter keeps that layout, never
// offers to spill, and goes on exactly as the filter that logged it.
func TestRowKeyedTemporalStateRestores(t *testing.T) {
	p, err := dataflow.Parse(temporalSpillPlans[0])
	if err != nil {
		t.Fatal(err)
	}
	old, err := BuildWorkers(p, 1) // white-box: one filter
	if err != nil {
		t.Fatal(err)
	}
	old.ops[1].(*temporalOp).timed = false // the layout before
	store := newMemStore()
	rng := rand.New(rand.NewPCG(1, 2))
	r := &spillRun{live: map[repr.CollectionID][]repr.Update{}}
	step := func(d *Dataflow, store *memStore, ts uint64) string {
		t.Helper()
		var w opBatch
		now := temporalBase + int64(ts)*5_000_000
		in := Input{Updates: r.temporalBatch(rng, ts, now), Now: now}
		out, err := d.StepInput(nil, ts, in, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		w.apply(store)
		return formatUpdates(out)
	}
	for ts := uint64(1); ts <= 10; ts++ {
		step(old, store, ts)
	}
	pfx := string(nodePrefix(nil, 1))
	for k := range store.m {
		if strings.HasPrefix(k, pfx) && k[len(pfx)] == tagTemporalDue {
			t.Fatal("the row-keyed filter logged a row by time")
		}
	}
	d, err := BuildWorkers(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.RestoreWithin(store, 0, 0); err != nil {
		t.Fatal(err)
	}
	o := d.ops[1].(*temporalOp)
	if o.timed || o.sp != nil || len(o.rows) != len(old.ops[1].(*temporalOp).rows) || len(o.rows) == 0 {
		t.Fatalf("restored filter: timed %t, spilled %t, %d rows (want row-keyed, in memory, %d)",
			o.timed, o.sp != nil, len(o.rows), len(old.ops[1].(*temporalOp).rows))
	}
	if len(d.SpillCandidates()) != 0 {
		t.Fatal("the row-keyed temporal filter is a spill candidate")
	}
	oldStore := newMemStore()
	maps.Copy(oldStore.m, store.m)
	for ts := uint64(11); ts <= 30; ts++ {
		rng = rand.New(rand.NewPCG(ts, 3))
		a := step(d, store, ts)
		rng = rand.New(rand.NewPCG(ts, 3))
		if b := step(old, oldStore, ts); a != b {
			t.Fatalf("step %d: restored filter emitted\n%s\nthe one that ran on\n%s", ts, a, b)
		}
	}
	if !maps.EqualFunc(store.m, oldStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatal("the restored filter's state differs from the one that ran on")
	}
}
