package exec

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkSpilledQ7Close streams q7's bids (prices log-uniform over
// 100..10^8 as Nexmark's, 20,000 per second of event time, 2,000 per
// Step, the watermark 4 s behind, a checkpoint after every Step) through
// q7Plan's interval join, spilled after 20 s of event time with a 1 MiB
// cache (spilled: every window close, 200,000 bids, frees stored bids) or
// kept in memory (mem). cpu-us/bid is the process's user+sys CPU time
// per measured bid.
func BenchmarkSpilledQ7Close(b *testing.B) {
	b.Run("mem", func(b *testing.B) { benchQ7Close(b, false) })
	b.Run("spilled", func(b *testing.B) { benchQ7Close(b, true) })
}

func benchQ7Close(b *testing.B, spill bool) {
	sb := newStoredBench(b, q7Plan)
	rng := rand.New(rand.NewPCG(7, 7))
	const perStep, stepUs = 2000, 100_000
	id, t := int64(0), int64(0)
	next := func() {
		in := make([]repr.Update, 0, perStep)
		for i := range perStep {
			price := int64(math.Round(math.Pow(10, rng.Float64()*6) * 100))
			ts := t + int64(i)*stepUs/perStep
			in = append(in, repr.Update{Row: repr.Row{repr.NewInt(id), repr.NewInt(price), repr.NewTimestamp(ts)}, Diff: 1})
			id++
		}
		t += stepUs
		sb.stepInput(Input{Updates: map[repr.CollectionID][]repr.Update{1: in}, Watermarks: map[repr.CollectionID]int64{1: t - 4_000_000}})
		sb.checkpoint()
	}
	for range 200 {
		next()
	}
	if spill && !sb.d.SpillNode(3, sb.reader, 1<<20) {
		b.Fatal("the join did not spill")
	}
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		next()
		n += perStep
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(n), "cpu-us/bid")
}
