package exec

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// stateSizeCases are the stateful operator kinds whose state size
// eddy_dataflow_operators reports: a plan, the node to read and the row
// of each source collection for input i.
var stateSizeCases = []struct {
	name string
	plan string
	node int
	rows func(i int) map[repr.CollectionID]repr.Row
}{
	{"reduce_count", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %0`, 1, groupRows(2000)},
	{"reduce_min_max", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[min(#1), max(#1)] <- %0`, 1, groupRows(2000)},
	{"reduce_min_max_append_only", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[min(#1), max(#1)] append-only=true <- %0`, 1, groupRows(2000)},
	{"reduce_count_distinct", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[count(DISTINCT #1)] <- %0`, 1, groupRows(200)},
	{"reduce_count_distinct_append_only", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[count(DISTINCT #1)] append-only=true <- %0`, 1, groupRows(200)},
	{"reduce_global_distinct", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[] aggs=[count(DISTINCT #1), max(#2)] <- %0`, 1, groupRows(1)},
	{"reduce_string_agg", `%0 = Source coll=1 :: int4, int4, text
%1 = Reduce key=[#0] aggs=[string_agg(#2, #2)] <- %0`, 1, groupRows(500)},
	{"threshold", `%0 = Source coll=1 :: int4, int4, text
%1 = Threshold <- %0`, 1, groupRows(1000)},
	{"join", `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#1=#1] <- %0, %1`, 2, twoSides},
	{"join_append_only", `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#1=#1] append-only=true <- %0, %1`, 2, twoSides},
	{"topk", `%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#0] order=[#1 DESC] limit=1000 <- %0`, 1, groupRows(100)},
	{"window", `%0 = Source coll=1 :: int4, int4, text
%1 = Window key=[#0] order=[#1] funcs=[row_number(), lag(#2, 1)] <- %0`, 1, groupRows(100)},
}

// groupRows returns the rows (g, i, text of i) of groups groups.
func groupRows(groups int) func(i int) map[repr.CollectionID]repr.Row {
	return func(i int) map[repr.CollectionID]repr.Row {
		return map[repr.CollectionID]repr.Row{1: {repr.NewInt(int64(i % groups)), repr.NewInt(int64(i)),
			repr.NewText(fmt.Sprintf("value %08d", i))}}
	}
}

// twoSides gives a join both sides' rows, every left row matching one
// right row.
func twoSides(i int) map[repr.CollectionID]repr.Row {
	r := repr.Row{repr.NewInt(int64(i)), repr.NewInt(int64(i)), repr.NewText(fmt.Sprintf("value %08d", i))}
	return map[repr.CollectionID]repr.Row{1: r, 2: r}
}

// TestStateSizePlausible loads each stateful operator kind with 20,000
// input rows and checks that the state size it reports is nonzero and
// within a factor of three of the live heap its dataflow grew by.
func TestStateSizePlausible(t *testing.T) {
	const n, batch = 20_000, 1000
	for _, c := range stateSizeCases {
		t.Run(c.name, func(t *testing.T) {
			before := liveHeap()
			d := mustBuild(t, c.plan)
			var w discardBatch
			ctx := &expr.Ctx{}
			for i := 0; i < n; i += batch {
				in := map[repr.CollectionID][]repr.Update{}
				for j := i; j < i+batch; j++ {
					for coll, r := range c.rows(j) {
						in[coll] = append(in[coll], repr.Update{Row: r, Diff: 1})
					}
				}
				w.buf = w.buf[:0]
				if _, err := d.Step(ctx, repr.Time(i), in, &w); err != nil {
					t.Fatal(err)
				}
				d.Commit()
			}
			grown := liveHeap() - before
			op := d.Operators()[c.node]
			t.Logf("%s: rows=%d bytes=%d heap=%d ratio=%.2f", op.Op, op.StateRows, op.StateBytes, grown, float64(op.StateBytes)/float64(grown))
			if op.StateRows <= 0 || op.StateBytes <= 0 {
				t.Fatalf("%s reports rows=%d bytes=%d", op.Op, op.StateRows, op.StateBytes)
			}
			if op.StateBytes*3 < grown || op.StateBytes > grown*3 {
				t.Errorf("%s reports %d bytes, the heap grew by %d", op.Op, op.StateBytes, grown)
			}
			runtime.KeepAlive(d)
		})
	}
}
