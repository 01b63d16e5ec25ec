package sql

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

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
  avg(v) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS slide, rank() OVER (ORDER BY v DESC, id) AS rk,
  sum(id) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING EXCLUDE TIES) AS near,
  count(*) OVER (ORDER BY v DESC GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS grp,
  lag(id, g, 0) OVER w AS lagg, string_agg(id::text, ',') OVER (w RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS ids
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

// winSeed seeds TestWindowViewsRandom (0: time-based).
var winSeed = flag.Uint64("window-seed", 0, "seed of TestWindowViewsRandom (0: time-based)")

// windowRandomViews are the views of TestWindowViewsRandom over
// t(id, g, o, v): ties in o and NULLs in g, o and v abound; functions
// sensitive to the order of peers order by (o, id), which is total, so a
// view and its query agree whatever columns their plans carry.
var windowRandomViews = map[string]string{
	"ranks": `SELECT id, row_number() OVER (PARTITION BY g ORDER BY o, id), rank() OVER (PARTITION BY g ORDER BY o),
  dense_rank() OVER (PARTITION BY g ORDER BY o DESC NULLS LAST), ntile(3) OVER (PARTITION BY g ORDER BY o, id),
  percent_rank() OVER (ORDER BY o), cume_dist() OVER (PARTITION BY g % 2 ORDER BY v) FROM t`,
	"values": `SELECT id, lag(v, 2, -1) OVER w, lead(v) OVER w, first_value(v) OVER w, last_value(v) OVER w,
  nth_value(v, 2) OVER w FROM t WINDOW w AS (PARTITION BY g ORDER BY o, id)`,
	"frames": `SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o),
  count(*) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
  min(v) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING),
  max(v) OVER (ORDER BY o, id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING), avg(v) OVER (PARTITION BY g) FROM t`,
	"offsets": `SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING),
  count(*) OVER (PARTITION BY g ORDER BY o DESC RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING EXCLUDE TIES),
  max(v) OVER (ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP),
  min(v) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW),
  first_value(o) OVER (PARTITION BY g ORDER BY o NULLS FIRST RANGE BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW),
  lag(v, g, o) OVER (PARTITION BY g % 2 ORDER BY o, id), ntile(g + 1) OVER (ORDER BY o, id) FROM t`,
	"grouped": `SELECT g, sum(v), rank() OVER (ORDER BY sum(v) DESC NULLS LAST), sum(count(*)) OVER (ORDER BY g) AS running
  FROM t GROUP BY g`,
	"ranked": `SELECT * FROM (SELECT id, g, rank() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM t) s WHERE r <= 2`,
	"topk":   `SELECT * FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM t) s WHERE rn <= 2`,
}

// TestWindowViewsRandom maintains views of window functions through
// random batches of inserts, updates (of the partition key, the order key
// and the values) and deletes, with restarts, and checks after every
// batch that each view equals its query run from scratch.
func TestWindowViewsRandom(t *testing.T) {
	seed := *winSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -window-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^13))
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 3})
	runAll(t, te, "CREATE TABLE t (id int PRIMARY KEY, g int, o int, v int)")
	for name, q := range windowRandomViews {
		runAll(t, te, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	next := 0
	for step := range 40 {
		runAll(t, te, randomWindowWrite(rng, &next))
		if rng.IntN(8) == 0 {
			te.restart()
		}
		for name, q := range windowRandomViews {
			view := te.run("SELECT * FROM " + name + " ORDER BY 1, 2")
			adhoc := te.run("SELECT * FROM (" + q + ") q ORDER BY 1, 2")
			if strings.Contains(view, "ERROR") || view != adhoc {
				t.Fatalf("seed %d, step %d: view %s differs from its query:\nview:\n%s\nquery:\n%s\nrows:\n%s",
					seed, step, name, view, adhoc, te.run("SELECT * FROM t ORDER BY 1"))
			}
		}
	}
}

// randomWindowWrite returns a random write to t(id, g, o, v): small
// domains (ties) and NULLs; next numbers the inserted rows.
func randomWindowWrite(rng *rand.Rand, next *int) string {
	val := func(n int) string {
		if rng.IntN(6) == 0 {
			return "NULL"
		}
		return fmt.Sprint(rng.IntN(n))
	}
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("DELETE FROM t WHERE id %% 7 = %d", rng.IntN(7))
	case 1:
		return fmt.Sprintf("UPDATE t SET v = %s WHERE id %% 5 = %d", val(20), rng.IntN(5))
	case 2:
		return fmt.Sprintf("UPDATE t SET g = %s WHERE id = %d", val(4), rng.IntN(*next+1))
	case 3:
		return fmt.Sprintf("UPDATE t SET o = %s, v = v + 1 WHERE id %% 4 = %d", val(6), rng.IntN(4))
	}
	var rows []string
	for range 1 + rng.IntN(5) {
		*next++
		rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s)", *next, val(4), val(6), val(20)))
	}
	return "INSERT INTO t VALUES " + strings.Join(rows, ", ")
}
