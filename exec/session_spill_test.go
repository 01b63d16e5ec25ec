package exec

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// sessionSpillPlans are the session windows
// TestSpilledSessionEqualsInMemory runs: per (k, v) and per k, with gaps
// shorter and longer than the rows' spacing, and sessions counted per
// group and window (the windowed Reduce closing them). Sources have
// columns (k int4, v int4, ts timestamp); ts carries the watermark.
var sessionSpillPlans = []string{
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[#0, #1] time=#2 gap=1s <- %0`,
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[#0] time=#2 gap=2s <- %0`,
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[#0, #1] time=#2 gap=1s <- %0
%2 = Reduce key=[#0, #3, #4] aggs=[count(*), sum(#1)] <- %1`,
}

// TestSpilledSessionEqualsInMemory is TestSpilledWindowEqualsInMemory
// for SessionWindows: spilled by group (at random checkpoints, with
// caches from nothing to a few groups, restarted at random within a
// random memory bound, which rebuilds the close index from the store), a
// SessionWindow emits exactly what the same operator in memory emits,
// closes the same sessions at the same Steps and logs the same state.
func TestSpilledSessionEqualsInMemory(t *testing.T) {
	runs := checkSpilledEqualsInMemory(t, sessionSpillPlans, false)
	n := 0
	for _, r := range runs {
		n += r.spilledOps["*exec.sessionOp"]
	}
	if n == 0 {
		t.Fatal("no SessionWindow spilled")
	}
}

// sessionKeylessPlans are session windows without Key columns (one
// group, spilled by session): gaps shorter and longer than the rows'
// spacing, and sessions counted per window by a closing Reduce.
var sessionKeylessPlans = []string{
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[] time=#2 gap=1s <- %0`,
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[] time=#2 gap=300ms <- %0`,
	`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = SessionWindow key=[] time=#2 gap=2s <- %0
%2 = Reduce key=[#3, #4] aggs=[count(*), sum(#1)] <- %1`,
}

// TestSpilledKeylessSessionEqualsInMemory is
// TestSpilledSessionEqualsInMemory for SessionWindows without Key
// columns, which spill by session (session_kspill.go): the same outputs,
// closes and logged state as in memory, through spills, evictions down
// to no cache, rolled-back Steps and restarts within a random bound, and
// some sessions were loaded and evicted.
func TestSpilledKeylessSessionEqualsInMemory(t *testing.T) {
	runs := checkSpilledEqualsInMemory(t, sessionKeylessPlans, false)
	var spilled, loads, evictions int64
	for _, r := range runs {
		spilled += int64(r.spilledOps["*exec.sessionOp"])
		for _, op := range r.sp.ops {
			if s, ok := op.(*sessionOp); ok && s.ks != nil {
				loads, evictions = loads+s.ks.rs.loads, evictions+s.ks.rs.evictions
			}
		}
	}
	t.Logf("%d spills, %d sessions loaded, %d evicted", spilled, loads, evictions)
	if spilled == 0 || loads == 0 || evictions == 0 {
		t.Fatal("no keyless SessionWindow spilled, loaded and evicted sessions")
	}
}

// TestKeylessSessionLoadsOnlyNearChanges checks that a spilled
// SessionWindow without Key columns over 20,000 rows in 5,000 sessions
// and no cache loads per single-row insert or delete only the sessions
// within gap of it (at most 2 here) and evicts them after the
// checkpoint, keeping only its index of sessions.
func TestKeylessSessionLoadsOnlyNearChanges(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int4, timestamp
%1 = SessionWindow key=[] time=#2 gap=1s <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	store := newMemStore()
	// Four rows 100 ms apart every 3 s: sessions of 4 rows, 2.7 s apart.
	row := func(i int) repr.Row {
		return repr.Row{repr.NewInt(int64(i)), repr.NewInt(0), repr.NewTimestamp(int64(i/4)*3_000_000 + int64(i%4)*100_000)}
	}
	var ins []repr.Update
	for i := range 20_000 {
		ins = append(ins, repr.Update{Row: row(i), Time: 1, Diff: 1})
	}
	var w opBatch
	if _, err := d.StepInput(nil, 1, Input{Updates: map[repr.CollectionID][]repr.Update{1: ins}}, &w); err != nil {
		t.Fatal(err)
	}
	d.Commit()
	w.apply(store)
	d.Flushed()
	if !d.SpillNode(1, store, 0) {
		t.Fatal("the SessionWindow did not spill")
	}
	s := d.ops[1].(*sessionOp)
	if len(s.ks.idx) != 5000 || len(s.groups) != 0 {
		t.Fatalf("%d sessions indexed, %d groups resident", len(s.ks.idx), len(s.groups))
	}
	for i := range 50 {
		u := repr.Update{Row: row(i * 397), Time: uint64(i + 2), Diff: -1}
		if i%2 == 0 { // a new row 0.7 s after a session's last: joins it
			u = repr.Update{Row: repr.Row{repr.NewInt(int64(30_000 + i)), repr.NewInt(1), repr.NewTimestamp(int64(i*97)*3_000_000 + 1_000_000)}, Time: uint64(i + 2), Diff: 1}
		}
		before := s.ks.rs.loads
		var w opBatch
		out, err := d.StepInput(nil, uint64(i+2), Input{Updates: map[repr.CollectionID][]repr.Update{1: {u}}}, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		w.apply(store)
		d.Flushed()
		if l := s.ks.rs.loads - before; l == 0 || l > 2 || len(out) == 0 {
			t.Fatalf("update %d: loaded %d sessions, emitted %d updates", i, l, len(out))
		}
		if len(s.groups) != 0 {
			t.Fatalf("update %d: rows resident after the checkpoint", i)
		}
	}
}
