package lower

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// TestLowerEventTime checks that a Get's event-time column and a Reduce's
// EMIT ON WINDOW CLOSE reach the dataflow plan (dropping either would
// silently change what the view emits).
func TestLowerEventTime(t *testing.T) {
	get := &ir.Get{ID: 7, Name: "bid", Types: []repr.T{repr.Int8, repr.Timestamp}, HasEventTime: true, EventTimeCol: 1}
	red := &ir.Reduce{Input: get, Key: []int{1}, Aggs: []expr.Agg{{Kind: expr.AggCountStar, T: repr.Int8}}, EmitOnClose: true}
	p, err := Lower(red)
	if err != nil {
		t.Fatal(err)
	}
	src, ok := p.Nodes[0].Op.(dataflow.Source)
	if !ok || !src.HasEventTime || src.EventTimeCol != 1 {
		t.Errorf("source lowered to %s", p)
	}
	r, ok := p.Nodes[p.Output].Op.(dataflow.Reduce)
	if !ok || !r.EmitOnClose {
		t.Errorf("reduce lowered to %s", p)
	}
}
