package sql

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// TestSpillDDLBlock runs DDL transaction blocks (CREATE INDEX, a view
// whose backfill checkpoints, ALTER TABLE rewriting rows, ROLLBACK) over
// a spilled table on an engine that spills everything at every
// checkpoint, and checks every statement's output against an engine that
// never spills, then again after a restart.
func TestSpillDDLBlock(t *testing.T) {
	ref, sub := newTestEngine(t), newTestEngine(t)
	sub.e.spill.all = true
	var rows []string
	for i := range 400 {
		rows = append(rows, fmt.Sprintf("(%d, %d, 'r%d')", i, i%13, i))
	}
	script := []string{
		"CREATE TABLE t (k int PRIMARY KEY, g int, s text)",
		"INSERT INTO t VALUES " + strings.Join(rows, ", "),
		"BEGIN; CREATE INDEX tg ON t (g); CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g; " +
			"INSERT INTO t VALUES (1000, 3, 'x'); SELECT k, s FROM t WHERE g = 3 ORDER BY k; COMMIT",
		"SELECT k, s FROM t WHERE g = 3 ORDER BY k",
		"DELETE FROM t WHERE k % 5 = 0",
		"BEGIN; DROP INDEX tg; CREATE INDEX tg2 ON t (g, s); UPDATE t SET g = g + 1 WHERE k % 7 = 0; ROLLBACK",
		"SELECT k, s FROM t WHERE g = 4 ORDER BY k",
		"BEGIN; ALTER TABLE t ADD COLUMN z int DEFAULT 7; CREATE INDEX tz ON t (z, k); COMMIT",
		"UPDATE t SET z = k WHERE g = 2",
		"SELECT k, z FROM t WHERE z < 50 ORDER BY k",
		"SELECT * FROM v ORDER BY g",
	}
	check := func(when string) {
		for _, q := range []string{"SELECT * FROM v ORDER BY g", "SELECT k, s FROM t WHERE g = 3 ORDER BY k",
			"SELECT k, z FROM t WHERE z < 50 ORDER BY k", "SELECT count(*), sum(k) FROM t"} {
			if a, b := ref.run(q), sub.run(q); a != b {
				t.Fatalf("%s: %s\nreference: %s\nspilled: %s", when, q, a, b)
			}
		}
	}
	for _, stmt := range script {
		if a, b := ref.run(stmt), sub.run(stmt); a != b || strings.Contains(a, "ERROR") {
			t.Fatalf("%s\nreference: %s\nspilled: %s", stmt, a, b)
		}
		if err := sub.e.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	if sub.e.SpilledCollections() < 2 {
		t.Fatalf("%d collections spilled, want the table and the view", sub.e.SpilledCollections())
	}
	check("after the script")
	sub.restart()
	sub.e.spill.all = true
	check("after a restart")
}

// TestMaintenancePressureSpills checks that a commit whose maintenance
// took standing memory plus reservations past pressureFraction makes the
// next commit checkpoint and spill state, although standing memory is
// under spillFraction (where nothing spilled before), and that the view
// stays equal to its query.
func TestMaintenancePressureSpills(t *testing.T) {
	const limit = 64 * mib
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: limit}}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	m := te.e.mem
	standing, gcs := int64(0), uint64(1)
	m.heap = func() (uint64, uint64) { return uint64(standing + m.reservedBytes()), gcs }
	te.mustRun("CREATE TABLE t (k int, g int)")
	te.mustRun("CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n, min(k) AS lo FROM t GROUP BY g")
	fillSpillTest(te)
	te.e.SetCheckpointOptions(CheckpointOptions{}) // only the checkpoints asked for
	standing, gcs = int64(limit)*45/100, 2
	m.released.Store(0) // the set-up's commits are long gone
	spilled := func() int { return te.e.SpilledCollections() + te.e.SpilledOperators() }
	te.mustRun("INSERT INTO t VALUES (0, 0)")
	if err := te.e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if n := spilled(); n != 0 {
		t.Fatalf("%d states spilled with standing memory under the spill point", n)
	}
	commit := m.account("a commit")
	commit.maint = true
	if err := commit.Grow(13 * mib); err != nil || !m.wantsSpill() {
		t.Fatalf("a commit's 13 MiB over %d MiB standing: err %v, spill wanted %v", standing/mib, err, m.wantsSpill())
	}
	commit.release()
	te.e.mu.Lock()
	te.e.ck.last = time.Time{} // past spillCheckpointEvery
	te.e.mu.Unlock()
	te.mustRun("INSERT INTO t VALUES (1, 1)")
	if spilled() == 0 || m.wantsSpill() {
		t.Fatalf("after the commit following maintenance pressure: %d states spilled, spill still wanted %v", spilled(), m.wantsSpill())
	}
	te.mustRun("DELETE FROM t WHERE k % 3 = 0")
	// The recomputation below holds its own 40,000-group Reduce (about
	// 16 MiB, charged chunk by chunk): it is the check, not the subject,
	// so the simulated standing memory goes back to nothing for it.
	standing, gcs = 0, 3
	q := "SELECT count(*), sum(n), sum(lo) FROM "
	if a, b := te.run(q+"v"), te.run(q+"(SELECT g, count(*) AS n, min(k) AS lo FROM t GROUP BY g) s"); a != b {
		t.Fatalf("view %s, query %s", a, b)
	}
}

