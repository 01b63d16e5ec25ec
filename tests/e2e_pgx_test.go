package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgx runs the pgx client tests against the target (Eddy, or
// PostgreSQL with EDDY_TEST_TARGET=postgres).
func TestPgx(t *testing.T) { runPgx(t, harness.StartTarget(t)) }

// TestPgxPostgres runs them against PostgreSQL, which proves the
// expectations written in this file.
func TestPgxPostgres(t *testing.T) { runPgx(t, harness.StartPostgres(t)) }

// runPgx runs every pgx scenario, each in a fresh database.
func runPgx(t *testing.T, s *harness.Server) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, c *pgx.Conn)
	}{
		{"RoundTrip", pgxRoundTrip},
		{"Prepared", pgxPrepared},
		{"Copy", pgxCopy},
		{"Transactions", pgxTransactions},
		{"Errors", pgxErrors},
		{"ParamDML", pgxParamDML},
		{"ReturningSubquery", pgxReturningSubquery},
		{"OIDs", pgxOIDs},
		{"Vectors", pgxVectors},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tc.fn(t, ctx, connect(t, ctx, s.NewDatabase(t)))
		})
	}
}

// connect opens a pgx connection closed at the end of the test.
func connect(t testing.TB, ctx context.Context, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// mustExec runs statements that must succeed.
func mustExec(t testing.TB, ctx context.Context, c *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, sql := range sqls {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// allTypes is one row of the round-trip table, one field per type.
type allTypes struct {
	B  bool
	S  int16
	I  int32
	G  int64
	R  float32
	D  float64
	N  pgtype.Numeric
	T  string
	VC string
	C  string
	By []byte
	Dt time.Time
	Tm pgtype.Time
	Ts time.Time
	Tz time.Time
	Iv pgtype.Interval
	J  map[string]any
}

// fields returns pointers to every field, in column order.
func (a *allTypes) fields() []any {
	return []any{&a.B, &a.S, &a.I, &a.G, &a.R, &a.D, &a.N, &a.T, &a.VC, &a.C, &a.By, &a.Dt, &a.Tm, &a.Ts, &a.Tz, &a.Iv, &a.J}
}

// values returns every field's value, in column order.
func (a *allTypes) values() []any {
	return []any{a.B, a.S, a.I, a.G, a.R, a.D, a.N, a.T, a.VC, a.C, a.By, a.Dt, a.Tm, a.Ts, a.Tz, a.Iv, a.J}
}

const allTypesDDL = `CREATE TABLE rt (id int PRIMARY KEY, b boolean, s smallint, i integer, g bigint, r real,
	d double precision, n numeric(12,3), t text, vc varchar(10), c char(4), by bytea, dt date, tm time,
	ts timestamp, tz timestamptz, iv interval, j jsonb)`

const allTypesCols = "b, s, i, g, r, d, n, t, vc, c, by, dt, tm, ts, tz, iv, j"

// pgxRoundTrip inserts a value of every type with parameters and reads it
// back, in every pgx execution mode: extended protocol with binary
// parameters and results (cached statements, cached descriptions,
// describe-then-execute), text parameters (exec mode) and the simple
// protocol.
func pgxRoundTrip(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, allTypesDDL)
	want := allTypes{
		B: true, S: -12, I: 123456, G: -9_000_000_000_000_000, R: 1.5, D: 2.25e-3,
		N: pgtype.Numeric{Int: big.NewInt(12345678), Exp: -3, Valid: true},
		T: "héllo ✓ 'quoted'", VC: "abc", C: "ab  ", By: []byte{0, 1, 2, 255},
		Dt: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		Tm: pgtype.Time{Microseconds: (13*3600+45*60+1)*1e6 + 250000, Valid: true},
		Ts: time.Date(2024, 2, 29, 13, 45, 1, 500000000, time.UTC),
		Tz: time.Date(2024, 2, 29, 13, 45, 1, 0, time.FixedZone("x", 2*3600)),
		Iv: pgtype.Interval{Months: 14, Days: 3, Microseconds: 4_000_001, Valid: true},
		J:  map[string]any{"a": 1.0, "b": []any{"x", nil, true}, "c": map[string]any{"d": "e"}},
	}
	modes := map[string]pgx.QueryExecMode{
		"cache_statement": pgx.QueryExecModeCacheStatement,
		"cache_describe":  pgx.QueryExecModeCacheDescribe,
		"describe_exec":   pgx.QueryExecModeDescribeExec,
		"exec":            pgx.QueryExecModeExec,
		"simple_protocol": pgx.QueryExecModeSimpleProtocol,
	}
	id := 0
	for name, mode := range modes {
		id++
		vals := want.values()
		if mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol {
			// Without parameter types pgx cannot encode a map: send JSON text.
			j, _ := json.Marshal(want.J)
			vals[len(vals)-1] = string(j)
		}
		args := append([]any{mode, id}, vals...)
		_, err := c.Exec(ctx, "INSERT INTO rt (id, "+allTypesCols+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)", args...)
		if err != nil {
			t.Fatalf("%s: insert: %v", name, err)
		}
		for _, format := range []int16{pgx.BinaryFormatCode, pgx.TextFormatCode} {
			var got allTypes
			q := []any{mode, pgx.QueryResultFormats{format}, id}
			if mode == pgx.QueryExecModeSimpleProtocol {
				q = []any{mode, id}
			}
			if err := c.QueryRow(ctx, "SELECT "+allTypesCols+" FROM rt WHERE id = $1", q...).Scan(got.fields()...); err != nil {
				t.Fatalf("%s format %d: select: %v", name, format, err)
			}
			checkAllTypes(t, name, &want, &got)
		}
	}
	checkNulls(t, ctx, c)
}

// checkAllTypes compares two rows field by field.
func checkAllTypes(t *testing.T, mode string, want, got *allTypes) {
	t.Helper()
	wv, gv := want.values(), got.values()
	names := strings.Split(allTypesCols, ", ")
	for i := range wv {
		if !sameValue(wv[i], gv[i]) {
			t.Errorf("%s: column %s: got %#v, want %#v", mode, names[i], gv[i], wv[i])
		}
	}
}

// sameValue compares values with the equality that fits their type.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case time.Time:
		return a.Equal(b.(time.Time))
	case pgtype.Numeric:
		bn := b.(pgtype.Numeric)
		af, _ := a.Float64Value()
		bf, _ := bn.Float64Value()
		return af == bf
	}
	return reflect.DeepEqual(a, b)
}

