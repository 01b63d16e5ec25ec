package server

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// gcPercent is the GOGC the server runs with unless GOGC is set. The heap
// is mostly the operators' long-lived state, so at the default 100 the
// collector re-marks all of it every time the heap grows by its own size:
// 25–33% of CPU in the Nexmark profiles (BENCHMARKS.md). 200 halves the
// number of cycles for at most 1.5x the heap between them; the soft memory
// limit below makes the collector run earlier again as the heap nears it,
// so the extra headroom is given back when memory gets tight.
const gcPercent = 200

// memLimitFraction of physical memory is the soft memory limit, unless
// GOMEMLIMIT is set.
const memLimitFraction = 0.75

// TuneGC applies the server's garbage-collector policy, gcPercent and the
// soft memory limit, to the process; the GOGC and GOMEMLIMIT environment
// variables, when set, win (the runtime has already applied them). The
// eddy binary calls it at start, and so does anything that measures the
// server in-process (the Nexmark benchmark), so both run the same way.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := PhysicalMemory(); total > 0 {
			debug.SetMemoryLimit(int64(float64(total) * memLimitFraction))
		}
	}
}

// PhysicalMemory returns MemTotal from /proc/meminfo in bytes, or 0 if it
// cannot be read (not Linux).
func PhysicalMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
