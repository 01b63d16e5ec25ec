package tests

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// jsonbKeyViews are views keyed or ordered by jsonb (tests/slt/jsonb_order.slt
// checks their answers against PostgreSQL).
var jsonbKeyViews = map[string]string{
	"jkr_group": "SELECT v, count(*) AS n, min(id) AS first FROM jkr GROUP BY v",
	"jkr_top":   "SELECT id FROM jkr ORDER BY v DESC, id LIMIT 3",
	"jkr_join":  "SELECT a.id AS a, b.id AS b FROM jkr a JOIN jkr b ON a.v = b.v AND a.id < b.id",
	"jkr_less":  "SELECT count(*) AS n FROM jkr a JOIN jkr b ON a.v < b.v",
}

// TestJSONBKeysRestart keeps jsonb keys (a primary key, an index, views
// grouping, joining and ordering by jsonb) through a restart: the stored
// keys still order, match and refuse duplicates as PostgreSQL's jsonb =
// and < do.
func TestJSONBKeysRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c, "CREATE TABLE jkp (v jsonb PRIMARY KEY, n int)",
		"CREATE TABLE jkr (id int, v jsonb)", "CREATE INDEX jkr_v ON jkr (v)")
	for name, q := range jsonbKeyViews {
		mustExec(t, ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	mustExec(t, ctx, c,
		`INSERT INTO jkp VALUES ('{"b":1}', 1), ('{"a":1,"b":2}', 2), ('[3]', 3), ('[1,2]', 4), ('"x"', 5), ('null', 6), ('2', 7), ('10', 8), ('[]', 9)`,
		`INSERT INTO jkr VALUES (1, '{"p":1}'), (2, '{"a":1,"b":2}'), (3, 'null'), (4, '"a"'), (5, '[1,2]'), (6, '[3]'), (7, '1'), (8, '1.0'), (9, '[1]'), (10, '[1.00]'), (11, '{}'), (12, '[]')`)
	check := func() {
		t.Helper()
		checkViewsEqualQueries(t, ctx, c, jsonbKeyViews)
		// PostgreSQL 15's answers.
		expectText(t, ctx, c, "SELECT string_agg(n::text, ',' ORDER BY v) FROM jkp", "9,6,5,7,8,3,4,1,2")
		expectText(t, ctx, c, "SELECT string_agg(n::text, ',') FROM (SELECT n FROM jkp ORDER BY v DESC) s", "2,1,4,3,8,7,5,6,9")
		expectText(t, ctx, c, "SELECT n FROM jkp WHERE v = '10.0'", "8")
		expectText(t, ctx, c, "SELECT string_agg(id::text, ',' ORDER BY id) FROM jkr WHERE v = '[1.0]'", "9,10")
		expectText(t, ctx, c, "SELECT string_agg(id::text, ',' ORDER BY id) FROM jkr_top", "1,2,11")
		expectText(t, ctx, c, "SELECT string_agg(a || '-' || b, ',' ORDER BY a) FROM jkr_join", "7-8,9-10")
		expectText(t, ctx, c, "SELECT n FROM jkr_less", "64")
		var pe *pgconn.PgError
		if _, err := c.Exec(ctx, "INSERT INTO jkp VALUES ('2.00', 10)"); !errors.As(err, &pe) || pe.Code != "23505" {
			t.Errorf("a jsonb key equal to a stored one: %v, want 23505", err)
		}
	}
	check()
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	check()
	mustExec(t, ctx, c, `INSERT INTO jkr VALUES (13, '{"a":1.0,"b":2.00}'), (14, '{"aa":1}')`, "DELETE FROM jkr WHERE id = 1")
	checkViewsEqualQueries(t, ctx, c, jsonbKeyViews)
	expectText(t, ctx, c, "SELECT string_agg(id::text, ',' ORDER BY id) FROM jkr_top", "2,13,14")
	expectText(t, ctx, c, "SELECT string_agg(a || '-' || b, ',' ORDER BY a) FROM jkr_join", "2-13,7-8,9-10")
}
