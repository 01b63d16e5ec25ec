package tests

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxArrays writes and reads int4[], text[] and numeric[] with pgx in
// the binary format (extended protocol: parameters and results binary,
// COPY FROM binary) and the text format (simple protocol, COPY FROM text),
// and reads them back through a materialized view.
func TestPgxArrays(t *testing.T) { runPgxArrays(t, harness.StartTarget(t)) }

// TestPgxArraysPostgres runs the same against PostgreSQL, which proves the
// expectations.
func TestPgxArraysPostgres(t *testing.T) { runPgxArrays(t, harness.StartPostgres(t)) }

// arrayRow is one row of the test table; NULL elements are invalid pgtype
// values.
type arrayRow struct {
	ID int32
	I  []pgtype.Int4
	T  []pgtype.Text
	N  []pgtype.Numeric
}

func runPgxArrays(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func()) {
		pgxArrays(t, ctx, c, mode == pgx.QueryExecModeCacheStatement, refresh)
	})
}

// eachPgxMode runs fn on a new database of s once per pgx execution mode:
// the extended protocol with cached statements (binary formats) and the
// simple protocol (text), with a minute's deadline. refresh refreshes the
// materialized views when s is PostgreSQL (Eddy's are always current).
func eachPgxMode(t *testing.T, s *harness.Server, fn func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func())) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cfg, err := pgx.ParseConfig(s.NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			fn(t, ctx, c, mode, func() {
				if err := refreshIfPostgres(ctx, c.PgConn(), s.Kind() == harness.Postgres); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

func pgxArrays(t *testing.T, ctx context.Context, c *pgx.Conn, binary bool, refresh func()) {
	mustExec(t, ctx, c,
		"CREATE TABLE arr (id int, i int[], t text[], n numeric[])",
		"CREATE MATERIALIZED VIEW arr_v AS SELECT id, i || 0 AS i, array_append(t, 'z') AS t, n[1:1] AS n FROM arr")
	num := func(s string) pgtype.Numeric {
		var n pgtype.Numeric
		if err := n.Scan(s); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows := []arrayRow{
		{1, []pgtype.Int4{{Int32: 1, Valid: true}, {}, {Int32: -3, Valid: true}},
			[]pgtype.Text{{String: "a b", Valid: true}, {String: `q"u\o,te{}`, Valid: true}, {String: "", Valid: true}, {}, {String: "NULL", Valid: true}},
			[]pgtype.Numeric{num("1.50"), num("-12345678901234567890.123"), {}}},
		{2, []pgtype.Int4{}, []pgtype.Text{}, []pgtype.Numeric{}},
		{3, nil, nil, nil},
	}
	// Row 4 repeats row 1's arrays, written by COPY.
	rows = append(rows, rows[0])
	rows[3].ID = 4
	if _, err := c.Exec(ctx, "INSERT INTO arr VALUES ($1, $2, $3, $4)", rows[0].ID, rows[0].I, rows[0].T, rows[0].N); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if binary {
		var src [][]any
		for _, r := range rows[1:] {
			src = append(src, []any{r.ID, r.I, r.T, r.N})
		}
		if _, err := c.CopyFrom(ctx, pgx.Identifier{"arr"}, []string{"id", "i", "t", "n"}, pgx.CopyFromRows(src)); err != nil {
			t.Fatalf("copy (binary): %v", err)
		}
	} else {
		// COPY's text format escapes the backslashes of the array text.
		copyText := "2\t{}\t{}\t{}\n3\t\\N\t\\N\t\\N\n" +
			"4\t{1,NULL,-3}\t" + `{"a b","q\\"u\\\\o,te{}","",NULL,"NULL"}` + "\t{1.50,-12345678901234567890.123,NULL}\n"
		if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(copyText), "COPY arr FROM STDIN"); err != nil {
			t.Fatalf("copy (text): %v", err)
		}
	}
	got := readArrayRows(t, ctx, c, "SELECT id, i, t, n FROM arr ORDER BY id")
	checkArrayRows(t, got, rows)
	refresh()
	view := readArrayRows(t, ctx, c, "SELECT id, i, t, n FROM arr_v ORDER BY id")
	if len(view) != 4 || len(view[0].I) != 4 || view[0].I[3].Int32 != 0 || view[0].T[5].String != "z" ||
		len(view[0].N) != 1 || len(view[1].N) != 0 || view[2].I == nil || len(view[2].I) != 1 {
		t.Errorf("view rows: %+v", view)
	}
	var any bool
	if err := c.QueryRow(ctx, "SELECT $1::int = ANY($2)", 7, []int32{5, 7}).Scan(&any); err != nil || !any {
		t.Errorf("= ANY($2): %v %v", any, err)
	}
}

func readArrayRows(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) []arrayRow {
	t.Helper()
	rs, err := c.Query(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rs, pgx.RowToStructByPos[arrayRow])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// checkArrayRows compares rows read back with those written, numerics by
// value (their text), everything else exactly.
func checkArrayRows(t *testing.T, got, want []arrayRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || !reflect.DeepEqual(g.I, w.I) || !reflect.DeepEqual(g.T, w.T) || len(g.N) != len(w.N) || (g.N == nil) != (w.N == nil) {
			t.Errorf("row %d: got %+v, want %+v", w.ID, g, w)
			continue
		}
		for j := range w.N {
			gv, _ := g.N[j].Value()
			wv, _ := w.N[j].Value()
			if gv != wv {
				t.Errorf("row %d numeric %d: got %v, want %v", w.ID, j, gv, wv)
			}
		}
	}
}
