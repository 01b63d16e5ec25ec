package server

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
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

// defaultMemoryFraction of the machine's memory (or of the cgroup's limit)
// is the default memory budget (--memory-limit).
const defaultMemoryFraction = 0.5

// DefaultMemoryLimit returns the default memory budget, defaultMemoryFraction
// of the cgroup memory limit (/sys/fs/cgroup/memory.max) when there is one,
// else of physical memory, and names where it came from. It returns 0
// when neither can be read.
func DefaultMemoryLimit() (int64, string) {
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return int64(float64(n) * defaultMemoryFraction), "cgroup memory.max"
		}
	}
	if total := PhysicalMemory(); total > 0 {
		return int64(float64(total) * defaultMemoryFraction), "physical memory"
	}
	return 0, "unknown"
}

// ApplyMemoryLimit makes limit (bytes, > 0) the process's soft memory
// limit (debug.SetMemoryLimit): the garbage collector runs more often as
// the heap nears it. The engine's budget (Config.MemoryLimit) is the same
// number, so collections spill to the store before the collector has to
// work hard. Once the server runs, a memoryFit lowers the soft limit by
// the memory outside the Go runtime.
func ApplyMemoryLimit(limit int64) {
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}

// minHeapFraction of the budget is the lowest soft memory limit a
// memoryFit sets: above the engine's work share of the budget (sql's
// workFraction, 0.7), so that the collector keeps room to work when
// standing memory and work fill that share, even when memory outside Go
// takes more of the budget than it should (small budgets: the process's
// own 30-40 MiB outside Go are a large part of them).
const minHeapFraction = 0.75

// memoryFit makes the soft memory limit the memory budget less the
// process's resident memory outside the Go runtime, so that the RSS, not
// just the Go runtime's memory, stays within the budget: with the whole
// budget as the soft limit the collector let the heap fill it and the
// RSS ran 12-17% over (BENCHMARKS.md). What lives outside Go is the
// store's (Pebble's block cache and memtables, C allocations: counted at
// the most they may hold, storeBound, since a memtable's pages become
// resident as fast as a checkpoint writes them, faster than the fit
// follows) and the rest (the binary's resident text, C libraries, cgo
// threads' stacks, malloc's overhead: counted at the most seen).
type memoryFit struct {
	budget int64
	// storeBound is the most the store holds outside Go under budget
	// (sql.StoreMemoryBound), zombie memtables aside.
	storeBound int64
	// other is the most resident memory seen outside both the Go runtime
	// and the store.
	other int64
}

// fit sets the soft memory limit given store, the bytes the store holds
// outside Go now (sql.Engine.StoreMemory), and returns the limit set.
// The server calls it every second (the ticker).
func (f *memoryFit) fit(store int64) int64 {
	f.other = max(f.other, outsideGo()-store)
	limit := heapLimit(f.budget, f.other+max(store, f.storeBound))
	debug.SetMemoryLimit(limit)
	return limit
}

// outsideGo returns the process's resident memory outside the Go
// runtime, erring low: the Go runtime's memory is read before and after
// the RSS and the larger read counts, so that memory Go takes or
// returns meanwhile is never counted as outside it.
func outsideGo() int64 {
	before := GoRuntimeBytes()
	rss := ResidentBytes()
	return rss - max(before, GoRuntimeBytes())
}

// heapLimit returns the soft memory limit for budget when outside bytes of
// resident memory are not the Go runtime's: the rest of the budget, but
// never below minHeapFraction of it.
func heapLimit(budget, outside int64) int64 {
	return max(budget-max(outside, 0), int64(float64(budget)*minHeapFraction))
}

// GoRuntimeBytes returns the memory the Go runtime holds from the
// operating system and has not returned: what its soft memory limit
// bounds.
func GoRuntimeBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// ResidentBytes returns the process's resident set size (from
// /proc/self/statm), or 0 if it cannot be read (not Linux): then the
// soft limit stays the budget.
func ResidentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// ParseByteSize parses a size such as 64MiB, 8GiB, 1.5GB or 1048576
// (bytes). Units: B, kB/KB, MB, GB, TB (powers of 1000) and KiB, MiB,
// GiB, TiB (powers of 1024); case-insensitive.
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := byteUnits[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v < 0 || v*float64(mult) >= 1<<63 {
		return 0, fmt.Errorf("invalid size %q (want e.g. 512MiB, 8GiB or a number of bytes)", s)
	}
	return int64(v * float64(mult)), nil
}

// byteUnits are ParseByteSize's units by lower-case name.
var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1000, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1000 * 1000, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1000 * 1000 * 1000, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1000 * 1000 * 1000 * 1000, "tib": 1 << 40,
}
