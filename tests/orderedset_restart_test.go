package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// directViews are views whose ordered-set aggregates take a per-group
// direct argument (a fraction or an array of them computed from the
// group's key, a hypothetical argument of a GROUP BY expression);
// tests/slt/orderedset_group_direct.slt checks their answers against
// PostgreSQL.
var directViews = map[string]string{
	"od_cont":  "SELECT g, percentile_cont(g / 10.0) WITHIN GROUP (ORDER BY v) AS p FROM od_t GROUP BY g",
	"od_multi": "SELECT g, h, percentile_disc(ARRAY[h, 0.5]) WITHIN GROUP (ORDER BY v DESC) AS p FROM od_t GROUP BY g, h",
	"od_expr":  "SELECT g % 2 AS m, percentile_cont((g % 2) * 0.5) WITHIN GROUP (ORDER BY v) AS p, rank(g % 2 * 10) WITHIN GROUP (ORDER BY v) AS r FROM od_t GROUP BY g % 2",
}

// TestOrderedSetDirectRestart keeps views with per-group direct arguments
// through a restart (their stored plans parse back): each equals its
// query recomputed before and after the restart and after later writes.
func TestOrderedSetDirectRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c, "CREATE TABLE od_t (id int PRIMARY KEY, g int, h float8, v float8)")
	for name, q := range directViews {
		mustExec(t, ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	mustExec(t, ctx, c, "INSERT INTO od_t VALUES (1, 1, 0.5, 1), (2, 1, 0.5, 2), (3, 1, 0.5, 3), (4, 2, 0.25, 10), "+
		"(5, 2, 0.25, 20), (6, 3, NULL, 5), (7, 4, 1, NULL), (8, 5, 0.9, 7)")
	checkViewsEqualQueries(t, ctx, c, directViews)
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	checkViewsEqualQueries(t, ctx, c, directViews)
	mustExec(t, ctx, c, "INSERT INTO od_t VALUES (9, 1, 0.5, 9), (10, 6, 0, 4)",
		"DELETE FROM od_t WHERE id = 2", "UPDATE od_t SET g = 2, h = 0.75 WHERE id = 3")
	checkViewsEqualQueries(t, ctx, c, directViews)
	// PostgreSQL 15 over the same rows: group 1 holds 1 and 9, so
	// percentile_cont(0.1) is 1.8.
	expectText(t, ctx, c, "SELECT p::text FROM od_cont WHERE g = 1", "1.8")
}
