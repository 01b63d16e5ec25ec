package sql

import (
	"fmt"
	"strings"
	"testing"
)

// opCacheViews is the number of views of TestOpCachesScaleWithBudget:
// enough that a 64th of the budget each (the bound before the pool) is
// twice the pool.
const opCacheViews = 8

// opCacheChunk is the rows of each write: small enough that eight views'
// maintenance fits a 64 MiB budget.
const opCacheChunk = 1000

// TestOpCachesScaleWithBudget checks that the caches of spilled
// operators share one pool scaled to the budget, however many operators
// spilled, and that the standing heap shrinks with the budget once
// everything has spilled. The table, eight aggregate views over it and
// their operator states spill while empty; 12,000 rows are loaded and
// then updated, every group read back, 1,000 rows a commit, each followed
// by a checkpoint that lets the operators evict. Their resident bytes
// together must then be within the pool (a 16th of the budget: a 64th
// each, the bound before the pool, held 1.5 times it under 128 MiB), and
// the live heap the engine keeps under a 128 MiB budget must be smaller
// than under a 256 MiB one by at least half the difference of their
// pools. Both are measures of what is live after a collection, not of
// time, so a loaded machine does not move them (it only slows the test:
// 48 synced commits per budget).
func TestOpCachesScaleWithBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 12,000 rows into eight spilled views, twice")
	}
	small, smallPool := standingAfterSpill(t, 128<<20)
	big, bigPool := standingAfterSpill(t, 256<<20)
	t.Logf("standing heap %.1f MiB under 128 MiB, %.1f MiB under 256 MiB", float64(small)/mib, float64(big)/mib)
	if small+(bigPool-smallPool)/2 > big {
		t.Errorf("standing heap %.1f MiB under 128 MiB, %.1f MiB under 256 MiB: want it smaller by at least %.1f MiB",
			float64(small)/mib, float64(big)/mib, float64(bigPool-smallPool)/2/mib)
	}
}

// standingAfterSpill runs TestOpCachesScaleWithBudget's load under a
// budget of limit bytes and returns the live heap the engine keeps
// afterwards and the pool of its operators' caches.
func standingAfterSpill(t *testing.T, limit int64) (standing, pool int64) {
	base := liveHeap()
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: limit}}
	te.open()
	defer func() { _ = te.e.Close() }()
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(estimateTable)
	for i := range opCacheViews {
		te.mustRun(fmt.Sprintf("CREATE MATERIALIZED VIEW agg%d AS SELECT g, count(*) AS n, max(pad) AS hi, min(v + %d) AS lo FROM big GROUP BY g", i, i))
	}
	if err := te.e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	spillEverything(t, te)
	const rows = 12_000
	for lo := 0; lo < rows; lo += opCacheChunk {
		if out := te.copyIn("COPY big FROM STDIN", estimateCopy(lo, opCacheChunk)); strings.HasPrefix(out, "ERROR") {
			t.Fatalf("COPY of rows %d-%d: %s", lo, lo+opCacheChunk, out)
		}
		if err := te.e.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	for lo := 0; lo < rows; lo += opCacheChunk {
		if out := te.mustRun(fmt.Sprintf("UPDATE big SET v = v + 1 WHERE k >= %d AND k < %d", lo, lo+opCacheChunk)); out != fmt.Sprintf("UPDATE %d\n", opCacheChunk) {
			t.Fatalf("UPDATE of rows %d-%d: %q", lo, lo+opCacheChunk, out)
		}
		if err := te.e.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	te.e.mu.Lock()
	var resident int64
	for _, mv := range te.e.views {
		r, _, _ := mv.df.SpillStats()
		resident += r
	}
	pool = limit / opCachePoolDivisor
	per := te.e.spill.opCache()
	te.e.mu.Unlock()
	t.Logf("budget %d MiB: %d operators' caches hold %.1f MiB (each at most %.2f MiB, pool %.1f MiB)",
		limit>>20, opCacheViews, float64(resident)/mib, float64(per)/mib, float64(pool)/mib)
	if resident > pool {
		t.Errorf("budget %d MiB: spilled operators keep %.1f MiB resident, more than the pool of %.1f MiB",
			limit>>20, float64(resident)/mib, float64(pool)/mib)
	}
	return liveHeap() - base, pool
}

// spillEverything spills the table, the views and every operator state
// of te's views (empty yet), as the spill policy does when the heap passes
// the budget's spill point (right after a checkpoint), so that the load
// runs with everything spilled whatever the budget; it checks that each
// view's operator spilled.
func spillEverything(t *testing.T, te *testEngine) {
	e := te.e
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, c := range e.colls {
		if e.spillable(id) {
			c.Spill(e.db)
		}
	}
	n := 0
	for id, mv := range e.views {
		for _, c := range mv.df.SpillCandidates() {
			e.spillOne(sizedState{id: id, node: c.Node, mv: mv})
		}
		n += len(mv.df.SpilledNodes())
	}
	e.shareOpCaches()
	if n < opCacheViews {
		t.Fatalf("%d operator states spilled, want at least %d", n, opCacheViews)
	}
}
