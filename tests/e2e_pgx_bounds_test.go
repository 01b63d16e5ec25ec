package tests

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxArrayBounds writes int4[] values whose lower bounds are not 1 as
// pgx parameters and reads them back, from the table and through
// materialized views, in the binary format (extended protocol) and the
// text format (simple protocol): the bounds survive both, and subscripts
// count from them.
func TestPgxArrayBounds(t *testing.T) { runPgxBounds(t, harness.StartTarget(t)) }

// TestPgxArrayBoundsPostgres runs the same against PostgreSQL, which
// proves the expectations.
func TestPgxArrayBoundsPostgres(t *testing.T) { runPgxBounds(t, harness.StartPostgres(t)) }

func runPgxBounds(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, _ pgx.QueryExecMode, refresh func()) {
		pgxBounds(t, ctx, c, refresh)
	})
}

// boundedArrays are the test's arrays: [0:2]={0,1,2}, [-2:-1][5:6] with a
// NULL, and a one-element [7:7].
func boundedArrays() []pgtype.Array[pgtype.Int4] {
	grid := int4Grid(2, 2, 3)
	grid.Dims[0].LowerBound, grid.Dims[1].LowerBound = -2, 5
	one := int4Grid(1, 1, -1)
	one.Dims = one.Dims[:1]
	one.Dims[0].LowerBound = 7
	line := int4Grid(1, 3, -1)
	line.Dims = line.Dims[1:]
	line.Dims[0].LowerBound = 0
	return []pgtype.Array[pgtype.Int4]{line, grid, one}
}

func pgxBounds(t *testing.T, ctx context.Context, c *pgx.Conn, refresh func()) {
	mustExec(t, ctx, c,
		"CREATE TABLE bnd (id int, a int[])",
		"CREATE MATERIALIZED VIEW bnd_v AS SELECT id, a FROM bnd WHERE array_lower(a, 1) <> 1",
		"CREATE MATERIALIZED VIEW bnd_first AS SELECT id, a[array_lower(a, 1)] AS first FROM bnd WHERE array_ndims(a) = 1")
	want := boundedArrays()
	for i, a := range want {
		if _, err := c.Exec(ctx, "INSERT INTO bnd VALUES ($1, $2)", i, a); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	if got := readGrids(t, ctx, c, "SELECT a FROM bnd ORDER BY id"); !reflect.DeepEqual(got, want) {
		t.Errorf("table: got %+v, want %+v", got, want)
	}
	var eq bool
	if err := c.QueryRow(ctx, "SELECT $1::int[] = '[0:2]={0,1,2}'", want[0]).Scan(&eq); err != nil || !eq {
		t.Errorf("parameter = literal: %v %v", eq, err)
	}
	refresh()
	if got := readGrids(t, ctx, c, "SELECT a FROM bnd_v ORDER BY id"); !reflect.DeepEqual(got, want) {
		t.Errorf("view: got %+v, want %+v", got, want)
	}
	var firsts []int32
	rs, err := c.Query(ctx, "SELECT first FROM bnd_first ORDER BY id")
	if err == nil {
		firsts, err = pgx.CollectRows(rs, pgx.RowTo[int32])
	}
	if err != nil || !reflect.DeepEqual(firsts, []int32{0, 0}) {
		t.Errorf("first elements: %v %v", firsts, err)
	}
}

// TestArrayBoundsRestart checks that arrays with lower bounds survive a
// restart in a table and in a materialized view's state, which then keeps
// being maintained.
func TestArrayBoundsRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c,
		"CREATE TABLE rb (id int PRIMARY KEY, a int[])",
		"CREATE MATERIALIZED VIEW rb_v AS SELECT a, count(*) AS n FROM rb GROUP BY a",
		"INSERT INTO rb VALUES (1, '[0:1]={1,2}'), (2, '[0:1]={1,2}'), (3, '{1,2}'), (4, '[-1:0][2:2]={{5},{6}}')")
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	mustExec(t, ctx, c, "UPDATE rb SET a[-1] = 0 WHERE id = 2")
	for _, q := range []struct{ sql, want string }{
		{"SELECT string_agg(a::text, ' ' ORDER BY id) FROM rb", "[0:1]={1,2} [-1:1]={0,1,2} {1,2} [-1:0][2:2]={{5},{6}}"},
		{"SELECT string_agg(a::text || ':' || n, ' ' ORDER BY a) FROM rb_v", "[-1:1]={0,1,2}:1 [0:1]={1,2}:1 {1,2}:1 [-1:0][2:2]={{5},{6}}:1"},
	} {
		var got string
		if err := c.QueryRow(ctx, q.sql).Scan(&got); err != nil || got != q.want {
			t.Errorf("%s: got %q (%v), want %q", q.sql, got, err, q.want)
		}
	}
}
