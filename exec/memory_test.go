package exec

import (
	"errors"
	"runtime"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// fakeMemory is an expr.Memory that refuses once its total would pass
// limit (0: never).
type fakeMemory struct {
	total, limit int64
	calls        int
}

var errFakeOOM = errors.New("fake: out of memory")

func (m *fakeMemory) Grow(n int64) error {
	m.calls++
	if m.limit > 0 && m.total+n > m.limit {
		return errFakeOOM
	}
	m.total += n
	return nil
}

// intUpdates returns n single-column rows lo, lo+1, ... inserted at time t.
func intUpdates(lo, n int, t repr.Time) []repr.Update {
	us := make([]repr.Update, n)
	for i := range us {
		us[i] = repr.Update{Row: repr.Row{repr.NewInt(int64(lo + i))}, Time: t, Diff: 1}
	}
	return us
}

const crossJoinPlan = "%0 = Source coll=1 :: int4\n%1 = Source coll=2 :: int4\n%2 = Join kind=inner on=[] <- %0, %1"

// TestStepReportsGrowth checks that a Step reports its output's growth
// to its account in chunks as it goes: a 300x300 cross join reports at
// least the bytes of its 90,000 joined rows, in calls of at least
// memReportBytes each.
func TestStepReportsGrowth(t *testing.T) {
	d := buildText(t, crossJoinPlan)
	m := &fakeMemory{}
	in := map[repr.CollectionID][]repr.Update{1: intUpdates(0, 300, 1), 2: intUpdates(0, 300, 1)}
	out, err := d.Step(&expr.Ctx{Memory: m}, 1, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	rowBytes := 2*datumBytes + updateBytes
	if min := int64(len(out)) * rowBytes; m.total < min {
		t.Errorf("%d joined rows: reported %d bytes, want at least %d", len(out), m.total, min)
	}
	if max := m.total/memReportBytes + 1; int64(m.calls) > max {
		t.Errorf("reported %d bytes in %d calls, want at most %d (chunks of %d)", m.total, m.calls, max, memReportBytes)
	}
}

// TestStepRefusedRollsBack checks that a refused reservation fails the
// Step with the account's error, stops it within a chunk of the limit,
// and rolls it back: the next Step sees state as if the failed one never
// ran.
func TestStepRefusedRollsBack(t *testing.T) {
	d := buildText(t, crossJoinPlan)
	limit := int64(4 * memReportBytes)
	m := &fakeMemory{limit: limit}
	in := map[repr.CollectionID][]repr.Update{1: intUpdates(0, 1000, 1), 2: intUpdates(0, 1000, 1)}
	if _, err := d.Step(&expr.Ctx{Memory: m}, 1, in, nil); !errors.Is(err, errFakeOOM) {
		t.Fatalf("1000x1000 cross join under a %d-byte account: err %v, want the account's refusal", limit, err)
	}
	if d.slab.growth() > 4*limit {
		t.Errorf("the refused Step grew its slab by %d bytes, want it stopped near the %d-byte limit", d.slab.growth(), limit)
	}
	out, err := d.Step(&expr.Ctx{}, 2, map[repr.CollectionID][]repr.Update{1: intUpdates(0, 2, 2), 2: intUpdates(0, 3, 2)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 6 {
		t.Errorf("after the rolled-back Step, a 2x3 join gave %d rows, want 6 (the failed Step's rows must be gone)", len(out))
	}
}

// TestReduceReportsGroups checks that new groups count as the Step's
// growth even when the Reduce's output is small relative to them: a
// GROUP BY of 20,000 distinct keys reports at least the groups' keys.
func TestReduceReportsGroups(t *testing.T) {
	d := buildText(t, "%0 = Source coll=1 :: int4\n%1 = Reduce key=[#0] aggs=[count(*)] <- %0 :: int4, int8")
	m := &fakeMemory{}
	in := map[repr.CollectionID][]repr.Update{1: intUpdates(0, 20000, 1)}
	if _, err := d.Step(&expr.Ctx{Memory: m}, 1, in, nil); err != nil {
		t.Fatal(err)
	}
	groupMin := int64(20000) * (int64(len(repr.AppendRowKey(nil, repr.Row{repr.NewInt(1)}))) + unsharded(d.ops[1]).(*reduceOp).groupBytes())
	if m.total < groupMin {
		t.Errorf("20,000 new groups: reported %d bytes, want at least %d", m.total, groupMin)
	}
}

// TestNoAccountNoCost checks that a Step without an account reports
// nothing and runs as before.
func TestNoAccountNoCost(t *testing.T) {
	d := buildText(t, crossJoinPlan)
	in := map[repr.CollectionID][]repr.Update{1: intUpdates(0, 100, 1), 2: intUpdates(0, 100, 1)}
	out, err := d.Step(&expr.Ctx{}, 1, in, nil)
	if err != nil || len(out) != 100*100 {
		t.Fatalf("got %d rows, err %v; want 10000 rows", len(out), err)
	}
}

// freeingMemory is a fakeMemory that takes back what a Step returns
// (memFreer), recording the most it held.
type freeingMemory struct {
	fakeMemory
	peak, freed int64
}

func (m *freeingMemory) Grow(n int64) error {
	err := m.fakeMemory.Grow(n)
	m.peak = max(m.peak, m.total)
	return err
}

func (m *freeingMemory) Free(n int64) { m.total -= n; m.freed += n }

// TestStepSettlesJoinPairs checks that a Step returns to its account the
// joined pairs a projection after the join consumed (settle), keeping
// what it hands back: a 300x300 cross join projected to its left column
// reports its pairs as it goes (the account's peak), then keeps its
// 90,000 projected rows accounted (but for the last piece of growth,
// under memReportBytes, never reported) and not the pairs; a Step whose
// join is its output returns nothing.
func TestStepSettlesJoinPairs(t *testing.T) {
	in := map[repr.CollectionID][]repr.Update{1: intUpdates(0, 300, 1), 2: intUpdates(0, 300, 1)}
	m := &freeingMemory{}
	d := buildText(t, crossJoinPlan+"\n%3 = MFP project=[#0] <- %2")
	out, err := d.StepInputRaw(&expr.Ctx{Memory: m}, 1, Input{Updates: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := int64(len(out)) * (datumBytes + 2*updateBytes)
	pairs := int64(len(out)) * 2 * datumBytes
	if m.peak < kept+pairs {
		t.Errorf("peak %d bytes, want at least the %d of the rows and %d of the pairs", m.peak, kept, pairs)
	}
	if m.freed < pairs || m.total < kept-memReportBytes { // the last piece is not reported
		t.Errorf("after the Step: %d bytes accounted, %d returned; want the %d of the rows kept and the %d of the pairs returned",
			m.total, m.freed, kept, pairs)
	}

	m = &freeingMemory{}
	d = buildText(t, crossJoinPlan)
	if _, err := d.StepInputRaw(&expr.Ctx{Memory: m}, 1, Input{Updates: in}, nil); err != nil {
		t.Fatal(err)
	}
	if m.freed != 0 {
		t.Errorf("a join as the Step's output: %d bytes returned, want none (its pairs are the output)", m.freed)
	}
}

// TestJoinArrangingReportsItsState checks that a join arranging rows
// with nothing to match yet (an ad hoc join's first input) reports at
// least three quarters of the heap its arrangement takes: it reported
// its rows (jrowCost) but not their join keys' buckets nor its undo
// records, a third of what an ad hoc join of two million-row
// generate_series grew by (451 MiB RSS under a 256 MiB budget before its
// 53200).
func TestJoinArrangingReportsItsState(t *testing.T) {
	d := buildText(t, "%0 = Source coll=1 :: int4\n%1 = Source coll=2 :: int4\n%2 = Join kind=inner on=[#0=#0] <- %0, %1")
	m := &fakeMemory{}
	in := map[repr.CollectionID][]repr.Update{1: intUpdates(0, 100_000, 1)}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := d.Step(&expr.Ctx{Memory: m}, 1, in, nil); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("arranging 100,000 rows: reported %d bytes, the live heap grew %d", m.total, grew)
	if float64(m.total) < 0.75*float64(grew) {
		t.Errorf("arranging 100,000 rows reported %d bytes, under 3/4 of the live heap's growth %d", m.total, grew)
	}
	runtime.KeepAlive(d)
	runtime.KeepAlive(in)
}
