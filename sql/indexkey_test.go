package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestExprIndexRandomWrites runs random INSERTs (some with ON CONFLICT
// on an expression and partial index), UPDATEs and DELETEs, some rolled
// back, some across a crash or a restart, against a table with
// expression, partial and NULLS NOT DISTINCT indexes and a materialized
// view with a partial expression index. After each step every index must
// equal the one built from its relation's rows, no restart may have found
// a stored index wrong, the UNIQUE indexes must hold, and reads through
// the indexes must answer as full scans do.
func TestExprIndexRandomWrites(t *testing.T) {
	rng := indexTestRand(t, 5)
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 5})
	te.mustRun(`CREATE TABLE e (id int PRIMARY KEY, a int, b text, live bool);
CREATE INDEX e_lower ON e (lower(b));
CREATE INDEX e_sum ON e ((a + id));
CREATE UNIQUE INDEX e_ua ON e (a, lower(b)) WHERE live;
CREATE INDEX e_live ON e (id) WHERE live;
CREATE UNIQUE INDEX e_nnd ON e (a, b) NULLS NOT DISTINCT WHERE NOT live;
CREATE MATERIALIZED VIEW eg AS SELECT b, count(*) AS n FROM e GROUP BY b;
CREATE INDEX eg_upper ON eg (upper(b)) WHERE n > 1`)
	before := indexRebuilds.Load()
	for step := 0; step < 250; step++ {
		stmt := randomExprIndexWrite(rng)
		te.randomStep(rng, stmt, 25)
		te.checkExprIndexes(t, step, stmt)
		if n := indexRebuilds.Load(); n != before {
			t.Fatalf("step %d: %d indexes were rebuilt at a restart (stored arrangement wrong)", step, n-before)
		}
		te.compareExprIndexReads(t, step, rng)
	}
}

// randomExprIndexWrite returns a random write to e.
func randomExprIndexWrite(rng *rand.Rand) string {
	id, a := rng.IntN(25), rng.IntN(5)
	b := "'" + []string{"p", "P", "q", "Q", "r"}[rng.IntN(5)] + "'"
	if rng.IntN(6) == 0 {
		b = "NULL"
	}
	live := []string{"true", "false", "NULL"}[rng.IntN(3)]
	switch rng.IntN(8) {
	case 0, 1:
		return fmt.Sprintf("INSERT INTO e VALUES (%d, %d, %s, %s)", id, a, b, live)
	case 2:
		return fmt.Sprintf("INSERT INTO e VALUES (%d, %d, %s, true) ON CONFLICT (lower(b), a) WHERE live DO UPDATE SET live = false", id, a, b)
	case 3:
		return fmt.Sprintf("INSERT INTO e VALUES (%d, %d, %s, true) ON CONFLICT (a, lower(b)) WHERE live AND id > 0 DO NOTHING", id, a, b)
	case 4:
		return fmt.Sprintf("UPDATE e SET live = %s WHERE lower(b) = lower(%s)", live, b)
	case 5:
		return fmt.Sprintf("UPDATE e SET a = %d WHERE a + id = %d", a, rng.IntN(30))
	case 6:
		return fmt.Sprintf("DELETE FROM e WHERE live AND id BETWEEN %d AND %d", id, id+4)
	}
	return fmt.Sprintf("DELETE FROM e WHERE lower(b) = %s", strings.ToLower(b))
}

// checkExprIndexes fails the test unless every index equals the one built
// from its relation's rows and the UNIQUE indexes hold.
func (te *testEngine) checkExprIndexes(t *testing.T, step int, stmt string) {
	t.Helper()
	te.e.mu.RLock()
	n := 0
	for id, c := range te.e.colls {
		if err := c.CheckIndexes(); err != nil {
			te.e.mu.RUnlock()
			t.Fatalf("step %d (%s): collection %d: %v", step, stmt, id, err)
		}
		n += len(c.Indexes())
	}
	te.e.mu.RUnlock()
	if n != 6 {
		t.Fatalf("step %d: %d indexes, want 6", step, n)
	}
	for _, q := range []string{
		"SELECT a, lower(b) FROM e WHERE live AND a IS NOT NULL AND b IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1",
		"SELECT a, b FROM e WHERE NOT live GROUP BY 1, 2 HAVING count(*) > 1",
	} {
		if out := te.mustRun(q); !strings.Contains(out, "SELECT 0") {
			t.Fatalf("step %d (%s): a UNIQUE index does not hold: %s\n%s", step, stmt, q, out)
		}
	}
}

// compareExprIndexReads runs random reads that the expression and
// partial indexes serve, and the same reads as full scans, which must
// agree.
func (te *testEngine) compareExprIndexReads(t *testing.T, step int, rng *rand.Rand) {
	t.Helper()
	a, id := rng.IntN(5), rng.IntN(25)
	b := []string{"p", "q", "r"}[rng.IntN(3)]
	for _, q := range []string{
		fmt.Sprintf("SELECT * FROM e WHERE lower(b) = '%s'", b),
		fmt.Sprintf("SELECT * FROM e WHERE a + id = %d", a+id),
		fmt.Sprintf("SELECT * FROM e WHERE live AND id BETWEEN %d AND %d", id, id+5),
		fmt.Sprintf("SELECT * FROM e WHERE live AND a = %d AND lower(b) = '%s'", a, b),
		"SELECT * FROM e WHERE live",
		fmt.Sprintf("SELECT * FROM eg WHERE upper(b) = '%s' AND n > 1", strings.ToUpper(b)),
	} {
		te.comparePointRead(t, step, q)
	}
}
