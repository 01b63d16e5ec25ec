package tests

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPgxProtocol checks, with pgx, what drivers and pools send beyond
// plain statements: nested transactions (savepoints), protocol-level and
// SQL-level prepared statements in one namespace, DEALLOCATE ALL, named
// cursors over the extended protocol, empty and comment-only queries,
// notices and ParameterStatus.
func TestPgxProtocol(t *testing.T) { runPgxProtocol(t, harness.StartTarget(t)) }

// TestPgxProtocolPostgres runs the same scenarios against PostgreSQL.
func TestPgxProtocolPostgres(t *testing.T) { runPgxProtocol(t, harness.StartPostgres(t)) }

// protoConn is a pgx connection that records the notices it receives.
type protoConn struct {
	*pgx.Conn
	s       *harness.Server
	mu      sync.Mutex
	notices []*pgconn.Notice
}

// takeNotices returns and clears the notices received so far.
func (c *protoConn) takeNotices() []*pgconn.Notice {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.notices
	c.notices = nil
	return n
}

func runPgxProtocol(t *testing.T, s *harness.Server) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, c *protoConn)
	}{
		{"NestedTransactions", pgxNestedTx},
		{"NestedTransactionError", pgxNestedTxError},
		{"PreparedNamespace", pgxPreparedNamespace},
		{"Cursors", pgxCursors},
		{"EmptyQueries", pgxEmptyQueries},
		{"Notices", pgxNotices},
		{"ParameterStatus", pgxParameterStatus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tc.fn(t, ctx, connectRecording(t, ctx, s))
		})
	}
}