// checkNulls inserts NULL into every column and reads NULLs back.
func checkNulls(t *testing.T, ctx context.Context, c *pgx.Conn) {
	nulls := make([]any, 18)
	nulls[0] = 100
	if _, err := c.Exec(ctx, "INSERT INTO rt (id, "+allTypesCols+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)", nulls...); err != nil {
		t.Fatalf("insert NULLs: %v", err)
	}
	rows, err := c.Query(ctx, "SELECT "+allTypesCols+" FROM rt WHERE id = 100")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := pgx.CollectExactlyOneRow(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != nil {
			t.Errorf("column %d: got %#v, want NULL", i, v)
		}
	}
}

// pgxPrepared checks named prepared statements: parameter types come from
// the server's description, and a statement runs many times.
func pgxPrepared(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	sd, err := c.Prepare(ctx, "ins", "INSERT INTO kv VALUES ($1, $2)")
	if err != nil {
		t.Fatal(err)
	}
	if got := sd.ParamOIDs; !reflect.DeepEqual(got, []uint32{pgtype.Int4OID, pgtype.TextOID}) {
		t.Errorf("parameter OIDs %v, want [int4 text]", got)
	}
	for i := range 20 {
		if _, err := c.Exec(ctx, "ins", i, strings.Repeat("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	sel, err := c.Prepare(ctx, "sel", "SELECT v, length(v) FROM kv WHERE k = $1")
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Fields) != 2 || sel.Fields[0].DataTypeOID != pgtype.TextOID {
		t.Errorf("result fields %+v, want (text, int)", sel.Fields)
	}
	var v string
	var n int
	if err := c.QueryRow(ctx, "sel", 7).Scan(&v, &n); err != nil || v != "xxxxxxx" || n != 7 {
		t.Errorf("sel(7) = %q, %d, %v", v, n, err)
	}
	var sum int
	if err := c.QueryRow(ctx, "SELECT sum(k) + $1::int FROM kv", 1000).Scan(&sum); err != nil || sum != 1190 {
		t.Errorf("sum = %d, %v; want 1190", sum, err)
	}
	if err := c.Deallocate(ctx, "ins"); err != nil {
		t.Errorf("deallocate: %v", err)
	}
}

// pgxCopy loads rows with COPY FROM STDIN: pgx's binary CopyFrom (an
// engine may refuse binary COPY with 0A000), then text and CSV COPY.
func pgxCopy(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE cp (a int, b text, n numeric(6,2))")
	rows := [][]any{{1, "one", "1.50"}, {2, nil, "2"}, {3, "tab\there", nil}}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"cp"}, []string{"a", "b", "n"}, pgx.CopyFromRows(rows))
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "0A000":
		t.Logf("binary COPY not supported: %v", err)
	case err != nil:
		t.Fatalf("binary COPY: %v", err)
	case n != 3:
		t.Fatalf("binary COPY copied %d rows, want 3", n)
	default:
		mustExec(t, ctx, c, "DELETE FROM cp")
	}
	text := "1\tone\t1.50\n2\t\\N\t2\n3\ttab\\there\t\\N\n"
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(text), "COPY cp (a, b, n) FROM STDIN")
	if err != nil || tag.RowsAffected() != 3 {
		t.Fatalf("text COPY: %v, %v", tag, err)
	}
	csv := "4,\"four, quoted\",4.25\n5,,\n6,\"\",0\n"
	tag, err = c.PgConn().CopyFrom(ctx, strings.NewReader(csv), "COPY cp FROM STDIN (FORMAT csv)")
	if err != nil || tag.RowsAffected() != 3 {
		t.Fatalf("CSV COPY: %v, %v", tag, err)
	}
	got := queryStrings(t, ctx, c, "SELECT a::text, coalesce(b, '<null>'), coalesce(n::text, '<null>') FROM cp ORDER BY a")
	want := "1|one|1.50 2|<null>|2.00 3|tab\there|<null> 4|four, quoted|4.25 5|<null>|<null> 6||0.00"
	if got != want {
		t.Errorf("after COPY:\n got %q\nwant %q", got, want)
	}
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader("x\ty\tz\n"), "COPY cp FROM STDIN"); err == nil {
		t.Error("COPY of a malformed integer succeeded")
	} else if !errors.As(err, &pgErr) || pgErr.Code != "22P02" {
		t.Errorf("COPY of a malformed integer: %v, want 22P02", err)
	}
}

