package exec

import (
	"errors"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestJoinPollsInterrupt checks that a join producing many rows inside
// one operator step notices a closed Interrupt channel by itself (not only
// between operators) and stops within pollEvery rows of work.
func TestJoinPollsInterrupt(t *testing.T) {
	p, err := dataflow.Parse("%0 = Source coll=1 :: int4\n%1 = Source coll=2 :: int4\n%2 = Join kind=inner on=[] <- %0, %1")
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 1) // white-box: steps node 2 itself
	if err != nil {
		t.Fatal(err)
	}
	var left, right []repr.Update
	for i := range 100 {
		left = append(left, repr.Update{Row: repr.Row{repr.NewInt(int64(i))}, Time: 1, Diff: 1})
		right = append(right, repr.Update{Row: repr.Row{repr.NewInt(int64(i))}, Time: 1, Diff: 1})
	}
	done := make(chan struct{})
	close(done)
	s := &stepCtx{ctx: &expr.Ctx{Interrupt: done}, t: 1, epoch: 1, log: &d.log, slab: &d.slab}
	d.log.off = true
	out, err := d.ops[2].step(s, [][]repr.Update{left, right})
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("join step of 100x100 rows with a closed Interrupt: got %d rows, err %v; want ErrCanceled", len(out), err)
	}
	if s.work > pollEvery {
		t.Errorf("join did %d units of work before noticing the cancel, want at most %d", s.work, pollEvery)
	}
}
