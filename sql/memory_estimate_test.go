package sql

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// estimateCase is one representative commit of TestMemoryEstimates: the
// schema it runs over, and the write measured.
type estimateCase struct {
	name  string
	setup []string
	// spilled spills every table and view before the measured writes.
	spilled bool
	// write is the measured write: a COPY of rows lo..lo+n-1 when copy,
	// else SQL with %d for lo and for lo+n-1.
	copy  bool
	write string
}

// estimateRows is the rows of each measured write: TestSpillReduceState's
// COPY chunk.
const estimateRows = 5000

var estimateTable = "CREATE TABLE big (k bigint PRIMARY KEY, g int NOT NULL, v int NOT NULL, pad text)"

var estimateCases = []estimateCase{
	{name: "table", setup: []string{estimateTable}, copy: true},
	{name: "groupby", setup: []string{estimateTable, reduceViewSQL}, copy: true},
	{name: "join", setup: []string{estimateTable, joinViewSQL}, copy: true},
	{name: "both", setup: []string{estimateTable, reduceViewSQL, joinViewSQL}, copy: true},
	{name: "both-spilled", setup: []string{estimateTable, reduceViewSQL, joinViewSQL}, copy: true, spilled: true},
	{name: "insert-select-groupby", setup: []string{"CREATE TABLE t (a int, b int)",
		"CREATE MATERIALIZED VIEW tg AS SELECT a % 100 AS g, count(*) AS n, sum(b) AS s FROM t GROUP BY 1"},
		write: "INSERT INTO t SELECT i, i FROM generate_series(%d, %d) i"},
	{name: "update-both", setup: []string{estimateTable, reduceViewSQL, joinViewSQL},
		write: "UPDATE big SET v = v + 1, pad = 'u' || pad WHERE k >= %d AND k <= %d"},
}

// The views of TestSpillReduceState (tests/spill_reduce_test.go).
const (
	reduceViewSQL = "CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(pad) AS hi FROM big GROUP BY g"
	joinViewSQL   = "CREATE MATERIALIZED VIEW sj AS SELECT a.k, a.v, b.v AS w FROM big a JOIN big b ON a.g = b.g AND a.k < b.k"
)

// estimateCopy returns the COPY data of rows lo..lo+n-1, shaped like
// TestSpillReduceState's (two rows per group, a 121-character pad).
func estimateCopy(lo, n int) string {
	var b strings.Builder
	for k := lo; k < lo+n; k++ {
		fmt.Fprintf(&b, "%d\t%d\t%d\tp%0120d\n", k, k%50000, k%997, k)
	}
	return b.String()
}

// liveHeap returns the live heap after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC() // finalizers queued by the first
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// measureWrite runs the write of rows lo..lo+n-1 and returns the live heap's
// growth over it and the sum of what the accounts released meanwhile used.
func (te *testEngine) measureWrite(c estimateCase, lo, n int) (live, est, after int64) {
	var mu sync.Mutex
	var before int64
	te.e.mem.onRelease = func(a *memAccount) {
		mu.Lock()
		defer mu.Unlock()
		est += a.used
		if a.maint {
			live = liveHeap() - before
		}
	}
	defer func() { te.e.mem.onRelease = nil }()
	var data string
	if c.copy {
		data = estimateCopy(lo, n) // the client's, before the measure
	}
	before = liveHeap()
	var out string
	if c.copy {
		out = te.copyIn("COPY big FROM STDIN", data)
	} else {
		out = te.run(fmt.Sprintf(c.write, lo, lo+n-1))
	}
	if strings.HasPrefix(out, "ERROR") {
		te.t.Fatalf("%s: %s", c.name, out)
	}
	after = liveHeap() - before
	return live, est, after
}

// estimateUnder and estimateOver bound the estimate of a write's memory
// as a multiple of the live heap's growth it measures (TestMemoryEstimates).
// The upper bound was 1.4 until the collections' B-tree (storage's
// entryTree) began to fill the leaves that serial keys leave behind:
// insert-select-groupby's live growth fell from 7.58 to 6.89 MiB with its
// estimate unchanged (1.34x to 1.47x); an over-estimate refuses work
// early, it never lets the heap pass the budget.
const (
	estimateUnder = 0.75
	estimateOver  = 1.5
)

// TestMemoryEstimates checks that what the memory accounts of
// representative commits estimate stays close to the live heap's growth
// over them: a COPY into a table alone, into one under a GROUP BY view
// with multisets, under a self-join view, under both (also spilled), an
// INSERT ... SELECT under a GROUP BY view, and an UPDATE under both. The
// growth is measured with a collection at the moment the commit's account
// is released (its work done, its changes and the statement's rows still
// live), from one before the statement. The estimate (what the
// statement's account and the commit's used) must be between
// estimateUnder and estimateOver of it over three writes: under-estimates
// are what the heap cross-check exists for, but must not be large, and
// over-estimates refuse work that fits. No checkpoint runs between the
// writes, so what they leave in the checkpoint batch and the collections'
// overlays is live when measured.
func TestMemoryEstimates(t *testing.T) {
	if testing.Short() {
		t.Skip("loads tens of thousands of rows")
	}
	for _, c := range estimateCases {
		t.Run(c.name, func(t *testing.T) {
			te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: 4 << 30}}
			te.open()
			t.Cleanup(func() { _ = te.e.Close() })
			te.e.SetCheckpointOptions(CheckpointOptions{})
			for _, s := range c.setup {
				te.mustRun(s)
			}
			// Rows that the UPDATE changes and the later writes join
			// with, loaded before the measures: each of the three
			// measured writes updates (or joins with) as many rows.
			for lo := 0; c.setup[0] == estimateTable && lo < 3*estimateRows; lo += estimateRows {
				te.copyIn("COPY big FROM STDIN", estimateCopy(lo, estimateRows))
			}
			if c.spilled {
				te.spillAll(t)
			} else if err := te.e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			lo := 100_000
			if c.write != "" && strings.HasPrefix(c.write, "UPDATE") {
				lo = 0
			}
			// Three writes, summed: a structure that doubles (a map, a
			// B-tree's node slice) grows in one of them.
			var live, est int64
			for i := range 3 {
				l, e, after := te.measureWrite(c, lo+i*estimateRows, estimateRows)
				t.Logf("write %d: live growth %.2f MiB (%.2f MiB once done), estimate %.2f MiB",
					i, float64(l)/mib, float64(after)/mib, float64(e)/mib)
				live, est = live+l, est+e
			}
			ratio := float64(est) / float64(max(live, 1))
			t.Logf("%s: estimate %.2f MiB, live growth %.2f MiB: %.2fx", c.name, float64(est)/mib, float64(live)/mib, ratio)
			if ratio < estimateUnder || ratio > estimateOver {
				t.Errorf("%s: estimate %.2f MiB is %.2fx the live growth %.2f MiB; want %.2fx to %.2fx",
					c.name, float64(est)/mib, ratio, float64(live)/mib, estimateUnder, estimateOver)
			}
		})
	}
}
