package exec

import (
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestWindowReduceDefers checks that a windowed Reduce stepped with
// Input.DeferState leaves its group records and multiset runs to
// FlushState (q5's count and max per window were rewritten every Step),
// and that closing its windows deletes everything it stored.
func TestWindowReduceDefers(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 watermark=#2 :: int4, int4, timestamp
%1 = MFP map=[tumble_start(#2, '00:00:10'::interval)] project=[#3, #0, #1] <- %0
%2 = Reduce key=[#0, #1] aggs=[count(*), max(#2)] <- %1`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := unsharded(d.ops[2]).(*windowReduce); !ok {
		t.Fatalf("node %%2 is a %T, not a windowed Reduce", d.ops[2])
	}
	ts := func(s string) repr.Datum {
		r, err := dataflow.ParseRow("('"+s+"')", []repr.T{repr.Timestamp})
		if err != nil {
			t.Fatal(err)
		}
		return r[0]
	}
	store := newMemStore()
	step := func(tm uint64, rows []repr.Row, wm repr.Datum) opBatch {
		t.Helper()
		in := Input{Updates: map[repr.CollectionID][]repr.Update{}, Watermarks: map[repr.CollectionID]int64{1: wm.Micros()}, DeferState: true}
		for _, r := range rows {
			in.Updates[1] = append(in.Updates[1], repr.Update{Row: r, Time: tm, Diff: 1})
		}
		var b opBatch
		if _, err := d.StepInput(&expr.Ctx{}, tm, in, &b); err != nil {
			t.Fatal(err)
		}
		d.Commit()
		b.apply(store)
		return b
	}
	flush := func() opBatch {
		t.Helper()
		var b opBatch
		if err := d.FlushState(&b); err != nil {
			t.Fatal(err)
		}
		b.apply(store)
		return b
	}
	prefix := nodePrefix(nil, 2)
	// reduceWrites counts b's writes to the Reduce's state (the source
	// logs its watermark).
	reduceWrites := func(b opBatch) (n int) {
		for _, op := range b.ops {
			if strings.HasPrefix(string(op.key), string(prefix)) {
				n++
			}
		}
		return n
	}
	open := ts("2024-01-01 00:00:00")
	for i := range 3 {
		rows := []repr.Row{
			{repr.NewInt(1), repr.NewInt(int64(10 + i)), ts("2024-01-01 00:00:01")},
			{repr.NewInt(2), repr.NewInt(int64(20 - i)), ts("2024-01-01 00:00:02")},
		}
		if n := reduceWrites(step(uint64(i+1), rows, open)); n != 0 {
			t.Fatalf("step %d of open windows logged %d state writes, want none (deferred to the flush)", i+1, n)
		}
	}
	if n := reduceWrites(flush()); n == 0 {
		t.Fatal("the flush logged nothing")
	}
	step(4, nil, ts("2024-01-01 00:01:00"))
	flush()
	for k := range store.m {
		if strings.HasPrefix(k, string(prefix)) {
			t.Fatalf("state key %x left after every window closed", k)
		}
	}
}
