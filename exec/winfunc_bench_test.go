package exec

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// windowBenchRows is the size of the windowed collection.
const windowBenchRows = 1_000_000

// BenchmarkWindowUpdate measures one update (a row's value changed: its
// retraction and re-insertion at the same position) to a Window over
// t(id, g, v) holding windowBenchRows rows, partitioned by g into
// partitions of part rows and ordered by id, computing lag(v) and a sum
// of v over a frame:
//
//   - sliding: ROWS BETWEEN 9 PRECEDING AND CURRENT ROW, whose values
//     change at 10 positions after the updated one;
//   - running: ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, whose
//     values change at every later position of the partition (half of it
//     on average), so its cost grows with the partition however it is
//     maintained;
//   - range, range-excl, groups: RANGE and GROUPS offsets (ids are
//     distinct, so 10 PRECEDING spans 11 rows) in one partition of a
//     million rows.
//
// The updated row is drawn uniformly. out-rows/op counts the changes the
// update emits (a retraction and an insertion per row whose values
// changed); cpu-us/op is the process's user+sys CPU time per update (the
// machine is shared, so wall-clock ns/op is noisy).
func BenchmarkWindowUpdate(b *testing.B) {
	frames := []struct{ name, frame string }{
		{"sliding", "ROWS BETWEEN 9 PRECEDING AND CURRENT ROW"},
		{"running", "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"},
	}
	for _, f := range frames {
		for _, part := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("frame=%s/part=%d", f.name, part), func(b *testing.B) {
				benchWindowUpdate(b, f.frame, part)
			})
		}
	}
	// One partition of all windowBenchRows rows: RANGE and GROUPS
	// offsets find their frames and the rows a change reaches by binary
	// search, so an update costs about what a sliding ROWS frame does.
	for _, f := range []struct{ name, frame string }{
		{"range", "RANGE BETWEEN 10 PRECEDING AND CURRENT ROW"},
		{"range-excl", "RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING EXCLUDE TIES"},
		{"groups", "GROUPS BETWEEN 9 PRECEDING AND CURRENT ROW"},
	} {
		b.Run(fmt.Sprintf("frame=%s/part=%d", f.name, windowBenchRows), func(b *testing.B) {
			benchWindowUpdate(b, f.frame, windowBenchRows)
		})
	}
}

func benchWindowUpdate(b *testing.B, frame string, part int) {
	plan := `%0 = Source coll=1 :: int8, int8, int8
%1 = Window key=[#1] order=[#0] funcs=[lag(#2, 1), sum(#2) ` + frame + `] <- %0`
	p, err := dataflow.Parse(plan)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		b.Fatal(err)
	}
	nparts := windowBenchRows / part
	row := func(id, v int64) repr.Row {
		return repr.Row{repr.NewInt(id), repr.NewInt(id % int64(nparts)), repr.NewInt(v)}
	}
	vals := make([]int64, windowBenchRows)
	ctx := &expr.Ctx{}
	var w discardBatch
	t := uint64(0)
	step := func(in []repr.Update) int {
		t++
		w.buf = w.buf[:0]
		for i := range in {
			in[i].Time = t
		}
		out, err := d.Step(ctx, t, map[repr.CollectionID][]repr.Update{1: in}, &w)
		if err != nil {
			b.Fatal(err)
		}
		d.Commit()
		return len(out)
	}
	const loadBatch = 100_000
	for lo := 0; lo < windowBenchRows; lo += loadBatch {
		in := make([]repr.Update, 0, loadBatch)
		for id := lo; id < lo+loadBatch; id++ {
			vals[id] = int64(id % 997)
			in = append(in, repr.Update{Row: row(int64(id), vals[id]), Diff: 1})
		}
		step(in)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	out := 0
	in := make([]repr.Update, 2)
	cpu0 := cpuTime()
	for b.Loop() {
		id := rng.IntN(windowBenchRows)
		in[0] = repr.Update{Row: row(int64(id), vals[id]), Diff: -1}
		vals[id]++
		in[1] = repr.Update{Row: row(int64(id), vals[id]), Diff: 1}
		out += step(in)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
	b.ReportMetric(float64(out)/float64(b.N), "out-rows/op")
}

// cpuTime returns the process's user+sys CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
