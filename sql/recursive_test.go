package sql

import "testing"

// TestRecursiveViewRestart maintains a WITH RECURSIVE view (transitive
// closure over a graph with cycles) across restarts, once restoring the
// loop's per-iteration state from a checkpoint after every commit and once
// replaying the input log, and checks it against its query after edge
// insertions and deletions that break and re-close cycles.
func TestRecursiveViewRestart(t *testing.T) {
	for _, opts := range []CheckpointOptions{{Commits: 1}, {}} {
		te := newTestEngine(t)
		te.e.SetCheckpointOptions(opts)
		const query = `WITH RECURSIVE p(src, dst) AS (SELECT a, b FROM e UNION SELECT p.src, e.b FROM p JOIN e ON p.dst = e.a)
SELECT src, dst FROM p`
		runAll(t, te, `CREATE TABLE e (a int, b int);
CREATE MATERIALIZED VIEW v AS `+query+`;
INSERT INTO e VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 4)`)
		sameAsQuery(t, te, query)
		te.restart()
		sameAsQuery(t, te, query)
		runAll(t, te, `DELETE FROM e WHERE a = 3 AND b = 4; INSERT INTO e VALUES (1, 6)`)
		sameAsQuery(t, te, query)
		te.restart()
		runAll(t, te, `DELETE FROM e WHERE a = 2; INSERT INTO e VALUES (6, 4); UPDATE e SET b = 2 WHERE a = 5`)
		sameAsQuery(t, te, query)
	}
}
