package sql

import (
	"testing"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// TestApplyViewOutputRawOrder: a view's dataflow output is not
// consolidated, so it may retract a row before inserting it in the same
// step; applying it must not refuse the retraction (the sum is valid), and
// the result must equal applying the consolidated output.
func TestApplyViewOutputRawOrder(t *testing.T) {
	te := newTestEngine(t)
	e := te.e
	const id = 1 << 40
	e.colls[id] = storage.NewCollection(id, nil)
	r1 := repr.Row{repr.NewInt(1)}
	r2 := repr.Row{repr.NewInt(2)}
	out := []repr.Update{
		{Row: r1, Diff: -1}, {Row: r2, Diff: 1}, {Row: r1, Diff: 1}, {Row: r2, Diff: 1}, {Row: r2, Diff: -1},
	}
	tx := &applyTx{}
	if err := e.applyViewOutput(id, out, nil, tx); err != nil {
		t.Fatalf("raw output refused: %v", err)
	}
	tx.commit()
	got := map[int64]int64{}
	e.colls[id].Scan(func(r repr.Row, n int64) bool {
		got[r[0].Int()] = n
		return true
	})
	if len(got) != 1 || got[2] != 1 {
		t.Fatalf("collection = %v, want {2: 1}", got)
	}
}