// queryStrings runs sql and joins its rows: values by "|", rows by " ".
func queryStrings(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i], _ = v.(string)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(out, " ")
}

// pgxTransactions checks commit, rollback and an aborted transaction.
func pgxTransactions(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE tx (k int PRIMARY KEY)")
	err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO tx VALUES (1), (2)")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO tx VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	tx, err = c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO tx VALUES (4)"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "INSERT INTO tx VALUES (1)")
	checkCode(t, err, "23505")
	_, err = tx.Exec(ctx, "INSERT INTO tx VALUES (5)")
	checkCode(t, err, "25P02")
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Errorf("commit of an aborted transaction: %v, want ErrTxCommitRollback", err)
	}
	if got := queryStrings(t, ctx, c, "SELECT k::text FROM tx ORDER BY k"); got != "1 2" {
		t.Errorf("rows after transactions: %q, want \"1 2\"", got)
	}
}

// checkCode fails unless err is an SQL error with the given SQLSTATE.
func checkCode(t *testing.T, err error, code string) *pgconn.PgError {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != code {
		t.Errorf("got %v, want SQLSTATE %s", err, code)
		return &pgconn.PgError{}
	}
	return pgErr
}

// pgxErrors checks SQLSTATEs and cursor positions of errors, and that the
// connection stays usable after each.
func pgxErrors(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE er (id int PRIMARY KEY, v text)")
	for _, tc := range []struct {
		sql  string
		code string
		pos  int32 // 1-based character position, 0 when none is reported
	}{
		{"SELECT nosuch FROM er", "42703", 8},
		{"SELECT * FROM er WHERE vv = 1", "42703", 24},
		{"SELECT * FROM nosuch", "42P01", 15},
		{"SELECT * FROM er WHERE", "42601", 23},
		{"SELEC 1", "42601", 1},
		{"SELECT 'x'::int", "22P02", 8},
		{"SELECT 1/0", "22012", 0},
		{"INSERT INTO er VALUES (1, NULL), (1, NULL)", "23505", 0},
	} {
		_, err := c.Exec(ctx, tc.sql)
		if e := checkCode(t, err, tc.code); e.Code != "" && e.Position != tc.pos {
			t.Errorf("%s: position %d, want %d", tc.sql, e.Position, tc.pos)
		}
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM er").Scan(&n); err != nil || n != 0 {
		t.Errorf("after errors: count %d, %v", n, err)
	}
	_, err := c.Exec(ctx, "SELECT $1::int", "notanint")
	checkCode(t, err, "22P02")
}

