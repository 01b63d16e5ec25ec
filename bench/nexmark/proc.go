package main

import (
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/eddydb/eddy/server"
)

// cpuTime returns the user+sys CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS returns the process's peak resident set size in bytes.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10 // KiB on Linux
}

// currentRSS returns the resident set size now (from /proc/self/statm).
func currentRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// sampleMem records RSS and the live heap (runtime/metrics, no
// stop-the-world) at an event count.
func sampleMem(events int64) Sample {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	var v [3]int64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s[i].Value.Uint64())
		}
	}
	return Sample{Events: events, RSSMB: currentRSS() >> 20, GoMB: (v[1] - v[2]) >> 20, HeapMB: v[0] >> 20}
}

// physicalMemory returns the machine's memory in bytes (MemTotal), or 8 GiB
// when it cannot be read.
func physicalMemory() int64 {
	if m := server.PhysicalMemory(); m > 0 {
		return int64(m)
	}
	return 8 << 30
}
