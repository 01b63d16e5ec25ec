package tests

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/eddydb/eddy/tests/harness"
)

// TestLibPQ runs the lib/pq (database/sql) client tests against the target
// (Eddy, or PostgreSQL with EDDY_TEST_TARGET=postgres).
func TestLibPQ(t *testing.T) { runLibPQ(t, harness.StartTarget(t)) }

// TestLibPQPostgres runs them against PostgreSQL 15, which proves the
// expectations written in this file.
func TestLibPQPostgres(t *testing.T) { runLibPQ(t, harness.StartPostgres(t)) }

// runLibPQ runs every lib/pq scenario against one database of s; each
// scenario uses its own tables, so they share the server (one Eddy start).
func runLibPQ(t *testing.T, s *harness.Server) {
	dsn := s.NewDatabase(t)
	db, err := gosql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, db *gosql.DB)
	}{
		{"Types", pqTypes},
		{"Nulls", pqNulls},
		{"Transactions", pqTransactions},
		{"Errors", pqErrors},
		{"CopyIn", pqCopyIn},
		{"MaterializedView", pqMaterializedView},
		{"Catalog", pqCatalog},
		{"TimeZone", pqTimeZone},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, db) })
	}
	t.Run("Listen", func(t *testing.T) { pqListen(t, db, dsn) })
	t.Run("BinaryParameters", func(t *testing.T) {
		// binary_parameters=yes sends []byte parameters in binary format and
		// runs unnamed statements without a separate Describe round trip.
		bin, err := gosql.Open("postgres", dsn+"&binary_parameters=yes")
		if err != nil {
			t.Fatal(err)
		}
		defer bin.Close()
		pqTypesIn(t, bin, "pqt_bin")
	})
}

