package sql

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

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

// recSeed seeds TestRecursiveViewsRandom (0: time-based).
var recSeed = flag.Uint64("recursive-seed", 0, "seed of TestRecursiveViewsRandom (0: time-based)")

// TestRecursiveViewsRandom maintains WITH RECURSIVE views (reachability,
// transitive closure, connected components, bounded distances, and walks
// through a per-iteration LIMIT, aggregate and windows) over a
// random graph through random batches of edge insertions, deletions and
// updates, with restarts, and checks after every batch that each view
// equals its query run from scratch.
func TestRecursiveViewsRandom(t *testing.T) {
	seed := *recSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -recursive-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^11))
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 3})
	views := map[string]string{
		"reach": `WITH RECURSIVE r(n) AS (VALUES (0) UNION SELECT e.b FROM r JOIN e ON e.a = r.n) SELECT n FROM r`,
		"tc":    `WITH RECURSIVE p(s, d) AS (SELECT a, b FROM e UNION SELECT p.s, e.b FROM p JOIN e ON p.d = e.a) SELECT s, d FROM p`,
		"cc": `WITH RECURSIVE nb(x, y) AS (SELECT a, b FROM e UNION ALL SELECT b, a FROM e),
  l(n, c) AS (SELECT x, x FROM nb UNION SELECT nb.y, l.c FROM l JOIN nb ON nb.x = l.n) SELECT n, min(c) FROM l GROUP BY n`,
		"dist": `WITH RECURSIVE r(n, d) AS (VALUES (0, 0) UNION SELECT e.b, r.d + 1 FROM r JOIN e ON e.a = r.n WHERE r.d < 4) SELECT n, min(d) FROM r GROUP BY n`,
		// Per-iteration LIMIT, aggregate and windows (planner/recursive_tag.go).
		"greedy":   `WITH RECURSIVE r(n, d) AS (VALUES (0, 0) UNION (SELECT e.b, r.d + 1 FROM r JOIN e ON e.a = r.n WHERE r.d < 6 ORDER BY e.b DESC LIMIT 2)) SELECT n, d FROM r`,
		"paths":    `WITH RECURSIVE r(n, c) AS (VALUES (0, 1::bigint) UNION SELECT s.b, count(*) FROM (SELECT e.b FROM r JOIN e ON e.a = r.n) s GROUP BY s.b) SELECT n, c FROM r`,
		"lightest": `WITH RECURSIVE r(n, d) AS (VALUES (0, 0) UNION ALL SELECT x.b, x.d FROM (SELECT e.b, r.d + 1 AS d, row_number() OVER (PARTITION BY r.n ORDER BY e.b) AS rn FROM e JOIN r ON e.a = r.n) x WHERE x.rn = 1 AND x.d < 5) SELECT n, d FROM r`,
		"ranked":   `WITH RECURSIVE r(n, k) AS (VALUES (0, 1::bigint) UNION SELECT e.b, rank() OVER (ORDER BY e.b) FROM r JOIN e ON e.a = r.n) SELECT n, k FROM r`,
	}
	runAll(t, te, "CREATE TABLE e (a int, b int)")
	for name, q := range views {
		runAll(t, te, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	for step := range 40 {
		runAll(t, te, randomEdgeWrite(rng))
		if rng.IntN(8) == 0 {
			te.restart()
		}
		for name, q := range views {
			order := " ORDER BY 1, 2"
			if name == "reach" {
				order = " ORDER BY 1"
			}
			view := te.run("SELECT * FROM " + name + order)
			adhoc := te.run("SELECT * FROM (" + q + ") q" + order)
			if strings.Contains(view, "ERROR") || view != adhoc {
				t.Fatalf("seed %d, step %d: view %s differs from its query:\nview:\n%s\nquery:\n%s\nedges:\n%s",
					seed, step, name, view, adhoc, te.run("SELECT * FROM e ORDER BY 1, 2"))
			}
		}
	}
}

// randomEdgeWrite returns a random write to e(a, b) over 8 nodes.
func randomEdgeWrite(rng *rand.Rand) string {
	n := func() int { return rng.IntN(8) }
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprintf("DELETE FROM e WHERE a = %d", n())
	case 1:
		return fmt.Sprintf("UPDATE e SET b = %d WHERE b = %d", n(), n())
	}
	return fmt.Sprintf("INSERT INTO e VALUES (%d, %d), (%d, %d)", n(), n(), n(), n())
}
