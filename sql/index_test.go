package sql

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var indexSeed = flag.Uint64("index-seed", 0, "seed of TestIndexRandomWrites (0: from the clock)")

// TestIndexRandomWrites runs random INSERTs, UPDATEs and DELETEs (some in
// rolled-back transactions, some across a crash or a clean restart)
// against a table and a materialized view with indexes, and checks after
// each step that every index equals the one built from its relation's
// rows, and that reads through the indexes answer as full scans do.
func TestIndexRandomWrites(t *testing.T) {
	seed := *indexSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -index-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 7})
	te.mustRun(`CREATE TABLE r (id int PRIMARY KEY, a int, b text);
CREATE INDEX r_a ON r (a);
CREATE INDEX r_b_a ON r (b, a);
CREATE TABLE m (a int, b text);
CREATE INDEX m_b ON m (b);
CREATE MATERIALIZED VIEW mv AS SELECT a, count(*) AS n FROM r GROUP BY a;
CREATE INDEX mv_n ON mv (n)`)
	for step := 0; step < 300; step++ {
		stmt := randomIndexWrite(rng)
		switch rng.IntN(25) {
		case 0:
			te.crash()
		case 1:
			te.restart()
		}
		if rng.IntN(10) == 0 { // the write, then a rollback
			te.mustRun("BEGIN")
			te.run(stmt)
			te.mustRun("ROLLBACK")
		} else {
			te.run(stmt) // duplicate keys fail; that is part of the test
		}
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
}