// pqExec runs statements that must succeed.
func pqExec(t *testing.T, db *gosql.DB, sqls ...string) {
	t.Helper()
	for _, sql := range sqls {
		if _, err := db.Exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// pqCode returns the SQLSTATE of err, "" when err is not a *pq.Error.
func pqCode(err error) string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

// isEddy reports whether db is served by Eddy (PostgreSQL does not maintain
// materialized views incrementally).
func isEddy(t *testing.T, db *gosql.DB) bool {
	t.Helper()
	var version string
	if err := db.QueryRow("SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	return strings.Contains(version, "Eddy")
}

// pqTypes round-trips one row of many types through a prepared INSERT and
// a prepared SELECT with parameters; each value read back is compared with
// the value written.
func pqTypes(t *testing.T, db *gosql.DB) { pqTypesIn(t, db, "pqt") }

// pqTypesIn runs pqTypes over table name.
func pqTypesIn(t *testing.T, db *gosql.DB, table string) {
	pqExec(t, db, `CREATE TABLE `+table+` (id int2 PRIMARY KEY, i int4, g int8, n numeric, f float8,
		s text, b bool, y bytea, d date, ts timestamp, tz timestamptz, iv interval, u uuid, j jsonb,
		ai int4[], at text[])`)
	ins, err := db.Prepare(`INSERT INTO ` + table + ` VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	for id := 1; id <= 2; id++ {
		if _, err := ins.Exec(id, 2147483647, int64(-9007199254740993), "12345.678", 2.5,
			"héllo, 'world'", id == 1, []byte{0, 1, 0xfe, 0xff}, "2024-02-29", ts, ts, "1 day 02:03:04",
			"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `{"a": [1, 2], "b": null}`,
			pq.Array([]int64{1, -2, 3}), pq.Array([]string{"x", "y z", `q"t`})); err != nil {
			t.Fatalf("insert %d: %v", id, err)
		}
	}
	sel, err := db.Prepare(`SELECT i, g, n, f, s, b, y, d, ts, tz, iv, u, j, ai, at FROM ` + table + ` WHERE id = $1 AND b = $2`)
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Close()
	var (
		i, g            int64
		n, s, iv, u, j  string
		f               float64
		b               bool
		y               []byte
		d, gotTS, gotTZ time.Time
		ai              []int64
		at              []string
	)
	if err := sel.QueryRow(1, true).Scan(&i, &g, &n, &f, &s, &b, &y, &d, &gotTS, &gotTZ, &iv, &u, &j,
		pq.Array(&ai), pq.Array(&at)); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v", what, got, want)
		}
	}
	check("int4", i, int64(2147483647))
	check("int8", g, int64(-9007199254740993))
	check("numeric", n, "12345.678")
	check("float8", f, 2.5)
	check("text", s, "héllo, 'world'")
	check("bool", b, true)
	check("bytea", y, []byte{0, 1, 0xfe, 0xff})
	check("date", d.Format("2006-01-02"), "2024-02-29")
	check("timestamp", gotTS.Format(time.RFC3339Nano), "2024-02-29T13:14:15.123456Z")
	check("timestamptz", gotTZ.UTC().Format(time.RFC3339Nano), "2024-02-29T13:14:15.123456Z")
	check("interval", iv, "1 day 02:03:04")
	check("uuid", u, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
	check("jsonb", j, `{"a": [1, 2], "b": null}`)
	check("int4[]", ai, []int64{1, -2, 3})
	check("text[]", at, []string{"x", "y z", `q"t`})
	var count int
	if err := sel.QueryRow(2, true).Scan(&i); !errors.Is(err, gosql.ErrNoRows) {
		t.Errorf("id 2 is false: got %v, want no rows", err)
	}
	if err := db.QueryRow("SELECT count(*) FROM "+table+" WHERE i = $1 AND ai = $2", 2147483647,
		pq.Array([]int64{1, -2, 3})).Scan(&count); err != nil || count != 2 {
		t.Errorf("array parameter in WHERE: %d, %v; want 2", count, err)
	}
}

// pqNulls writes NULL parameters of several types and reads them back as
// sql.Null* values, then checks IS NULL filtering.
func pqNulls(t *testing.T, db *gosql.DB) {
	pqExec(t, db, "CREATE TABLE pqn (id int PRIMARY KEY, i int8, s text, f float8, b bool, y bytea, ts timestamptz)")
	if _, err := db.Exec("INSERT INTO pqn VALUES ($1, $2, $3, $4, $5, $6, $7)", 1, nil, nil, nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO pqn VALUES ($1, $2, $3, $4, $5, $6, $7)", 2, 7, "x", 1.5, false, []byte("b"), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	var (
		i  gosql.NullInt64
		s  gosql.NullString
		f  gosql.NullFloat64
		b  gosql.NullBool
		y  []byte
		ts gosql.NullTime
	)
	if err := db.QueryRow("SELECT i, s, f, b, y, ts FROM pqn WHERE id = $1", 1).Scan(&i, &s, &f, &b, &y, &ts); err != nil {
		t.Fatal(err)
	}
	if i.Valid || s.Valid || f.Valid || b.Valid || y != nil || ts.Valid {
		t.Errorf("row 1 should be all NULL: %v %v %v %v %v %v", i, s, f, b, y, ts)
	}
	var ids []int
	rows, err := db.Query("SELECT id FROM pqn WHERE s IS NOT NULL AND i = $1 ORDER BY id", 7)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil || len(ids) != 1 || ids[0] != 2 {
		t.Errorf("IS NOT NULL filter: %v, %v; want [2]", ids, err)
	}
}

// pqTransactions commits one transaction and rolls another back, checking
// that only the committed rows remain, and that a failed statement aborts
// the transaction (25P02) until ROLLBACK.
func pqTransactions(t *testing.T, db *gosql.DB) {
	pqExec(t, db, "CREATE TABLE pqx (k int PRIMARY KEY, v text)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 3; k++ {
		if _, err := tx.Exec("INSERT INTO pqx VALUES ($1, $2)", k, "c"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO pqx VALUES ($1, $2)", 4, "r"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("DELETE FROM pqx WHERE k = $1", 1); err != nil {
		t.Fatal(err)
	}
	var inTx int
	if err := tx.QueryRow("SELECT count(*) FROM pqx").Scan(&inTx); err != nil || inTx != 3 {
		t.Errorf("count inside the transaction: %d, %v; want 3", inTx, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	var n, sum int
	if err := db.QueryRow("SELECT count(*), sum(k) FROM pqx").Scan(&n, &sum); err != nil || n != 3 || sum != 6 {
		t.Errorf("after rollback: count %d sum %d, %v; want 3 and 6", n, sum, err)
	}
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = tx.Exec("INSERT INTO pqx VALUES ($1, $2)", 1, "dup")
	if got := pqCode(err); got != "23505" {
		t.Errorf("duplicate key in transaction: %v, want 23505", err)
	}
	_, err = tx.Exec("SELECT 1")
	if got := pqCode(err); got != "25P02" {
		t.Errorf("after a failed statement: %v, want 25P02", err)
	}
}

// pqErrors checks the SQLSTATE and message lib/pq reports for common
// errors (and severity and cursor position for one), and that the connection stays usable after each.
func pqErrors(t *testing.T, db *gosql.DB) {
	pqExec(t, db, "CREATE TABLE pqe (id int PRIMARY KEY)", "INSERT INTO pqe VALUES (1)")
	for _, tc := range []struct {
		sql  string
		args []any
		code string
	}{
		{"INSERT INTO pqe VALUES ($1)", []any{1}, "23505"},
		{"SELECT * FROM pqe_nosuch", nil, "42P01"},
		{"SELECT nosuch FROM pqe", nil, "42703"},
		{"SELEC 1", nil, "42601"},
		{"SELECT $1::int", []any{"notanint"}, "22P02"},
		{"SELECT 1/0", nil, "22012"},
		{"INSERT INTO pqe VALUES ($1)", []any{nil}, "23502"},
	} {
		_, err := db.Exec(tc.sql, tc.args...)
		var pe *pq.Error
		if !errors.As(err, &pe) || string(pe.Code) != tc.code || pe.Message == "" {
			t.Errorf("%s: got %v, want SQLSTATE %s", tc.sql, err, tc.code)
		}
	}
	_, err := db.Exec("SELECT nosuch FROM pqe")
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Severity != "ERROR" || pe.Position != "8" {
		t.Errorf("undefined column: %#v, want severity ERROR at position 8", err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pqe").Scan(&n); err != nil || n != 1 {
		t.Errorf("after errors: count %d, %v; want 1", n, err)
	}
}

// pqCopyIn loads rows with lib/pq's COPY FROM STDIN statement inside a transaction, NULLs and
// awkward text included, and checks them back.
func pqCopyIn(t *testing.T, db *gosql.DB) {
	pqExec(t, db, "CREATE TABLE pqc (id int PRIMARY KEY, s text, f float8)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// The statement pq.CopyIn builds; lib/pq 1.12 deprecates the builder in
	// favour of preparing it directly, which runs lib/pq's copyin path.
	stmt, err := tx.Prepare(`COPY pqc (id, s, f) FROM STDIN`)
	if err != nil {
		t.Fatal(err)
	}
	const rowsIn = 500
	for i := 1; i <= rowsIn; i++ {
		var s any = "row\t" + strings.Repeat("\\", i%3) + "\n"
		if i%10 == 0 {
			s = nil
		}
		if _, err := stmt.Exec(i, s, float64(i)/4); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := stmt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n, nulls int
	var sum float64
	if err := db.QueryRow("SELECT count(*), count(*) FILTER (WHERE s IS NULL), sum(f) FROM pqc").Scan(&n, &nulls, &sum); err != nil {
		t.Fatal(err)
	}
	if n != rowsIn || nulls != rowsIn/10 || sum != float64(rowsIn*(rowsIn+1)/2)/4 {
		t.Errorf("copied: count %d nulls %d sum %v", n, nulls, sum)
	}
	var s string
	if err := db.QueryRow("SELECT s FROM pqc WHERE id = 2").Scan(&s); err != nil || s != "row\t\\\\\n" {
		t.Errorf("row 2: %q, %v", s, err)
	}
}

// pqMaterializedView creates a view before the data, writes through
// prepared statements (insert, update, delete) and reads the view back; on
// PostgreSQL the view is refreshed first.
func pqMaterializedView(t *testing.T, db *gosql.DB) {
	pqExec(t, db, "CREATE TABLE pqm (k int PRIMARY KEY, grp text, v int8)",
		"CREATE MATERIALIZED VIEW pqm_v AS SELECT grp, count(*) AS n, sum(v) AS s FROM pqm GROUP BY grp")
	for k := 1; k <= 6; k++ {
		grp := []string{"a", "b"}[k%2]
		if _, err := db.Exec("INSERT INTO pqm VALUES ($1, $2, $3)", k, grp, k*10); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := db.Exec("UPDATE pqm SET v = v + $1 WHERE grp = $2", 1, "a"); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 3 {
		t.Errorf("update affected %d rows, want 3", n)
	}
	if res, err := db.Exec("DELETE FROM pqm WHERE k = $1", 1); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("delete affected %d rows, want 1", n)
	}
	if !isEddy(t, db) {
		pqExec(t, db, "REFRESH MATERIALIZED VIEW pqm_v")
	}
	rows, err := db.Query("SELECT grp, n, s FROM pqm_v ORDER BY grp")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var grp string
		var n, s int64
		if err := rows.Scan(&grp, &n, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s:%d:%d", grp, n, s))
	}
	// a: k=2,4,6 -> 3 rows, 20+40+60+3; b: k=3,5 -> 2 rows, 30+50.
	want := []string{"a:3:123", "b:2:80"}
	if err := rows.Err(); err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("view: %v, %v; want %v", got, err, want)
	}
}

// pqCatalog runs catalog queries of the kind lib/pq-based tools issue:
// listing a table's columns with their types through pg_attribute and
// format_type, and the table through information_schema.
func pqCatalog(t *testing.T, db *gosql.DB) {
	pqExec(t, db, "CREATE TABLE pqcat (id int8 PRIMARY KEY, name varchar(20) NOT NULL, note text)")
	rows, err := db.Query(`SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid
		JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid
		WHERE c.relname = $1 AND n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`, "pqcat")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name, typ string
		var notNull bool
		if err := rows.Scan(&name, &typ, &notNull); err != nil {
			t.Fatal(err)
		}
		if notNull {
			typ += " not null"
		}
		got = append(got, name+" "+typ)
	}
	want := "id bigint not null,name character varying(20) not null,note text"
	if err := rows.Err(); err != nil || strings.Join(got, ",") != want {
		t.Errorf("columns: %q, %v; want %q", strings.Join(got, ","), err, want)
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM information_schema.tables
		WHERE table_schema = 'public' AND table_name = $1`, "pqcat").Scan(&tables); err != nil || tables != 1 {
		t.Errorf("information_schema.tables: %d, %v; want 1", tables, err)
	}
}

// pqListen listens with pq.NewListener and receives a NOTIFY with payload
// and a pg_notify sent from another connection.
func pqListen(t *testing.T, db *gosql.DB, dsn string) {
	l := pq.NewListener(dsn, 10*time.Millisecond, time.Second, nil)
	defer l.Close()
	if err := l.Listen("pq_chan"); err != nil {
		t.Fatal(err)
	}
	pqExec(t, db, "NOTIFY pq_chan, 'hello'")
	if _, err := db.Exec("SELECT pg_notify($1, $2)", "pq_chan", "world"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hello", "world"} {
		select {
		case n := <-l.Notify:
			if n == nil || n.Channel != "pq_chan" || n.Extra != want {
				t.Errorf("notification %+v, want pq_chan %q", n, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification %q", want)
		}
	}
}

// pqTimeZone sets the session time zone on one pooled connection and
// checks that lib/pq reads timestamptz with the zone's offset, the same
// instant, and that a timestamptz parameter is that instant too.
func pqTimeZone(t *testing.T, db *gosql.DB) {
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer c.ExecContext(ctx, "RESET TimeZone") // best effort, before the pool reuses c
	if _, err := c.ExecContext(ctx, "SET TimeZone = 'America/New_York'"); err != nil {
		t.Fatal(err)
	}
	want := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	var got time.Time
	var same bool
	if err := c.QueryRowContext(ctx, "SELECT '2024-02-29 13:14:15+00'::timestamptz, $1::timestamptz = '2024-02-29 08:14:15-05'",
		want).Scan(&got, &same); err != nil {
		t.Fatal(err)
	}
	if _, off := got.Zone(); !got.Equal(want) || off != -5*3600 || !same {
		t.Errorf("timestamptz in New York: %v (offset %d), parameter equal %v; want %v at -05:00", got, off, same, want)
	}
}
