package exec

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// fanoutPlans are fan-outs fuseFanouts fuses, each with what it must
// fuse: HOP's shape (a prefix MFP absorbed, tumble_start shared), branches
// with their own filters, a division by zero that the filters of two
// branches guard (not shared) and one that a third branch computes on
// every row (step 40 fails),
// a prefix read by another node too (not absorbed), and a Union over a
// Source directly. merged is whether its input rows are merged
// (fanoutDedup): "hop" and "merged" (the guarded plan over a column no
// branch reads) merge theirs, the failing Step included.
var fanoutPlans = []struct {
	name, plan             string
	prefix, shared, merged bool
}{
	{"hop", hopPlan, true, true, true},
	{"merged", `%0 = Source coll=1 :: int8, int8, timestamp
%1 = MFP filter=[(#1 <> 3)] project=[#0, #1, #2] <- %0
%2 = MFP map=[(100 / (#1 - 5)), (#0 * 2)] filter=[(#1 > 5)] project=[#3, #4] <- %1
%3 = MFP map=[(#0 * 2), (100 / (#1 - 5))] filter=[(#1 < 5), (#3 > 4)] project=[#4, #3] <- %1
%4 = MFP map=[(#0 * 2), (#0 / (#1 - 5))] project=[#3, #4] <- %1
%5 = Union <- %2, %3, %4
%6 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %5`, true, true, true},
	{"guarded", `%0 = Source coll=1 :: int8, int8, timestamp
%1 = MFP filter=[(#1 <> 3)] project=[#0, #1] <- %0
%2 = MFP map=[(100 / (#1 - 5)), (#0 * 2)] filter=[(#1 > 5)] project=[#2, #3] <- %1
%3 = MFP map=[(#0 * 2), (100 / (#1 - 5))] filter=[(#1 < 5), (#2 > 4)] project=[#3, #2] <- %1
%4 = MFP map=[(#0 * 2), (#0 / (#1 - 5))] project=[#2, #3] <- %1
%5 = Union <- %2, %3, %4
%6 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %5`, true, true, false},
	{"shared-prefix", `%0 = Source coll=1 :: int8, int8, timestamp
%1 = MFP map=[(#0 + #1)] project=[#3, #1] <- %0
%2 = MFP map=[(#0 * 3)] filter=[(#2 > 10)] project=[#2, #1] <- %1
%3 = MFP map=[(#0 * 3)] project=[#1, #2] <- %1
%4 = Union <- %2, %3
%5 = Join kind=inner on=[#0=#0] <- %4, %1`, false, true, true},
	{"source", `%0 = Source coll=1 :: int8, int8, timestamp
%1 = MFP filter=[(#0 > 50)] project=[#0, #1] <- %0
%2 = MFP project=[#1, #0] <- %0
%3 = Union <- %1, %2
%4 = Reduce key=[#0] aggs=[count(*), max(#1)] <- %3`, false, false, true},
}

// TestFanoutEqualsNodeByNode steps each fan-out plan fused and node by
// node over the same random batches (with retractions, a row at a time
// and large, and a Step that divides by zero) and checks that the outputs
// (as multisets), the state stored, the errors and the row counts agree (the
// later Steps after a failed one), and that the fusion happened as
// expected.
func TestFanoutEqualsNodeByNode(t *testing.T) {
	for _, c := range fanoutPlans {
		t.Run(c.name, func(t *testing.T) {
			fused := buildFanout(t, c.plan, true)
			plain := buildFanout(t, c.plan, false)
			checkFused(t, fused, c.prefix, c.shared, c.merged)
			fused.CountRows()
			plain.CountRows()
			rng := rand.New(rand.NewPCG(9, uint64(len(c.name))))
			failed := 0
			// The stores the logged writes leave: merged rows whose
			// diffs cancel touch no group, where node by node their
			// updates log the group's (absent) state again.
			storeA, storeB := stateMap{}, stateMap{}
			for step := range 60 {
				in := fanoutBatch(rng, step)
				a, aw, aerr := stepFanout(fused, step, in)
				b, bw, berr := stepFanout(plain, step, in)
				if fmt.Sprint(aerr) != fmt.Sprint(berr) {
					t.Fatalf("step %d: fused error %v, node by node %v", step, aerr, berr)
				}
				if aerr != nil {
					failed++
				}
				// A failed Step leaves its nodes' counts part way (a failed
				// query's counts are not shown), so they compare up to it.
				if a, b := fused.RowCounts(), plain.RowCounts(); failed == 0 && !slices.Equal(a, b) {
					t.Fatalf("step %d: row counts: fused %v, node by node %v", step, a, b)
				}
				slices.Sort(a) // the fused output is row by row
				slices.Sort(b)
				storeA.apply(aw)
				storeB.apply(bw)
				if !slices.Equal(a, b) || !maps.Equal(storeA, storeB) {
					t.Fatalf("step %d: fused output\n%v\nnode by node\n%v", step, a, b)
				}
			}
			if want := c.name == "guarded" || c.name == "merged"; (failed > 0) != want {
				t.Errorf("%d Steps failed; want some: %v", failed, want)
			}
		})
	}
}

