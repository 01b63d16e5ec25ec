package sql

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// The accountant's reading of the heap, cheap between collections. Both
// figures it reads (the live heap after the last collection and the
// number of collections) change only when a collection ends, yet
// runtime/metrics.Read takes a runtime-wide lock and gathers every P's
// heap statistics each time: once per statement's first reservation,
// which made it a lock all sessions' point reads met (7% of a point
// read's statement-layer time). A sentinel object whose finalizer
// re-arms itself ticks once per collection, so the reading is redone
// only after a tick, and after a collection the accountant forced
// (whose finalizers may not have run yet when runtime.GC returns). Until
// the finalizer goroutine runs after a collection, the previous reading
// stands: the accountant sees the collection a moment later, as if it
// had looked a moment earlier.

// gcTicks counts the collections the sentinel saw and those the
// accountant forced.
var gcTicks atomic.Uint64

var armGCSentinel sync.Once

// gcSentinel is allocated, unreachable, with a finalizer that counts a
// collection and arms the next sentinel. It is large enough not to be a
// tiny allocation (those share blocks and may never be finalized).
type gcSentinel struct{ _ [32]byte }

// newGCSentinel arms one sentinel.
func newGCSentinel() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		gcTicks.Add(1)
		newGCSentinel()
	})
}

// heapReading is one reading of the runtime's heap statistics, taken at
// sentinel tick tick.
type heapReading struct {
	live, gcs, tick uint64
}

// lastHeap is the last reading (nil: none yet).
var lastHeap atomic.Pointer[heapReading]

// cachedHeapStats is heapStats, read again only after a collection.
func cachedHeapStats() (live, gcs uint64) {
	armGCSentinel.Do(newGCSentinel)
	tick := gcTicks.Load()
	if r := lastHeap.Load(); r != nil && r.tick == tick {
		return r.live, r.gcs
	}
	live, gcs = heapStats()
	lastHeap.Store(&heapReading{live: live, gcs: gcs, tick: tick})
	return live, gcs
}

// collectAndRead runs a collection and makes the next reading fresh: it
// ticks too, so a reading another goroutine took before the collection
// and stores after it is stale at once (it carries the older tick).
func collectAndRead() {
	runtime.GC()
	gcTicks.Add(1)
}

// paceEvery is how much a large account's reported use grows between its
// looks at the runtime's memory (memAccount.Grow, pace).
const paceEvery = 4 << 20

// paceWait bounds one wait for the collector.
const paceWait = 250 * time.Millisecond

// softMemoryLimit returns the runtime's soft memory limit.
func softMemoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// overSoftLimit reports whether the Go runtime's memory, as the soft
// memory limit counts it (everything the runtime has mapped less what it
// returned to the operating system), is past that limit.
func overSoftLimit() bool {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return false
	}
	return int64(s[0].Value.Uint64()-s[1].Value.Uint64()) > softMemoryLimit()
}

// waitForCollector makes large work wait while the runtime's memory is
// past the soft limit, until a collection ends (at most paceWait). Past
// the limit the collector runs all the time but takes at most half the
// CPU, and under contention (other processes, the tests' parallel
// packages) it gets less: work allocating faster than it frees took the
// heap, and the RSS, 20% past the budget. Waiting makes the allocating
// work, not the process, pay: it yields the CPU to the collector and
// allocates nothing meanwhile. Below the limit it costs one read of the
// runtime's statistics.
func waitForCollector() {
	if !overSoftLimit() {
		return
	}
	armGCSentinel.Do(newGCSentinel)
	tick := gcTicks.Load()
	deadline := time.Now().Add(paceWait)
	for gcTicks.Load() == tick && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}
