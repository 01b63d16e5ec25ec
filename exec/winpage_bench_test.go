package exec

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkPagedWindowUpdate measures one update (a row's value changed:
// its retraction and re-insertion at the same position) to a Window
// without PARTITION BY over rows rows of t(id, v) ordered by id, computing
// lag(v) and a sum of v over ROWS BETWEEN 10 PRECEDING AND CURRENT ROW,
// its state logged to Pebble (a checkpoint, and Flushed, every 10
// updates): in memory (mem), or spilled with its partition paged and a
// cache of 1 MiB (paged), over a Pebble block cache of 16 MiB. cpu-us/op is the process's user+sys CPU time
// per update, loads/op the chunks read from the store per update,
// heap-MB the live heap after loading (and spilling), resident-MB what the
// paged Window keeps in memory.
func BenchmarkPagedWindowUpdate(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000} {
		for _, paged := range []bool{false, true} {
			name := map[bool]string{false: "mem", true: "paged"}[paged]
			b.Run(fmt.Sprintf("rows=%d/%s", rows, name), func(b *testing.B) { benchPagedWindow(b, rows, paged) })
		}
	}
}

func benchPagedWindow(b *testing.B, rows int, paged bool) {
	sb := newStoredBench(b, `%0 = Source coll=1 :: int8, int8
%1 = Window key=[] order=[#0] funcs=[lag(#1, 1), sum(#1) ROWS BETWEEN 10 PRECEDING AND CURRENT ROW] <- %0`)
	d, step, checkpoint := sb.d, sb.step, sb.checkpoint
	row := func(id, v int64) repr.Row { return repr.Row{repr.NewInt(id), repr.NewInt(v)} }
	vals := make([]int64, rows)
	const loadBatch = 100_000
	for lo := 0; lo < rows; lo += loadBatch {
		in := make([]repr.Update, 0, loadBatch)
		for id := lo; id < lo+loadBatch; id++ {
			vals[id] = int64(id % 997)
			in = append(in, repr.Update{Row: row(int64(id), vals[id]), Diff: 1})
		}
		step(in)
		checkpoint()
	}
	if paged && !d.SpillNode(1, sb.reader, 1<<20) {
		b.Fatal("the Window did not spill")
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap := ms.HeapAlloc
	rng := rand.New(rand.NewPCG(1, 2))
	in := make([]repr.Update, 2)
	_, loads0, _ := d.SpillStats()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		id := rng.IntN(rows)
		in[0] = repr.Update{Row: row(int64(id), vals[id]), Diff: -1}
		vals[id]++
		in[1] = repr.Update{Row: row(int64(id), vals[id]), Diff: 1}
		step(in)
		if n++; n%10 == 0 {
			checkpoint()
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
	resident, loads, _ := d.SpillStats()
	b.ReportMetric(float64(loads-loads0)/float64(b.N), "loads/op")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
	b.ReportMetric(float64(resident)/(1<<20), "resident-MB")
}
