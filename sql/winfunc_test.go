package sql

import "testing"

// TestWindowViewRestart maintains a view of window functions (offsets,
// ranks, running and sliding aggregates, two windows) across restarts,
// once restoring the Window operators' per-partition state from a
// checkpoint after every commit and once replaying the input log, and
// checks it against its query after updates and deletes inside and
// across partitions.
func TestWindowViewRestart(t *testing.T) {
	for _, opts := range []CheckpointOptions{{Commits: 1}, {}} {
		te := newTestEngine(t)
		te.e.SetCheckpointOptions(opts)
		const query = `SELECT id, g, lag(v) OVER w AS prev, sum(v) OVER w AS run,
  avg(v) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS slide, rank() OVER (ORDER BY v DESC, id) AS rk
FROM t WINDOW w AS (PARTITION BY g ORDER BY id)`
		runAll(t, te, `CREATE TABLE t (id int PRIMARY KEY, g int, v int);
CREATE MATERIALIZED VIEW v AS `+query+`;
INSERT INTO t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 5), (4, 1, 30), (5, 2, NULL), (6, NULL, 7)`)
		sameAsQuery(t, te, query)
		te.restart()
		sameAsQuery(t, te, query)
		runAll(t, te, `UPDATE t SET v = 25 WHERE id = 2; DELETE FROM t WHERE id = 1; INSERT INTO t VALUES (7, 2, 1)`)
		sameAsQuery(t, te, query)
		te.restart()
		runAll(t, te, `UPDATE t SET g = 2 WHERE id = 4; DELETE FROM t WHERE g IS NULL; INSERT INTO t VALUES (8, 1, 8)`)
		sameAsQuery(t, te, query)
	}
}
