package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// wholeRowViews read whole rows of FROM items that outer joins
// null-extend, so their plans carry presence markers (planner/presence.go);
// tests/slt/whole_row_outer.slt checks their kind of answer against
// PostgreSQL.
var wholeRowViews = map[string]string{
	"wr_left":  "SELECT a, wrb::text AS t, wrb IS NULL AS n FROM wra LEFT JOIN wrb ON wra.k IS NOT DISTINCT FROM wrb.k",
	"wr_group": "SELECT wrb::text AS g, count(*) AS n, count(wrb) AS c FROM wra FULL JOIN wrb ON wra.k = wrb.k GROUP BY wrb",
	"wr_lat":   "SELECT a, s::text AS s FROM wra LEFT JOIN LATERAL (SELECT b FROM wrb WHERE wrb.k = wra.k) s ON true",
	"wr_count": "SELECT count(wra) AS ca, count(wrb) AS cb, count(*) AS n FROM wra RIGHT JOIN wrb ON wra.k = wrb.k",
}

// TestWholeRowRestart keeps views whose whole rows of null-extended FROM
// items are NULL through a restart: each restores its stored plan (with
// the markers) and state, and equals its query recomputed before and
// after the restart and after writes that follow it.
func TestWholeRowRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c, "CREATE TABLE wra (k int, a int)", "CREATE TABLE wrb (k int, b int)")
	for name, q := range wholeRowViews {
		mustExec(t, ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	mustExec(t, ctx, c, "INSERT INTO wra VALUES (1, 1), (2, 2), (NULL, 3)", "INSERT INTO wrb VALUES (1, 10), (NULL, NULL), (4, NULL)")
	checkViewsEqualQueries(t, ctx, c, wholeRowViews)
	expectText(t, ctx, c, "SELECT ca || ' ' || cb || ' ' || n FROM wr_count", "1 3 3")
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	checkViewsEqualQueries(t, ctx, c, wholeRowViews)
	mustExec(t, ctx, c, "INSERT INTO wra VALUES (4, 4)", "DELETE FROM wrb WHERE k = 1", "UPDATE wrb SET k = 2 WHERE b IS NULL")
	checkViewsEqualQueries(t, ctx, c, wholeRowViews)
	// PostgreSQL 15 over the same rows: both rows of wrb are (2, NULL) now,
	// matched by wra (2, 2); the other rows of wra are null-extended.
	expectText(t, ctx, c, "SELECT string_agg(a || ':' || coalesce(t, '-') || ':' || n, ' ' ORDER BY a, t) FROM wr_left",
		"1:-:true 2:(2,):false 2:(2,):false 3:-:true 4:-:true")
	expectText(t, ctx, c, "SELECT ca || ' ' || cb || ' ' || n FROM wr_count", "2 2 2")
}