// TestRefusedQueryMakesRoom checks that a query refused because standing
// memory fills the budget (past the spill point, while the query would
// fit beside state at the spill point) spills state before its 53200
// returns, so that its next attempt succeeds, while a runaway query
// refused with standing memory under the spill point spills nothing. The heap is simulated:
// standing memory is a fixed overhead plus the estimate of the state
// still in memory, measured afresh at every collection.
func TestRefusedQueryMakesRoom(t *testing.T) {
	const limit = 64 * mib
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: limit}}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	m, e := te.e.mem, te.e
	standing, gcs := int64(0), uint64(1)
	m.heap = func() (uint64, uint64) { return uint64(standing + m.reservedBytes()), gcs }
	te.mustRun("CREATE TABLE t (k int, g int)")
	te.mustRun("CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n, min(k) AS lo FROM t GROUP BY g")
	fillSpillTest(te)
	te.e.SetCheckpointOptions(CheckpointOptions{}) // only the checkpoints asked for
	// resident reads the engine unlocked: the test runs one statement at
	// a time.
	resident := func() int64 {
		var n int64
		for id, c := range e.colls {
			if e.spillable(id) && !c.Spilled() {
				n += c.MemBytes()
			}
		}
		for _, mv := range e.views {
			for _, c := range mv.df.SpillCandidates() {
				n += c.Bytes
			}
		}
		return n
	}
	overhead := int64(limit)*45/100 - resident() // standing at 45%: under the spill point
	standing, gcs = overhead+resident(), gcs+1
	m.collect = func() { standing, gcs = overhead+resident(), gcs+1 }
	m.released.Store(0)
	spilled := func() int { return e.SpilledCollections() + e.SpilledOperators() }
	te.expectOOM("SELECT * FROM t a, t b ORDER BY 1", "statement")
	if n := spilled(); n != 0 || m.wantsSpill() {
		t.Fatalf("after a refused runaway query: %d states spilled, spill wanted %v; want neither", n, m.wantsSpill())
	}
	overhead += int64(limit) * 23 / 100 // standing at 68%: past the spill point, under the cap
	m.collect()
	m.released.Store(0)
	q := "SELECT i, repeat('x', 100) FROM generate_series(1, 30000) i ORDER BY i DESC"
	te.expectOOM(q, "statement")
	if spilled() == 0 || m.wantsSpill() {
		t.Fatalf("after a query refused for standing memory: %d states spilled, spill still wanted %v", spilled(), m.wantsSpill())
	}
	if lim := int64(limit) / 2; standing > lim {
		t.Fatalf("standing memory %d MiB after the spill, want at most %d MiB", standing/mib, lim/mib)
	}
	if out := te.run(q); !strings.HasSuffix(out, "SELECT 30000\n") {
		t.Fatalf("the query's second attempt: %.300s", out)
	}
	// The recomputation below holds its own 40,000-group Reduce: it is
	// the check, not the subject, so the simulated heap empties for it.
	overhead, standing, gcs = -resident(), 0, gcs+1
	q = "SELECT count(*), sum(n), sum(lo) FROM "
	if a, b := te.run(q+"v"), te.run(q+"(SELECT g, count(*) AS n, min(k) AS lo FROM t GROUP BY g) s"); a != b {
		t.Fatalf("view %s, query %s", a, b)
	}
}

