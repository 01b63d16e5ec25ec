package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
)

// bpcharRowViews are views keyed by records, composite values and arrays
// holding bpchar values (tests/slt/bpchar_rows.slt checks their answers
// against PostgreSQL); their stored plans read the keys without the
// values' trailing blanks.
var bpcharRowViews = map[string]string{
	"brr_group":     "SELECT (v).n AS n, length((v).c) AS len, count(*) AS cnt, sum(id) AS s FROM brr GROUP BY v",
	"brr_group_arr": "SELECT cardinality(a) AS card, count(*) AS cnt, sum(id) AS s FROM brr GROUP BY a",
	"brr_distinct":  "SELECT count(DISTINCT v) AS v, count(DISTINCT a) AS a, count(DISTINCT ROW(v, id % 2)) AS nested FROM brr",
	"brr_join":      "SELECT x.id AS x, y.id AS y FROM brr x JOIN brr y ON x.v = y.v AND x.a = y.a AND x.id < y.id",
	"brr_intersect": "SELECT (x).n AS n, length((x).c) AS len FROM (SELECT v FROM brr WHERE id % 2 = 0 INTERSECT SELECT v FROM brr WHERE id % 2 = 1) u(x)",
	"brr_window":    "SELECT id, count(*) OVER (PARTITION BY v) AS cnt FROM brr",
}

// TestBpcharRowKeysRestart keeps views keyed by records and arrays of
// bpchar values through a restart: each equals its query recomputed
// before and after, and after writes that follow the restart.
func TestBpcharRowKeysRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c, "CREATE TYPE brr_t AS (c bpchar, n int)",
		"CREATE TABLE brr (id int PRIMARY KEY, v brr_t, a bpchar[])")
	for name, q := range bpcharRowViews {
		mustExec(t, ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	mustExec(t, ctx, c, "INSERT INTO brr VALUES (1, ROW('ab', 1), ARRAY['ab']), (2, ROW('ab  ', 1), ARRAY['ab ']), (3, ROW('x', 2), ARRAY['x', NULL]), (4, ROW('x   ', 2), ARRAY['x', NULL]), (5, ROW('y', 2), ARRAY['y'])")
	checkViewsEqualQueries(t, ctx, c, bpcharRowViews)
	// PostgreSQL 15: 3 groups of v, 3 of a.
	expectText(t, ctx, c, "SELECT count(*) FROM brr_group", "3")
	expectText(t, ctx, c, "SELECT count(*) FROM brr_group_arr", "3")
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	checkViewsEqualQueries(t, ctx, c, bpcharRowViews)
	mustExec(t, ctx, c, "INSERT INTO brr VALUES (6, ROW('y ', 2), ARRAY['y  ']), (7, ROW('ab ', 1), ARRAY['ab'])",
		"DELETE FROM brr WHERE id = 1", "UPDATE brr SET v = ROW('x ', 2) WHERE id = 5")
	checkViewsEqualQueries(t, ctx, c, bpcharRowViews)
	// PostgreSQL 15: groups (ab,1) of 2, 7; (x,2) of 3, 4, 5; (y,2) of 6;
	// pairs equal in v and a: 2-7 and 3-4.
	expectText(t, ctx, c, "SELECT count(*) FROM brr_group", "3")
	expectText(t, ctx, c, "SELECT count(*) FROM brr_join", "2")
}

// checkViewsEqualQueries fails t when a view of views (name: its query)
// holds other rows than its query gives ad hoc.
func checkViewsEqualQueries(t *testing.T, ctx context.Context, c *pgx.Conn, views map[string]string) {
	t.Helper()
	for name, q := range views {
		view, err := queryRows(ctx, c.PgConn(), "SELECT * FROM "+name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := queryRows(ctx, c.PgConn(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !sameRows(view, want) {
			t.Errorf("%s holds %v, its query gives %v", name, view, want)
		}
	}
}