// buildFanout builds plan with fusion on or off.
func buildFanout(t *testing.T, plan string, fuse bool) *Dataflow {
	defer func(old bool) { fanoutFusion = old }(fanoutFusion)
	fanoutFusion = fuse
	p, err := dataflow.Parse(plan)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkFused checks that d has one fanoutOp, with a prefix and shared
// expressions as expected.
func checkFused(t *testing.T, d *Dataflow, prefix, shared, merged bool) {
	t.Helper()
	var fs []*fanoutOp
	for _, op := range d.ops {
		if f, ok := op.(*fanoutOp); ok {
			fs = append(fs, f)
		}
	}
	if len(fs) != 1 {
		t.Fatalf("%d fused fan-outs, want 1", len(fs))
	}
	if got := fs[0].prefix != nil; got != prefix {
		t.Errorf("prefix absorbed: %v, want %v", got, prefix)
	}
	if got := len(fs[0].shared) > 0; got != shared {
		t.Errorf("shared expressions %v, want some: %v", fs[0].shared, shared)
	}
	if got := fs[0].dedup != nil; got != merged {
		t.Errorf("rows merged: %v, want %v", got, merged)
	}
}

// fanoutBatch returns step's random batch over (int8, int8, timestamp):
// inserts, retractions, a single row now and then; step 40 divides by
// zero in the "guarded" plan (a row with #1 = 5).
func fanoutBatch(rng *rand.Rand, step int) []repr.Update {
	n := 1 + rng.IntN(300)
	if step%7 == 0 {
		n = 1
	}
	var in []repr.Update
	for range n {
		row := repr.Row{repr.NewInt(int64(rng.IntN(100))), repr.NewInt(int64(rng.IntN(11))), repr.NewTimestamp(int64(step)*1_000_000 + int64(rng.IntN(2_000_000)))}
		if row[1].Int() == 5 && step != 40 {
			row[1] = repr.NewInt(6)
		}
		if rng.IntN(10) == 0 {
			row[2] = repr.Null
		}
		diff := int64(1)
		if rng.IntN(5) == 0 {
			diff = -1
		}
		in = append(in, repr.Update{Row: row, Time: uint64(step + 1), Diff: diff})
	}
	return in
}

// stepFanout steps d with in, commits (or, on error, has rolled back),
// and returns the raw output as text and the state it logged (each key's
// last write: a Step logs a touched group once, in the order its input
// touched it).
func stepFanout(d *Dataflow, step int, in []repr.Update) ([]string, map[string]string, error) {
	w := stateMap{}
	out, err := d.StepInputRaw(&expr.Ctx{}, uint64(step+1), Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}, w)
	if err != nil {
		return nil, nil, err
	}
	d.Commit()
	var rows []string
	for _, u := range Consolidate(out) { // merged rows emit summed diffs
		rows = append(rows, fmt.Sprintf("%d %s", u.Diff, u.Row))
	}
	return rows, w, nil
}

// stateMap is a StateWriter keeping each key's last write ("" deleted).
type stateMap map[string]string

// apply applies the writes w to the store m (deleted keys removed).
func (m stateMap) apply(w stateMap) {
	for k, v := range w {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
}

func (m stateMap) Set(k, v []byte) { m[string(k)] = "=" + string(v) }
func (m stateMap) Delete(k []byte) { m[string(k)] = "" }