// pgxParamDML runs INSERT, UPDATE and DELETE with parameters through the
// extended protocol (pgx describes each statement for its parameter types
// first), checking the effect through a materialized view.
func pgxParamDML(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE pd (k int PRIMARY KEY, v int)",
		"CREATE MATERIALIZED VIEW pd_sum AS SELECT count(*) AS n, sum(v) AS s FROM pd")
	for i := 1; i <= 4; i++ {
		if _, err := c.Exec(ctx, "INSERT INTO pd VALUES ($1, $2)", i, i*10); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	if tag, err := c.Exec(ctx, "UPDATE pd SET v = $1 WHERE k = $2", 100, 2); err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("update: %v %v", tag, err)
	}
	if tag, err := c.Exec(ctx, "DELETE FROM pd WHERE k = $1 OR v = $2", 3, 40); err != nil || tag.RowsAffected() != 2 {
		t.Fatalf("delete: %v %v", tag, err)
	}
	queries := []string{"SELECT count(*), sum(v) FROM pd"}
	var version string
	if err := c.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(version, "Eddy") { // PostgreSQL does not maintain the view
		queries = append(queries, "SELECT n, s FROM pd_sum")
	}
	for _, q := range queries {
		var n, sum int64
		if err := c.QueryRow(ctx, q).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if n != 2 || sum != 110 {
			t.Fatalf("%s after parameterized writes: n=%d sum=%d, want 2 and 110", q, n, sum)
		}
	}
}

// pgxOIDs sends and reads oid values above 2^31 in binary and text: oid is
// unsigned (oidsend/oidrecv), so 4294966256 travels as 0xFFFFFBF0 and
// '-1040'::oid reads as 4294966256.
func pgxOIDs(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE oids (id int PRIMARY KEY, o oid, os oid[])")
	big := uint32(4294966256)
	if _, err := c.Exec(ctx, "INSERT INTO oids VALUES ($1, $2, $3)", 1, big, []uint32{1, 4294967295, big}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	mustExec(t, ctx, c, "INSERT INTO oids VALUES (2, '-1040', '{-1,2147483648}')")
	for _, format := range []int16{pgx.BinaryFormatCode, pgx.TextFormatCode} {
		for id, want := range map[int][]uint32{1: {1, 4294967295, big}, 2: {4294967295, 2147483648}} {
			var o uint32
			var os []uint32
			err := c.QueryRow(ctx, "SELECT o, os FROM oids WHERE id = $1", pgx.QueryResultFormats{format}, id).Scan(&o, &os)
			if err != nil {
				t.Fatalf("format %d: select: %v", format, err)
			}
			if o != big || !reflect.DeepEqual(os, want) {
				t.Errorf("format %d, id %d: got %d %v, want %d %v", format, id, o, os, big, want)
			}
		}
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM oids WHERE o = $1", pgx.QueryResultFormats{format}, big).Scan(&n); err != nil || n != 2 {
			t.Errorf("format %d: rows with o = %d: %d, %v; want 2", format, big, n, err)
		}
	}
}

// pgxVectors reads int2vector and oidvector in binary (int2vectorsend: an
// array of one dimension whose lower bound is 0) and sends one back.
func pgxVectors(t *testing.T, ctx context.Context, c *pgx.Conn) {
	want := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 7, 0, 0, 0, 2, 0, 9}
	var got []byte
	if err := c.QueryRow(ctx, "SELECT '7 9'::int2vector", pgx.QueryResultFormats{pgx.BinaryFormatCode}).Scan(&got); err != nil {
		t.Fatalf("select: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("int2vector binary: got %v, want %v", got, want)
	}
	wantOID := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 26, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 255, 255, 255, 255}
	if err := c.QueryRow(ctx, "SELECT '4294967295'::oidvector", pgx.QueryResultFormats{pgx.BinaryFormatCode}).Scan(&got); err != nil {
		t.Fatalf("select: %v", err)
	}
	if !bytes.Equal(got, wantOID) {
		t.Errorf("oidvector binary: got %v, want %v", got, wantOID)
	}
	recv := func(b []byte) (string, error) {
		res := c.PgConn().ExecParams(ctx, "SELECT $1::text", [][]byte{b}, []uint32{22}, []int16{pgx.BinaryFormatCode}, []int16{pgx.TextFormatCode}).Read()
		if res.Err != nil {
			return "", res.Err
		}
		return string(res.Rows[0][0]), nil
	}
	if text, err := recv(want); err != nil || text != "7 9" {
		t.Errorf("int2vector binary input: %q, %v; want \"7 9\"", text, err)
	}
	bad := append([]byte(nil), want...)
	bad[19] = 1 // lower bound 1
	if text, err := recv(bad); err == nil {
		t.Errorf("int2vector binary input with lower bound 1: got %q, want an error", text)
	}
}