// TestStoredBytes checks eddy_dataflow_operators' stored_bytes: NULL for
// an operator whose state is in memory, and for a spilled one an
// estimate of its state in the store that grows with it, beside its
// resident state_bytes.
func TestStoredBytes(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun("CREATE TABLE t (k int, g int, s text)")
	te.mustRun("CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n, max(s) AS hi FROM t GROUP BY g")
	q := "SELECT operator, stored_bytes FROM eddy_dataflow_operators WHERE viewname = 'v' AND stored_bytes IS NOT NULL"
	stored := func(when string) int64 {
		t.Helper()
		if err := te.e.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		if err := te.e.db.Flush(); err != nil {
			t.Fatal(err)
		}
		out := te.run(q)
		var n int64
		if _, err := fmt.Sscanf(out, "operator | stored_bytes\nReduce | %d\nSELECT 1\n", &n); err != nil {
			t.Fatalf("%s: %s\n%s: want the Reduce's stored bytes alone", when, q, out)
		}
		return n
	}
	te.mustRun("INSERT INTO t SELECT i, i % 5000, repeat('s', 50) || i FROM generate_series(1, 10000) i")
	te.expect(q, "operator | stored_bytes\nSELECT 0\n")
	te.e.spill.all = true
	te.mustRun("INSERT INTO t VALUES (0, 0, 'x')") // the next checkpoint spills everything
	small := stored("spilled")
	te.mustRun("INSERT INTO t SELECT i, i % 50000, repeat('s', 50) || i FROM generate_series(10001, 100000) i")
	large := stored("spilled, ten times the groups")
	if small <= 0 || large < 5*small {
		t.Fatalf("stored bytes %d for 5,000 groups, %d for 50,000: want more than 0, growing with the groups", small, large)
	}
}

// TestRestartSettlesMemory checks that start-up ends by measuring the
// heap and running the spill policy on it: the restore loads the state
// by its estimate (here far under the bound) while the live heap is past
// the spill point, so state spills before the first statement, without
// waiting for a checkpoint, and the views still read right.
func TestRestartSettlesMemory(t *testing.T) {
	defer func(n int64) { minSpillBytes = n }(minSpillBytes)
	minSpillBytes = 0
	// Unaccounted: the test process's own heap passes this budget.
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: 4 * mib}, unaccounted: true}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	te.mustRun("CREATE TABLE t (k int PRIMARY KEY, g int)")
	te.mustRun("CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g")
	te.mustRun("INSERT INTO t SELECT i, i % 100 FROM generate_series(1, 1000) i")
	te.restart()
	if n := te.e.SpilledCollections() + te.e.SpilledOperators(); n == 0 {
		t.Fatal("nothing spilled at start-up with the live heap past the spill point")
	}
	te.expect("SELECT count(*), sum(n) FROM v", "count | sum\n100 | 1000\nSELECT 1\n")
}

// fillSpillTest loads the spill tests' 50,000 rows in 40,000 groups in
// five statements: each statement's result and its maintenance (the new
// groups' state, all of it accounted) fit the tests' 64 MiB together.
func fillSpillTest(te *testEngine) {
	for lo := 1; lo <= 50000; lo += 10000 {
		te.mustRun(fmt.Sprintf("INSERT INTO t SELECT i, i %% 40000 FROM generate_series(%d, %d) i", lo, lo+9999))
	}
}

