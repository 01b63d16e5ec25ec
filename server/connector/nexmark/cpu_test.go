package nexmark

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the user+sys CPU time of the process so far. The
// machine is shared, so benchmarks report CPU time per operation next to
// wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports CPU ns per op and ops per CPU-second (unit per) of a
// benchmark loop that started at CPU time start.
func reportCPU(b *testing.B, start time.Duration, per string) {
	cpu := (processCPU() - start).Seconds()
	if cpu <= 0 {
		return
	}
	b.ReportMetric(cpu*1e9/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/cpu, per)
}
