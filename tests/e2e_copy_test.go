package tests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestCopyToMatchesPostgres runs every COPY ... TO STDOUT of
// testdata/copy_to.sql on Eddy and on PostgreSQL 15 over the same data and
// requires the same bytes (text, CSV and binary), or the same SQLSTATE
// and message.
func TestCopyToMatchesPostgres(t *testing.T) {
	setup, copies := readCopyScript(t, "testdata/copy_to.sql")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eddy := pgConnect(t, ctx, harness.StartEddy(t).DSN())
	pg := pgConnect(t, ctx, harness.StartPostgres(t).NewDatabase(t))
	defer eddy.Close(context.Background())
	defer pg.Close(context.Background())
	for _, sql := range setup {
		for _, c := range []*pgconn.PgConn{eddy, pg} {
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	for _, sql := range copies {
		want := copyOutcome(ctx, pg, sql)
		if got := copyOutcome(ctx, eddy, sql); got != want {
			t.Errorf("%s\n got %q\nwant %q", sql, got, want)
		}
	}
}

// readCopyScript splits a script into its setup statements and its COPY
// statements (after the "-- copies" line), one statement per line.
func readCopyScript(t *testing.T, path string) (setup, copies []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	inCopies := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "-- copies":
			inCopies = true
		case line == "" || strings.HasPrefix(line, "--"):
		case inCopies:
			copies = append(copies, line)
		default:
			setup = append(setup, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return setup, copies
}

// copyOutcome runs a COPY TO STDOUT and describes what the client saw:
// the data and the tag, or the error's SQLSTATE, message and hint.
func copyOutcome(ctx context.Context, c *pgconn.PgConn, sql string) string {
	var buf bytes.Buffer
	tag, err := c.CopyTo(ctx, &buf, sql)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return "ERROR " + pgErr.Code + ": " + pgErr.Message + fmt.Sprintf(" (position %d)", pgErr.Position)
	}
	if err != nil {
		return "client error: " + err.Error()
	}
	return buf.String() + "-- " + tag.String()
}

// TestCopyFromBinaryMatchesPostgres loads the same rows with pgx's
// CopyFrom (binary COPY FROM STDIN, every supported type, arrays and NULLs
// included) into Eddy and PostgreSQL 15 and requires COPY TO STDOUT of
// the result to be the same bytes in binary and in text.
func TestCopyFromBinaryMatchesPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eddy := connect(t, ctx, harness.StartEddy(t).DSN())
	pg := connect(t, ctx, harness.StartPostgres(t).NewDatabase(t))
	cols := []string{"id", "b", "s", "i", "g", "r", "d", "n", "t", "vc", "by", "dt", "tm", "ts", "tz", "iv", "j", "ia", "ta", "u"}
	ddl := "CREATE TABLE cf (id int PRIMARY KEY, b boolean, s smallint, i integer, g bigint, r real, d double precision, " +
		"n numeric(12,3), t text, vc varchar(10), by bytea, dt date, tm time, ts timestamp, tz timestamptz, " +
		"iv interval, j jsonb, ia int[], ta text[], u uuid)"
	tz := time.FixedZone("x", 2*3600)
	rows := [][]any{
		{1, true, int16(-12), int32(123456), int64(-9_000_000_000_000_000), float32(1.5), 2.25e-3, "12345.678",
			"héllo\ttab", "abc", []byte{0, 1, 255}, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
			pgtype.Time{Microseconds: 49501250000, Valid: true}, time.Date(2024, 2, 29, 13, 45, 1, 500000000, time.UTC),
			time.Date(2024, 2, 29, 13, 45, 1, 0, tz), pgtype.Interval{Months: 14, Days: 3, Microseconds: 4_000_001, Valid: true},
			map[string]any{"a": 1, "b": []any{"x", nil}}, []*int32{ptr(int32(1)), nil, ptr(int32(3))},
			[]string{"a b", "c,d", `"q"`}, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{3, false, int16(0), int32(-1), int64(1), float32(-0.25), -1e300, "-0.001", "", "", []byte{}, time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC),
			pgtype.Time{Valid: true}, time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
			pgtype.Interval{Microseconds: -1, Valid: true}, []any{}, []*int32{}, []string{}, "00000000-0000-0000-0000-000000000000"},
	}
	for _, c := range []*pgx.Conn{eddy, pg} {
		mustExec(t, ctx, c, ddl, "SET TimeZone = 'UTC'")
		n, err := c.CopyFrom(ctx, pgx.Identifier{"cf"}, cols, pgx.CopyFromRows(rows))
		if err != nil || n != int64(len(rows)) {
			t.Fatalf("CopyFrom: %d rows, %v", n, err)
		}
	}
	for _, sql := range []string{
		"COPY (SELECT * FROM cf ORDER BY id) TO STDOUT (FORMAT binary)",
		"COPY (SELECT * FROM cf ORDER BY id) TO STDOUT",
		"COPY (SELECT * FROM cf ORDER BY id) TO STDOUT (FORMAT csv, HEADER)",
	} {
		want := copyOutcome(ctx, pg.PgConn(), sql)
		if got := copyOutcome(ctx, eddy.PgConn(), sql); got != want {
			t.Errorf("%s\n got %q\nwant %q", sql, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
