package sql

import (
	"fmt"
	"strings"
	"testing"
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
