package exec

import (
	"regexp"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// windowPagedPlans are windowRandomPlans with every Window's PARTITION BY
// dropped: one partition, paged when spilled (winpage.go).
var windowPagedPlans = func() []string {
	re := regexp.MustCompile(`Window key=\[[^\]]*\]`)
	var out []string
	for _, p := range windowRandomPlans {
		out = append(out, re.ReplaceAllString(p, "Window key=[]"))
	}
	return out
}()

// TestSpilledUnpartitionedWindowEqualsInMemory is
// TestSpilledWindowFuncEqualsInMemory for Windows without PARTITION BY,
// whose one partition pages its chunks of 4 positions (so that loading
// and changing them splits and merges chunks, and copies of a row span
// chunks): every output and every logged key equals the Window's in
// memory, through spills, evictions to no cache, rolled-back Steps and
// restarts within a random bound (which rebuild the pages from the
// store), and some chunks were loaded and evicted.
func TestSpilledUnpartitionedWindowEqualsInMemory(t *testing.T) {
	defer func(n int) { wchunkMax = n }(wchunkMax)
	wchunkMax = 4
	runs := checkSpilledEqualsInMemory(t, windowPagedPlans, false)
	var paged, loads, evictions int64
	for _, r := range runs {
		for _, op := range r.sp.ops {
			if w, ok := op.(*windowOp); ok && w.pg != nil {
				paged++
				loads, evictions = loads+w.pg.rs.loads, evictions+w.pg.rs.evictions
			}
		}
	}
	t.Logf("%d paged Windows at the end of a run, %d chunks loaded, %d evicted", paged, loads, evictions)
	if paged == 0 || loads == 0 || evictions == 0 {
		t.Fatal("no paged Window loaded and evicted chunks")
	}
}

// TestPagedWindowLoadsOnlyNearChanges checks that a spilled Window
// without PARTITION BY, over 20,000 rows with lag and a sliding sum and
// no cache, loads per single-row insert or delete only the chunks around
// the change (at most 3 of its ~80), and evicts them again after the
// checkpoint: its work follows the change, not the partition.
func TestPagedWindowLoadsOnlyNearChanges(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[] order=[#1] funcs=[lag(#0, 1), sum(#0) ROWS BETWEEN 10 PRECEDING AND CURRENT ROW] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	store := newMemStore()
	const n = 20000
	var w opBatch
	var ins []repr.Update
	for i := range n {
		ins = append(ins, repr.Update{Row: repr.Row{repr.NewInt(int64(i)), repr.NewInt(int64(i * 7 % n)), repr.NewText("x")}, Time: 1, Diff: 1})
	}
	if _, err := d.StepInput(nil, 1, Input{Updates: map[repr.CollectionID][]repr.Update{1: ins}}, &w); err != nil {
		t.Fatal(err)
	}
	d.Commit()
	w.apply(store)
	d.Flushed()
	if !d.SpillNode(1, store, 0) {
		t.Fatal("the Window did not spill")
	}
	win := d.ops[1].(*windowOp)
	if win.pg.resident != 0 {
		t.Fatalf("%d copies resident after spilling with no cache", win.pg.resident)
	}
	for i := range 50 {
		row := repr.Row{repr.NewInt(int64(n + i)), repr.NewInt(int64(i * 397 % n)), repr.NewText("y")}
		diff := int64(1)
		if i%2 == 1 {
			row, diff = ins[i*131].Row, -1
		}
		before := win.pg.rs.loads
		var w opBatch
		out, err := d.StepInput(nil, uint64(i+2), Input{Updates: map[repr.CollectionID][]repr.Update{1: {{Row: row, Time: uint64(i + 2), Diff: diff}}}}, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		w.apply(store)
		d.Flushed()
		if l := win.pg.rs.loads - before; l == 0 || l > 3 || len(out) == 0 {
			t.Fatalf("update %d: loaded %d chunks, emitted %d updates", i, l, len(out))
		}
		if win.pg.resident != 0 {
			t.Fatalf("update %d: %d copies resident after the checkpoint", i, win.pg.resident)
		}
	}
}
