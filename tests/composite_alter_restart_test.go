package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// TestCompositeAlterViewsRestart changes the fields of a composite type
// that a table and plain views use (ADD, RENAME and DROP ATTRIBUTE) and
// keeps a materialized view over a composite type with a field that is an
// array of another composite type, through restarts: the rewritten values,
// the views planned from their stored queries and the view's state read
// back as before. The expectations are PostgreSQL 15's answers to the
// same statements.
func TestCompositeAlterViewsRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c,
		"CREATE TYPE cr_p AS (a int, b text)",
		"CREATE TYPE cr_i AS (a int, b text)",
		"CREATE TYPE cr_o AS (id int, xs cr_i[])",
		"CREATE TABLE cr (k int PRIMARY KEY, v cr_p, vs cr_p[])",
		"CREATE VIEW cr_v AS SELECT k, v, vs FROM cr",
		"CREATE VIEW cr_vb AS SELECT k, (v).b AS b, vs[1] AS v1 FROM cr",
		"CREATE TABLE cr2 (k int PRIMARY KEY, o cr_o)",
		"CREATE MATERIALIZED VIEW cr_m AS SELECT (o).xs[1].a AS a, count(*) AS n FROM cr2 GROUP BY 1",
		"INSERT INTO cr VALUES (1, ROW(1, 'x'), ARRAY[ROW(2, 'y')::cr_p]), (2, NULL, NULL)",
		`INSERT INTO cr2 VALUES (1, ROW(1, ARRAY[ROW(2, 'y')::cr_i])), (2, ROW(2, NULL)), (3, '(3,"{""(2,z)""}")')`,
		"ALTER TYPE cr_p ADD ATTRIBUTE c int",
		"ALTER TYPE cr_p RENAME ATTRIBUTE a TO aa",
		`INSERT INTO cr VALUES (3, ROW(3, 'z', 33), '{"(4,w,44)"}')`)
	const (
		allV  = "SELECT string_agg(k || ':' || coalesce(v::text, '-') || ':' || coalesce(vs::text, '-'), ' ' ORDER BY k) FROM cr_v"
		fldV  = "SELECT string_agg(k || ':' || coalesce(b, '-') || ':' || coalesce(v1::text, '-'), ' ' ORDER BY k) FROM cr_vb"
		mView = "SELECT string_agg(coalesce(a::text, '-') || ':' || n, ' ' ORDER BY a) FROM cr_m"
		rows2 = "SELECT string_agg(k || ':' || o::text, ' ' ORDER BY k) FROM cr2"
	)
	check := func() {
		t.Helper()
		expectText(t, ctx, c, allV, `1:(1,x,):{"(2,y,)"} 2:-:- 3:(3,z,33):{"(4,w,44)"}`)
		expectText(t, ctx, c, fldV, `1:x:(2,y,) 2:-:- 3:z:(4,w,44)`)
		expectText(t, ctx, c, mView, `2:2 -:1`)
		expectText(t, ctx, c, rows2, `1:(1,"{""(2,y)""}") 2:(2,) 3:(3,"{""(2,z)""}")`)
	}
	check()
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	check()
	mustExec(t, ctx, c, "ALTER TYPE cr_p DROP ATTRIBUTE aa",
		"INSERT INTO cr2 VALUES (4, ROW(4, ARRAY[ROW(2, NULL)::cr_i]))", "DELETE FROM cr2 WHERE k = 1")
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	expectText(t, ctx, c, allV, `1:(x,):{"(y,)"} 2:-:- 3:(z,33):{"(w,44)"}`)
	expectText(t, ctx, c, mView, `2:2 -:1`)
}
