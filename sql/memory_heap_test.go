package sql

import (
	"runtime"
	"testing"
	"time"
)

// TestCachedHeapStats checks that the accountant's cached reading of the
// heap sees a forced collection at once and any other collection once
// the sentinel's finalizer ran, and is not read again in between.
func TestCachedHeapStats(t *testing.T) {
	_, gcs0 := cachedHeapStats()
	collectAndRead()
	_, gcs1 := cachedHeapStats()
	if gcs1 <= gcs0 {
		t.Fatalf("after a forced collection the reading still has %d collections (before: %d)", gcs1, gcs0)
	}
	tick := gcTicks.Load()
	r := lastHeap.Load()
	if live, gcs := cachedHeapStats(); gcTicks.Load() == tick && (lastHeap.Load() != r || live != r.live || gcs != r.gcs) {
		t.Fatalf("no collection, yet the heap was read again")
	}
	runtime.GC() // not through the accountant: seen when its finalizer ran
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, gcs := cachedHeapStats(); gcs > gcs1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a collection was not seen within 10 s (ticks %d, then %d)", tick, gcTicks.Load())
		}
		time.Sleep(time.Millisecond)
	}
}
