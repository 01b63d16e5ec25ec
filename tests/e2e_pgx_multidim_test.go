package tests

import (
	"context"
	"reflect"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxMultidimArrays writes two-dimensional int4[] values as pgx
// parameters and reads them back, from the table and through a
// materialized view, in the binary format (extended protocol) and the text
// format (simple protocol): dimensions and NULL elements survive both.
func TestPgxMultidimArrays(t *testing.T) { runPgxMultidim(t, harness.StartTarget(t)) }

// TestPgxMultidimArraysPostgres runs the same against PostgreSQL, which
// proves the expectations.
func TestPgxMultidimArraysPostgres(t *testing.T) { runPgxMultidim(t, harness.StartPostgres(t)) }

func runPgxMultidim(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, _ pgx.QueryExecMode, refresh func()) {
		pgxMultidim(t, ctx, c, refresh)
	})
}

// int4Grid is a two-dimensional int4 array of rows x cols, element k = k
// (NULL at nullAt).
func int4Grid(rows, cols, nullAt int) pgtype.Array[pgtype.Int4] {
	a := pgtype.Array[pgtype.Int4]{Valid: true, Dims: []pgtype.ArrayDimension{
		{Length: int32(rows), LowerBound: 1}, {Length: int32(cols), LowerBound: 1}}}
	for k := range rows * cols {
		e := pgtype.Int4{Int32: int32(k), Valid: true}
		if k == nullAt {
			e = pgtype.Int4{}
		}
		a.Elements = append(a.Elements, e)
	}
	return a
}

func pgxMultidim(t *testing.T, ctx context.Context, c *pgx.Conn, refresh func()) {
	mustExec(t, ctx, c,
		"CREATE TABLE grid (id int, a int[])",
		"CREATE MATERIALIZED VIEW grid_v AS SELECT id, a[1:1] AS a FROM grid")
	want := []pgtype.Array[pgtype.Int4]{int4Grid(2, 3, 4), int4Grid(3, 1, -1)}
	for i, a := range want {
		if _, err := c.Exec(ctx, "INSERT INTO grid VALUES ($1, $2)", i, a); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	got := readGrids(t, ctx, c, "SELECT a FROM grid ORDER BY id")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("table: got %+v, want %+v", got, want)
	}
	refresh()
	view := readGrids(t, ctx, c, "SELECT a FROM grid_v ORDER BY id")
	firstRows := []pgtype.Array[pgtype.Int4]{int4Grid(1, 3, -1), int4Grid(1, 1, -1)}
	if !reflect.DeepEqual(view, firstRows) {
		t.Errorf("view: got %+v, want %+v", view, firstRows)
	}
}

func readGrids(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) []pgtype.Array[pgtype.Int4] {
	t.Helper()
	rs, err := c.Query(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rs, pgx.RowTo[pgtype.Array[pgtype.Int4]])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
