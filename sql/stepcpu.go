package sql

import "golang.org/x/sys/unix"

// stepCPU accounts the CPU time of maintaining each materialized view, for
// eddy_dataflow_operators (step_count, step_cpu_ns): which views a batch
// of writes costs most is otherwise unknown (a profile of a small batch
// has too few samples to rank 22 views). The time is the process's CPU
// clock (CLOCK_PROCESS_CPUTIME_ID) across the view's step, so that the
// shards a step runs on other goroutines count (exec's runner pool); it
// also counts whatever else the process ran meanwhile (other sessions'
// statements, the collector, Pebble's compactions), so it is exact only
// on a server doing nothing else, as bench/tpch's refresh batches are.
// One clock read per stepped view and one per commit (a system call:
// ~1 µs on a quiet core, a few under load) is the cost.
type stepCPU struct {
	// count is the number of steps since the engine started (committed or
	// not); ns their CPU time in nanoseconds.
	count, ns int64
}

// processCPU returns the process's CPU time in nanoseconds (0 when the
// clock cannot be read).
func processCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// add records one step that began at process CPU time start and returns
// the time it ended, the next step's start.
func (s *stepCPU) add(start int64) int64 {
	end := processCPU()
	s.count++
	if end > start {
		s.ns += end - start
	}
	return end
}
