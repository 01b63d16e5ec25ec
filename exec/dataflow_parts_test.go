package exec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// partsPlan has a stateless chain before a sharded Reduce (an MFP, then
// a fused fan-out), one between it and a TopK keyed otherwise, and one
// after the TopK, which is the output.
const partsPlan = `%0 = Source coll=1 :: int8, int8, text
%1 = MFP map=[(#1 * 3)] filter=[(#1 >= 0)] project=[#0, #3, #2] <- %0
%2 = MFP map=[(#1 + 1)] project=[#0, #3] <- %1
%3 = MFP map=[(#1 + 2)] project=[#0, #3] <- %1
%4 = Union <- %2, %3
%5 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %4
%6 = MFP map=[(#2 % 7)] project=[#3, #0, #2] <- %5
%7 = TopK key=[#0] order=[#2 DESC, #1] limit=2 <- %6
%8 = MFP map=[(#2 * 10)] project=[#1, #3] <- %7`

// TestPartsRunChainsPerWorker checks that a dataflow built for 2 and 3
// workers runs its stateless chains in parts, every worker's instance
// producing rows (each worker's slab grew), and that its raw output at
// every Step, order included, is the concatenation a single dataflow's
// nodes would give in shard order: the same multiset as one worker's,
// Step after Step, with deletions and a rollback.
func TestPartsRunChainsPerWorker(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	shardParallelMin = 0
	p, err := dataflow.Parse(partsPlan)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		one, err := BuildWorkers(p, 1)
		if err != nil {
			t.Fatal(err)
		}
		d, err := BuildWorkers(p, n)
		if err != nil {
			t.Fatal(err)
		}
		if d.par == nil {
			t.Fatalf("%d workers: no parts", n)
		}
		for _, i := range []int{2, 6, 8} { // %1 is absorbed by the fan-out at %2
			if len(d.par.ops[i]) != n {
				t.Fatalf("%d workers: node %d has %d instances", n, i, len(d.par.ops[i]))
			}
		}
		for step := uint64(1); step <= 12; step++ {
			var in []repr.Update
			for k := range 300 {
				v := int64(k*int(step)) % 97
				diff := int64(1)
				if step%4 == 0 && k%3 == 0 {
					diff = -1 // retracts what step-1 added for this row
					v = int64(k*int(step-1)) % 97
				}
				in = append(in, repr.Update{Row: repr.Row{repr.NewInt(int64(k % 41)), repr.NewInt(v - 5), repr.NewText(fmt.Sprint(k % 5))}, Time: step, Diff: diff})
			}
			input := Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}
			want, err := one.StepInput(&expr.Ctx{}, step, input, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.StepInput(&expr.Ctx{}, step, input, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := formatUpdates(got), formatUpdates(want); a != b {
				t.Fatalf("%d workers, step %d: output\n%s\nwant\n%s", n, step, a, b)
			}
			if step == 7 {
				one.Rollback()
				d.Rollback()
				continue
			}
			one.Commit()
			d.Commit()
		}
		for k := range d.par.workers {
			if d.par.workers[k].slab.rows == 0 {
				t.Fatalf("%d workers: worker %d's instances made no row", n, k)
			}
		}
	}
}

// TestPartsErrorIsTheFirst checks that a Step whose stateless chain fails
// on rows of several parts fails with the error of the first such row in
// input order, as one worker does, and rolls back.
func TestPartsErrorIsTheFirst(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	shardParallelMin = 0
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int8, int8
%1 = MFP map=[(100 / #1), (9223372036854775807 + #0)] project=[#0, #2, #3] <- %0
%2 = Reduce key=[#0] aggs=[sum(#1)] <- %1`)
	if err != nil {
		t.Fatal(err)
	}
	var in []repr.Update
	for k := range 100 {
		in = append(in, repr.Update{Row: repr.Row{repr.NewInt(0), repr.NewInt(int64(k%30 + 1))}, Time: 1, Diff: 1})
	}
	in[20].Row = repr.Row{repr.NewInt(0), repr.NewInt(0)} // division by zero, in the first part
	in[80].Row = repr.Row{repr.NewInt(5), repr.NewInt(1)} // overflow, in the last
	var errs []string
	for _, n := range []int{1, 2, 4} {
		d, err := BuildWorkers(p, n)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.StepInput(&expr.Ctx{}, 1, Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}, nil)
		if err == nil {
			t.Fatalf("%d workers: no error", n)
		}
		errs = append(errs, err.Error())
		out, err := d.StepInput(&expr.Ctx{}, 2, Input{Updates: map[repr.CollectionID][]repr.Update{1: in[:10]}}, nil)
		if err != nil || len(out) != 1 {
			t.Fatalf("%d workers: after the failed Step: %v, %v", n, out, err)
		}
	}
	if !strings.Contains(errs[0], "division by zero") || strings.Join(errs, "|") != strings.Join([]string{errs[0], errs[0], errs[0]}, "|") {
		t.Fatalf("errors differ by worker count: %q", errs)
	}
}
