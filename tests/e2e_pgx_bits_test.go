package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxBits writes and reads bit(4), bit varying and bit varying[]
// with pgx in the binary format (extended protocol: parameters and
// results binary, COPY FROM binary) and the text format (simple
// protocol, COPY FROM text), and reads them back through a materialized
// view grouped by a bit key.
func TestPgxBits(t *testing.T) { runPgxBits(t, harness.StartTarget(t)) }

// TestPgxBitsPostgres runs the same against PostgreSQL, which proves the
// expectations.
func TestPgxBitsPostgres(t *testing.T) { runPgxBits(t, harness.StartPostgres(t)) }

// bitsRow is one row of the test table.
type bitsRow struct {
	ID int32
	F  pgtype.Bits
	V  pgtype.Bits
	A  []pgtype.Bits
}

// bits returns the valid bit string of the given 0/1 digits.
func bits(s string) pgtype.Bits {
	b := pgtype.Bits{Bytes: make([]byte, (len(s)+7)/8), Len: int32(len(s)), Valid: true}
	for i, c := range s {
		if c == '1' {
			b.Bytes[i/8] |= 0x80 >> (i % 8)
		}
	}
	return b
}

func runPgxBits(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func()) {
		pgxBits(t, ctx, c, mode == pgx.QueryExecModeCacheStatement, refresh)
	})
}

func pgxBits(t *testing.T, ctx context.Context, c *pgx.Conn, binary bool, refresh func()) {
	mustExec(t, ctx, c,
		"CREATE TABLE bt (id int, f bit(4), v varbit, a varbit[])",
		"CREATE MATERIALIZED VIEW bt_v AS SELECT f, count(*) AS n, bit_or(v::bit(12)) AS o FROM bt GROUP BY f")
	rows := []bitsRow{
		{1, bits("1010"), bits("110011001100110011"), []pgtype.Bits{bits("1"), {}, bits("")}},
		{2, bits("0001"), bits(""), []pgtype.Bits{}},
		{3, pgtype.Bits{}, pgtype.Bits{}, nil},
		{4, bits("1010"), bits("000000001"), []pgtype.Bits{bits("0101010101")}},
	}
	if _, err := c.Exec(ctx, "INSERT INTO bt VALUES ($1, $2, $3, $4)", rows[0].ID, rows[0].F, rows[0].V, rows[0].A); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if binary {
		var src [][]any
		for _, r := range rows[1:] {
			src = append(src, []any{r.ID, r.F, r.V, r.A})
		}
		if _, err := c.CopyFrom(ctx, pgx.Identifier{"bt"}, []string{"id", "f", "v", "a"}, pgx.CopyFromRows(src)); err != nil {
			t.Fatalf("copy (binary): %v", err)
		}
	} else {
		copyText := "2\t0001\t\t{}\n3\t\\N\t\\N\t\\N\n4\t1010\t000000001\t{0101010101}\n"
		if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(copyText), "COPY bt FROM STDIN"); err != nil {
			t.Fatalf("copy (text): %v", err)
		}
	}
	rs, err := c.Query(ctx, "SELECT id, f, v, a FROM bt ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	// pgjdbc reads a bit(1) column as boolean by its type OID and
	// modifier: the row description carries both, as PostgreSQL's does.
	var desc []string
	for _, f := range rs.FieldDescriptions() {
		desc = append(desc, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.TypeModifier))
	}
	if want := "id:23:-1 f:1560:4 v:1562:-1 a:1563:-1"; strings.Join(desc, " ") != want {
		t.Errorf("row description %v, want %s", desc, want)
	}
	got, err := pgx.CollectRows(rs, pgx.RowToStructByPos[bitsRow])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("rows:\n got %+v\nwant %+v", got, rows)
	}
	refresh()
	var n int64
	var o pgtype.Bits
	if err := c.QueryRow(ctx, "SELECT n, o FROM bt_v WHERE f = $1", bits("1010")).Scan(&n, &o); err != nil {
		t.Fatal(err)
	}
	// 110011001100 | 000000001000, padded and truncated to 12 bits.
	if n != 2 || !reflect.DeepEqual(o, bits("110011001100")) {
		t.Errorf("view group 1010: n=%d o=%+v", n, o)
	}
	_, err = c.Exec(ctx, "INSERT INTO bt VALUES ($1, $2)", 5, bits("101"))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22026" || pe.Message != "bit string length 3 does not match type bit(4)" {
		t.Errorf("wrong-length bit(4) parameter: %v", err)
	}
}

// TestCopyBitsMatchesPostgres loads the same bit strings into Eddy and
// PostgreSQL 15 and requires COPY TO STDOUT to give the same bytes in
// binary, text and CSV, and COPY FROM of a wrong length the same error.
func TestCopyBitsMatchesPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eddy := pgConnect(t, ctx, harness.StartEddy(t).DSN())
	pg := pgConnect(t, ctx, harness.StartPostgres(t).NewDatabase(t))
	defer eddy.Close(context.Background())
	defer pg.Close(context.Background())
	setup := []string{
		"CREATE TABLE cb (id int, f bit(3), v varbit(20), a bit(2)[])",
		"INSERT INTO cb VALUES (1, B'101', X'ABCDE', '{01,10}'), (2, NULL, B'', NULL), (3, '000', '1', '{}')",
	}
	for _, c := range []*pgconn.PgConn{eddy, pg} {
		for _, sql := range setup {
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	for _, sql := range []string{
		"COPY (SELECT * FROM cb ORDER BY id) TO STDOUT (FORMAT binary)",
		"COPY (SELECT * FROM cb ORDER BY id) TO STDOUT",
		"COPY (SELECT * FROM cb ORDER BY id) TO STDOUT (FORMAT csv, HEADER)",
	} {
		want := copyOutcome(ctx, pg, sql)
		if got := copyOutcome(ctx, eddy, sql); got != want {
			t.Errorf("%s\n got %q\nwant %q", sql, got, want)
		}
	}
	for _, in := range []string{"9\t10\t\\N\t\\N\n", "9\t\\N\t101010101010101010101\t\\N\n", "9\t102\t\\N\t\\N\n"} {
		var want, got string
		for i, c := range []*pgconn.PgConn{pg, eddy} {
			_, err := c.CopyFrom(ctx, bytes.NewReader([]byte(in)), "COPY cb FROM STDIN")
			var pe *pgconn.PgError
			out := "no error"
			if errors.As(err, &pe) {
				out = pe.Code + ": " + pe.Message
			}
			if i == 0 {
				want = out
			} else {
				got = out
			}
		}
		if got != want || want == "no error" {
			t.Errorf("COPY FROM %q: got %s, want %s", in, got, want)
		}
	}
}
