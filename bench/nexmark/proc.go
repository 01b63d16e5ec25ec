package main

import (
	"runtime/metrics"
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

// sampleMem records the RSS, the Go runtime's memory, the heap's
// objects (runtime/metrics, no stop-the-world) and store, the bytes
// Pebble holds outside Go, at an event count.
func sampleMem(events, store int64) Sample {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	var heap int64
	if s[0].Value.Kind() == metrics.KindUint64 {
		heap = int64(s[0].Value.Uint64())
	}
	return Sample{Events: events, RSSMB: server.ResidentBytes() >> 20, GoMB: server.GoRuntimeBytes() >> 20, HeapMB: heap >> 20, StoreMB: store >> 20}
}

// physicalMemory returns the machine's memory in bytes (MemTotal), or 8 GiB
// when it cannot be read.
func physicalMemory() int64 {
	if m := server.PhysicalMemory(); m > 0 {
		return int64(m)
	}
	return 8 << 30
}
