package server

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/eddydb/eddy/server/connector/nexmark"
)

// BenchmarkNexmarkSplit generates 8192-row batches of bids (runNexmark's
// batch) on 1 and 2 workers and reports, besides wall time per batch, the
// process CPU per row: splitting should leave it as it is (the machine is
// shared, so wall time says little).
func BenchmarkNexmarkSplit(b *testing.B) {
	cfg := nexmark.DefaultConfig()
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			start := processCPU()
			var pos int64
			for range b.N {
				rows, after := generateSplit(n, ingestBatch, nexmarkBlock(cfg, nexmark.Bid, pos))
				if len(rows) != ingestBatch {
					b.Fatalf("%d rows", len(rows))
				}
				pos = after
			}
			cpu := (processCPU() - start).Seconds()
			b.ReportMetric(cpu*1e9/float64(b.N*ingestBatch), "cpu-ns/row")
		})
	}
}

// processCPU returns the user+sys CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
