package sql

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var indexSeed = flag.Uint64("index-seed", 0, "seed of TestIndexRandomWrites (0: from the clock)")

// TestIndexRandomWrites runs random INSERTs, UPDATEs and DELETEs (some in
// rolled-back transactions, some across a crash or a clean restart)
// against tables and a materialized view with indexes, and checks after
// each step that every index equals the one built from its relation's
// rows, that reads through the indexes answer as full scans do, and that
// a join view reading a shared arrangement (and the same join run ad hoc
// through it) equals the join computed with private arrangements.
func TestIndexRandomWrites(t *testing.T) {
	rng := indexTestRand(t, 3)
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 7})
	te.mustRun(`CREATE TABLE r (id int PRIMARY KEY, a int, b text);
CREATE INDEX r_a ON r (a);
CREATE INDEX r_b_a ON r (b, a);
CREATE TABLE m (a int, b text);
CREATE INDEX m_b ON m (b);
CREATE MATERIALIZED VIEW mv AS SELECT a, count(*) AS n FROM r GROUP BY a;
CREATE INDEX mv_n ON mv (n);
CREATE MATERIALIZED VIEW mj AS SELECT r.id, m.a, m.b FROM r JOIN m ON m.b = r.b`)
	if plan := te.e.cat.lookup("", "mj").Plan; !strings.Contains(plan, "shared=") {
		t.Fatalf("the join view reads no shared arrangement:\n%s", plan)
	}
	for step := 0; step < 300; step++ {
		stmt := randomIndexWrite(rng)
		te.randomStep(rng, stmt, 25)
		te.checkIndexes(t, step, stmt)
		if n := indexRebuilds.Load(); n != 0 {
			t.Fatalf("step %d: %d indexes were rebuilt at a restart (stored arrangement wrong)", step, n)
		}
		te.compareIndexReads(t, step, rng)
	}
}

// randomIndexWrite returns a random write to r or m.
func randomIndexWrite(rng *rand.Rand) string {
	a, b, id := rng.IntN(6), "'"+string(rune('p'+rng.IntN(4)))+"'", rng.IntN(30)
	if rng.IntN(6) == 0 {
		b = "NULL"
	}
	switch rng.IntN(7) {
	case 0, 1:
		return fmt.Sprintf("INSERT INTO r VALUES (%d, %d, %s)", id, a, b)
	case 2:
		return fmt.Sprintf("UPDATE r SET a = %d WHERE a = %d", a, rng.IntN(6))
	case 3:
		return fmt.Sprintf("UPDATE r SET b = %s WHERE id BETWEEN %d AND %d", b, id, id+3)
	case 4:
		return fmt.Sprintf("DELETE FROM r WHERE a = %d AND b = %s", a, b)
	case 5:
		return fmt.Sprintf("INSERT INTO m VALUES (%d, %s), (%d, %s)", a, b, a, b)
	}
	return fmt.Sprintf("DELETE FROM m WHERE b IN (%s, 'q')", b)
}

// checkIndexes fails the test unless every collection's indexes equal
// the ones built from its rows.
func (te *testEngine) checkIndexes(t *testing.T, step int, stmt string) {
	t.Helper()
	te.e.mu.RLock()
	defer te.e.mu.RUnlock()
	n := 0
	for id, c := range te.e.colls {
		if err := c.CheckIndexes(); err != nil {
			t.Fatalf("step %d (%s): collection %d: %v", step, stmt, id, err)
		}
		n += len(c.Indexes())
	}
	if n != 4 {
		t.Fatalf("step %d: %d indexes, want 4", step, n)
	}
}

// compareIndexReads runs random reads through the indexes and as full
// scans, which must agree.
func (te *testEngine) compareIndexReads(t *testing.T, step int, rng *rand.Rand) {
	t.Helper()
	lo := rng.IntN(6)
	for _, q := range []string{
		fmt.Sprintf("SELECT * FROM r WHERE a = %d", lo),
		fmt.Sprintf("SELECT * FROM r WHERE a BETWEEN %d AND %d", lo, lo+2),
		fmt.Sprintf("SELECT * FROM r WHERE b = 'q' AND a >= %d", lo),
		"SELECT * FROM m WHERE b IN ('p', 'r')",
		fmt.Sprintf("SELECT * FROM mv WHERE n = %d", 1+rng.IntN(3)),
	} {
		te.comparePointRead(t, step, q)
	}
	join := "SELECT r.id, m.a, m.b FROM r JOIN m ON m.b = r.b"
	before := sharedJoinCount.Load()
	view, shared := te.mustRun("SELECT * FROM mj"), te.mustRun(join)
	if sharedJoinCount.Load() == before {
		t.Fatalf("step %d: %s read no shared arrangement", step, join)
	}
	disableSharedJoins = true
	private := te.mustRun(join)
	disableSharedJoins = false
	if sortedLines(view) != sortedLines(private) || sortedLines(shared) != sortedLines(private) {
		t.Fatalf("step %d: view\n%s\nad hoc through the index\n%s\nwith private arrangements\n%s", step, view, shared, private)
	}
}

// indexTestRand returns the random source of a randomized index test
// (stream tells the tests apart), seeded by -index-seed or else the clock,
// and logs the seed.
func indexTestRand(t *testing.T, stream uint64) *rand.Rand {
	seed := *indexSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -index-seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// randomStep runs stmt as one step of a randomized test: first, one time
// in crashOdds each, a crash or a clean restart; then the statement, one
// time in ten inside a transaction that is rolled back. The statement may
// fail (a duplicate key): that is part of the test.
func (te *testEngine) randomStep(rng *rand.Rand, stmt string, crashOdds int) {
	switch rng.IntN(crashOdds) {
	case 0:
		te.crash()
	case 1:
		te.restart()
	}
	if rng.IntN(10) == 0 {
		te.mustRun("BEGIN")
		te.run(stmt)
		te.mustRun("ROLLBACK")
		return
	}
	te.run(stmt)
}

// comparePointRead fails the test unless query q reads through an index
// and answers as a full scan does.
func (te *testEngine) comparePointRead(t *testing.T, step int, q string) {
	t.Helper()
	before := pointReadCount.Load()
	fast := te.mustRun(q)
	if pointReadCount.Load() == before {
		t.Fatalf("step %d: %s did not read through an index", step, q)
	}
	disablePointReads = true
	slow := te.mustRun(q)
	disablePointReads = false
	if sortedLines(fast) != sortedLines(slow) {
		t.Fatalf("step %d: %s\nthrough the index:\n%s\nfull scan:\n%s", step, q, fast, slow)
	}
}
