package exec

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkKeylessSessionUpdate measures one update (a click deleted or
// added) to a SessionWindow without Key columns (one group) and a 1 s gap
// over rows clicks in sessions of 4 clicks 100 ms apart, 3 s between
// sessions, its state logged to Pebble (16 MiB block cache; a checkpoint
// and Flushed every 10 updates): in memory (mem), or spilled by session
// with a 1 MiB cache (spilled). cpu-us/op is the process's user+sys CPU
// time per update, loads/op the sessions read from the store per update,
// heap-MB the live heap after loading (and spilling).
func BenchmarkKeylessSessionUpdate(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000} {
		for _, spilled := range []bool{false, true} {
			name := map[bool]string{false: "mem", true: "spilled"}[spilled]
			b.Run(fmt.Sprintf("rows=%d/%s", rows, name), func(b *testing.B) { benchKeylessSession(b, rows, spilled) })
		}
	}
}

func benchKeylessSession(b *testing.B, rows int, spilled bool) {
	sb := newStoredBench(b, `%0 = Source coll=1 :: int8, int8, timestamp
%1 = SessionWindow key=[] time=#2 gap=1s <- %0`)
	d, step, checkpoint := sb.d, sb.step, sb.checkpoint
	row := func(i int) repr.Row {
		return repr.Row{repr.NewInt(int64(i)), repr.NewInt(0), repr.NewTimestamp(int64(i/4)*3_000_000 + int64(i%4)*100_000)}
	}
	const loadBatch = 100_000
	for lo := 0; lo < rows; lo += loadBatch {
		in := make([]repr.Update, 0, loadBatch)
		for i := lo; i < lo+loadBatch; i++ {
			in = append(in, repr.Update{Row: row(i), Diff: 1})
		}
		step(in)
		checkpoint()
	}
	if spilled && !d.SpillNode(1, sb.reader, 1<<20) {
		b.Fatal("the SessionWindow did not spill")
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap := ms.HeapAlloc
	rng := rand.New(rand.NewPCG(1, 2))
	present := make([]bool, rows)
	for i := range present {
		present[i] = true
	}
	in := make([]repr.Update, 1)
	_, loads0, _ := d.SpillStats()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		i := rng.IntN(rows)
		in[0] = repr.Update{Row: row(i), Diff: -1}
		if !present[i] {
			in[0].Diff = 1
		}
		present[i] = !present[i]
		step(in)
		if n++; n%10 == 0 {
			checkpoint()
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
	_, loads, _ := d.SpillStats()
	b.ReportMetric(float64(loads-loads0)/float64(b.N), "loads/op")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}