// TestStoreOptionsMemtables checks that a memory budget bounds Pebble's
// memtables at a sixteenth of it, up to storage's default, and that no
// budget leaves the default.
func TestStoreOptionsMemtables(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  uint64
	}{
		{0, 0}, // storage.DefaultMemTableSize
		{16 << 20, 4 << 20},
		{1 << 30, 64 << 20},
		{3 << 30, 192 << 20},
		{8 << 30, storage.DefaultMemTableSize},
	} {
		if got := storeOptions(Options{MemoryLimit: c.limit}).MemTableSize; got != c.want {
			t.Errorf("budget %d: memtable %d, want %d", c.limit, got, c.want)
		}
	}
}

// TestRefusedCommitRetried checks that a commit refused because pending
// state (the checkpoint batch and the views' deferred state, not yet
// written) fills the budget succeeds on its own: the refusal checkpoints
// at once, although the last checkpoint is recent and nothing can spill,
// the heap is measured afresh, and the commit is applied once more; and
// that a refusal with nothing pending writes no checkpoint and fails. The
// heap is simulated: the reservations, plus, from the moment the commit
// under test ticks the clock until a checkpoint, the whole budget (as if
// its pending state filled it).
func TestRefusedCommitRetried(t *testing.T) {
	const limit = 64 * mib
	defer func(n int64) { minSpillBytes = n }(minSpillBytes)
	minSpillBytes = 1 << 40 // nothing spills: only the checkpoint makes room
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: limit}}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	m, e := te.e.mem, te.e
	te.mustRun("CREATE TABLE t (k int, g int)")
	te.mustRun("CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n, min(k) AS lo FROM t GROUP BY g")
	e.SetCheckpointOptions(CheckpointOptions{}) // only the checkpoints asked for
	// The heap is read by statements between commits and by commits
	// under the engine lock, one statement at a time: the clock and the
	// checkpoint count are read unlocked here. Every reading is a fresh
	// measure (gcs never repeats).
	clock, count, gcs := repr.Time(math.MaxUint64), -1, uint64(1)
	m.heap = func() (uint64, uint64) {
		gcs++
		live := m.reservedBytes()
		if e.clock > clock && e.ck.count == count {
			live += limit
		}
		return uint64(live), gcs
	}
	te.mustRun("INSERT INTO t SELECT i, i % 400 FROM generate_series(1, 1000) i")
	arm := func() {
		e.mu.Lock()
		clock, count = e.clock, e.ck.count
		e.ck.last = time.Now() // recent: the periodic spill policy would wait
		e.mu.Unlock()
	}
	arm()
	te.mustRun("INSERT INTO t SELECT i, i FROM generate_series(1001, 2000) i")
	if e.ck.count != count+1 {
		t.Fatalf("after the refused commit: %d checkpoints, want 1", e.ck.count-count)
	}
	if n := e.SpilledCollections() + e.SpilledOperators(); n != 0 {
		t.Fatalf("%d states spilled; want the checkpoint alone to make room", n)
	}
	// A table no view reads: its refused commit leaves nothing to
	// write (a view's rolled-back Step leaves its groups marked, which
	// costs the checkpoint a rewrite: reduce_defer.go).
	te.mustRun("CREATE TABLE u (k int)")
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	arm()
	te.expectOOM("INSERT INTO u SELECT i FROM generate_series(1, 1000) i", "a commit")
	if e.ck.count != count {
		t.Fatalf("a refusal with nothing pending wrote %d checkpoints", e.ck.count-count)
	}
	clock = math.MaxUint64
	te.expect("SELECT count(*), max(k) FROM t", "count | max\n2000 | 2000\nSELECT 1\n")
	q := "SELECT count(*), sum(n), sum(lo) FROM "
	if a, b := te.run(q+"v"), te.run(q+"(SELECT g, count(*) AS n, min(k) AS lo FROM t GROUP BY g) s"); a != b {
		t.Fatalf("view %s, query %s", a, b)
	}
}