// connectRecording opens a connection to a fresh database of s that
// records notices.
func connectRecording(t *testing.T, ctx context.Context, s *harness.Server) *protoConn {
	cfg, err := pgx.ParseConfig(s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	pc := &protoConn{s: s}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		pc.mu.Lock()
		pc.notices = append(pc.notices, n)
		pc.mu.Unlock()
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	pc.Conn = c
	return pc
}

// refreshed reads sql after refreshing PostgreSQL's views (Eddy's are
// always fresh).
func (c *protoConn) refreshed(t *testing.T, ctx context.Context, sql string) string {
	if c.s.Kind() == harness.Postgres {
		mustExec(t, ctx, c.Conn, refreshAllSQL)
	}
	return queryStrings(t, ctx, c.Conn, sql)
}

// pgxNestedTx nests pgx transactions (SAVEPOINT sp_1, ...): the rolled
// back inner one's insert, update and delete are gone, the committed
// ones stay, and a view over the table shows exactly that.
func pgxNestedTx(t *testing.T, ctx context.Context, c *protoConn) {
	mustExec(t, ctx, c.Conn, "CREATE TABLE nt (k int PRIMARY KEY, v text)",
		"CREATE MATERIALIZED VIEW ntv AS SELECT count(*)::text AS n, string_agg(v, ',' ORDER BY k) AS vs FROM nt",
		"INSERT INTO nt VALUES (1, 'a'), (2, 'b')")
	err := pgx.BeginFunc(ctx, c.Conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO nt VALUES (3, 'c')"); err != nil {
			return err
		}
		inner, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		for _, sql := range []string{"INSERT INTO nt VALUES (4, 'd')", "UPDATE nt SET v = 'B' WHERE k = 2", "DELETE FROM nt WHERE k = 1"} {
			if _, err := inner.Exec(ctx, sql); err != nil {
				return err
			}
		}
		if got := queryStrings(t, ctx, c.Conn, "SELECT v FROM nt ORDER BY k"); got != "B c d" {
			t.Errorf("inside the inner transaction: %q", got)
		}
		if err := inner.Rollback(ctx); err != nil {
			return err
		}
		return pgx.BeginFunc(ctx, tx, func(inner2 pgx.Tx) error {
			_, err := inner2.Exec(ctx, "UPDATE nt SET v = 'A' WHERE k = 1")
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.refreshed(t, ctx, "SELECT n, vs FROM ntv"); got != "3|A,b,c" {
		t.Errorf("view after the nested transactions: %q, want \"3|A,b,c\"", got)
	}
}

// pgxNestedTxError: an error inside a nested transaction fails only it;
// rolling it back (ROLLBACK TO) lets the outer one commit its own work.
func pgxNestedTxError(t *testing.T, ctx context.Context, c *protoConn) {
	mustExec(t, ctx, c.Conn, "CREATE TABLE ne (k int PRIMARY KEY)")
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExecTx(t, ctx, tx, "INSERT INTO ne VALUES (1)")
	inner, err := tx.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExecTx(t, ctx, inner, "INSERT INTO ne VALUES (2)")
	_, err = inner.Exec(ctx, "INSERT INTO ne VALUES (1)")
	checkCode(t, err, "23505")
	_, err = inner.Exec(ctx, "SELECT 1")
	checkCode(t, err, "25P02")
	if err := inner.Rollback(ctx); err != nil {
		t.Fatalf("rollback of the inner transaction: %v", err)
	}
	mustExecTx(t, ctx, tx, "INSERT INTO ne VALUES (3)")
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if got := queryStrings(t, ctx, c.Conn, "SELECT k::text FROM ne ORDER BY k"); got != "1 3" {
		t.Errorf("rows: %q, want \"1 3\"", got)
	}
}

// mustExecTx runs a statement in tx that must succeed.
func mustExecTx(t *testing.T, ctx context.Context, tx pgx.Tx, sql string) {
	t.Helper()
	if _, err := tx.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// pgxPreparedNamespace: a statement prepared with Parse is visible in
// pg_prepared_statements and runs with EXECUTE; PREPARE and Parse share
// names (42P05); DEALLOCATE ALL drops both kinds, so a later Bind finds
// nothing (26000).
func pgxPreparedNamespace(t *testing.T, ctx context.Context, c *protoConn) {
	pc := c.PgConn()
	if _, err := pc.Prepare(ctx, "wire_ps", "SELECT $1::int + 1", nil); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, c.Conn, "PREPARE sql_ps AS SELECT 'x' || $1::text")
	got := queryStrings(t, ctx, c.Conn, "SELECT name || ':' || from_sql::text FROM pg_prepared_statements WHERE name IN ('wire_ps', 'sql_ps') ORDER BY name")
	if got != "sql_ps:true wire_ps:false" {
		t.Errorf("pg_prepared_statements: %q", got)
	}
	res := pc.ExecParams(ctx, "EXECUTE wire_ps(41)", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "42" {
		t.Errorf("EXECUTE of a Parse'd statement: %v %q", res.Err, res.Rows)
	}
	_, err := pc.Prepare(ctx, "sql_ps", "SELECT 1", nil)
	checkCode(t, err, "42P05")
	res = pc.ExecPrepared(ctx, "sql_ps", [][]byte{[]byte("y")}, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "xy" {
		t.Errorf("Bind of a PREPAREd statement: %v %q", res.Err, res.Rows)
	}
	if err := c.DeallocateAll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, ctx, c.Conn, "SELECT count(*)::text FROM pg_prepared_statements WHERE name NOT LIKE 'stmtcache%'"); got != "0" {
		t.Errorf("statements after DEALLOCATE ALL: %s", got)
	}
	res = pc.ExecPrepared(ctx, "wire_ps", [][]byte{[]byte("1")}, nil, nil).Read()
	checkCode(t, res.Err, "26000")
}

// pgxCursors drives a cursor as psycopg's named cursors do, over the
// extended protocol with binary results.
func pgxCursors(t *testing.T, ctx context.Context, c *protoConn) {
	mustExec(t, ctx, c.Conn, "CREATE TABLE cu (k int PRIMARY KEY, v text)",
		"INSERT INTO cu SELECT g, 'v' || g FROM generate_series(1, 5) AS g")
	_, err := c.Exec(ctx, `DECLARE "srv" CURSOR WITHOUT HOLD FOR SELECT k, v FROM cu ORDER BY k`)
	checkCode(t, err, "25P01")
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	mustExecTx(t, ctx, tx, `DECLARE "srv" CURSOR WITHOUT HOLD FOR SELECT k, v FROM cu ORDER BY k`)
	var got []string
	for {
		rows, err := tx.Query(ctx, `FETCH FORWARD 2 FROM "srv"`)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var k int32
			var v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if tag := rows.CommandTag().String(); tag != "FETCH "+strconv.Itoa(n) {
			t.Errorf("tag %q after %d rows", tag, n)
		}
		if n == 0 {
			break
		}
	}
	if strings.Join(got, " ") != "v1 v2 v3 v4 v5" {
		t.Errorf("fetched %q", got)
	}
	mustExecTx(t, ctx, tx, `CLOSE "srv"`)
	// A cursor whose query has parameters, bound over the extended
	// protocol as psycopg 3's server-side cursors do.
	if _, err := tx.Exec(ctx, "DECLARE pc CURSOR FOR SELECT v FROM cu WHERE k > $1 ORDER BY k", 3); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, ctx, tx.Conn(), "FETCH ALL FROM pc"); got != "v4 v5" {
		t.Errorf("parameterized cursor: %q", got)
	}
	// A BINARY cursor answers in binary even over the simple protocol.
	mustExecTx(t, ctx, tx, "DECLARE bc BINARY CURSOR FOR SELECT k FROM cu WHERE k = 2")
	res, err := tx.Conn().PgConn().Exec(ctx, "FETCH NEXT FROM bc").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; len(r.Rows) != 1 || r.FieldDescriptions[0].Format != 1 || !bytes.Equal(r.Rows[0][0], []byte{0, 0, 0, 2}) {
		t.Errorf("binary cursor: rows %q, format %d", r.Rows, r.FieldDescriptions[0].Format)
	}
}

// pgxEmptyQueries: an empty or comment-only query answers
// EmptyQueryResponse in both protocols (pgx's and Grafana's ping).
func pgxEmptyQueries(t *testing.T, ctx context.Context, c *protoConn) {
	for _, q := range []string{"", "-- ping", "/* x */", " ; "} {
		results, err := c.PgConn().Exec(ctx, q).ReadAll()
		if err != nil {
			t.Errorf("simple %q: %v", q, err)
		}
		for _, r := range results {
			if r.CommandTag.String() != "" {
				t.Errorf("simple %q: tag %q", q, r.CommandTag)
			}
		}
		res := c.PgConn().ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if res.Err != nil || res.CommandTag.String() != "" {
			t.Errorf("extended %q: %v %q", q, res.Err, res.CommandTag)
		}
	}
	if err := c.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// pgxNotices: PostgreSQL's warnings for COMMIT and ROLLBACK outside a
// block and BEGIN inside one arrive as NoticeResponse.
func pgxNotices(t *testing.T, ctx context.Context, c *protoConn) {
	for _, tc := range []struct {
		sqls []string
		code string
	}{
		{[]string{"COMMIT"}, "25P01"},
		{[]string{"ROLLBACK"}, "25P01"},
		{[]string{"BEGIN", "BEGIN", "ROLLBACK"}, "25001"},
		{[]string{"SET LOCAL application_name = 'x'"}, "25P01"},
		{[]string{"SET TRANSACTION READ ONLY"}, "25P01"},
	} {
		c.takeNotices()
		mustExec(t, ctx, c.Conn, tc.sqls...)
		ns := c.takeNotices()
		if len(ns) != 1 || ns[0].Code != tc.code || ns[0].Severity != "WARNING" {
			t.Errorf("%v: notices %+v, want one WARNING %s", tc.sqls, ns, tc.code)
		}
	}
	mustExec(t, ctx, c.Conn, "BEGIN", "SELECT 1", "COMMIT")
	if ns := c.takeNotices(); len(ns) != 0 {
		t.Errorf("notices for a clean transaction: %+v", ns)
	}
}

// pgxParameterStatus: reported settings are re-sent when SET, RESET,
// ROLLBACK (of a SET in the block), the end of a SET LOCAL and DISCARD
// ALL change them.
func pgxParameterStatus(t *testing.T, ctx context.Context, c *protoConn) {
	pc := c.PgConn()
	check := func(step, name, want string) {
		t.Helper()
		if got := pc.ParameterStatus(name); got != want {
			t.Errorf("after %s: %s = %q, want %q", step, name, got, want)
		}
	}
	mustExec(t, ctx, c.Conn, "SET application_name = 'one'")
	check("SET", "application_name", "one")
	mustExec(t, ctx, c.Conn, "BEGIN", "SET application_name = 'two'")
	check("SET in a block", "application_name", "two")
	mustExec(t, ctx, c.Conn, "ROLLBACK")
	check("ROLLBACK", "application_name", "one")
	mustExec(t, ctx, c.Conn, "BEGIN", "SAVEPOINT s", "SET TimeZone = 'Europe/Paris'", "ROLLBACK TO s")
	check("ROLLBACK TO", "TimeZone", "UTC")
	mustExec(t, ctx, c.Conn, "SET LOCAL TimeZone = 'Asia/Tokyo'")
	check("SET LOCAL", "TimeZone", "Asia/Tokyo")
	mustExec(t, ctx, c.Conn, "COMMIT")
	check("COMMIT after SET LOCAL", "TimeZone", "UTC")
	mustExec(t, ctx, c.Conn, "RESET application_name")
	check("RESET", "application_name", "")
	mustExec(t, ctx, c.Conn, "SET application_name = 'pooled'", "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
	check("SET SESSION CHARACTERISTICS", "default_transaction_read_only", "on")
	mustExec(t, ctx, c.Conn, "SET IntervalStyle = 'ISO_8601'")
	check("SET IntervalStyle", "IntervalStyle", "iso_8601")
	mustExec(t, ctx, c.Conn, "DISCARD ALL")
	check("DISCARD ALL", "IntervalStyle", "postgres")
	check("DISCARD ALL", "application_name", "")
	check("DISCARD ALL", "default_transaction_read_only", "off")
	var pgErr *pgconn.PgError
	if _, err := c.Exec(ctx, "SET server_version = '1'"); !errors.As(err, &pgErr) || pgErr.Code != "55P02" {
		t.Errorf("SET server_version: %v, want 55P02", err)
	}
}

// TestPsqlSavepoints drives the real psql with ON_ERROR_ROLLBACK, which
// wraps every statement of a block in a savepoint and rolls back to it
// when the statement fails, and with FETCH_COUNT, which reads a query
// through a cursor (testdata/psql_savepoints).
func TestPsqlSavepoints(t *testing.T) {
	if rewriting() {
		t.Skip("-rewrite takes expectations from PostgreSQL (TestPsqlSavepointsPostgres)")
	}
	runPsqlScript(t, harness.StartTarget(t), "testdata/psql_savepoints")
}

// TestPsqlSavepointsPostgres proves (or, with -rewrite, produces) the
// expected output with PostgreSQL.
func TestPsqlSavepointsPostgres(t *testing.T) {
	runPsqlScript(t, harness.StartPostgres(t), "testdata/psql_savepoints")
}

// runPsqlScript runs the psql commands of a datadriven file against s.
func runPsqlScript(t *testing.T, s *harness.Server, path string) {
	psql := psqlPath(t)
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "psql" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		return runPsql(t, psql, s, d.Input)
	})
}
