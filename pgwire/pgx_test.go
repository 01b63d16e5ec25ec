package pgwire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// connectPgx connects pgx to ts; cancelRequests makes a cancelled context
// send a CancelRequest (instead of pgx's default of killing the socket).
func connectPgx(t testing.TB, ts *testServer, cancelRequests bool) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://test@127.0.0.1:%s/db?sslmode=disable&application_name=pgxtest", ts.port()))
	if err != nil {
		t.Fatal(err)
	}
	if cancelRequests {
		cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// allModes are pgx's ways of running a query: extended protocol with cached
// statements or descriptions, unnamed statements, and the simple protocol.
var allModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
}

func TestPgxQueries(t *testing.T) {
	ts := startServer(t)
	conn := connectPgx(t, ts, false)
	ctx := context.Background()
	for _, mode := range allModes {
		t.Run(mode.String(), func(t *testing.T) {
			rows, err := conn.Query(ctx, "SELECT generate($1)", mode, int64(4))
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != "[1 2 3 4]" {
				t.Fatalf("generate: got %v", got)
			}
			var sum int64
			if err := conn.QueryRow(ctx, "SELECT add($1, $2)", mode, int64(40), int64(-2)).Scan(&sum); err != nil || sum != 38 {
				t.Fatalf("add: got %d, %v", sum, err)
			}
			var s *string
			if err := conn.QueryRow(ctx, "SELECT echo($1)", mode, "héllo wörld").Scan(&s); err != nil || s == nil || *s != "héllo wörld" {
				t.Fatalf("echo: got %v, %v", s, err)
			}
			if err := conn.QueryRow(ctx, "SELECT null", mode).Scan(&s); err != nil || s != nil {
				t.Fatalf("null: got %v, %v", s, err)
			}
			tag, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)", mode)
			if err != nil || tag.String() != "INSERT 0 1" {
				t.Fatalf("insert: got %q, %v", tag, err)
			}
		})
	}
}

func TestPgxErrors(t *testing.T) {
	ts := startServer(t)
	conn := connectPgx(t, ts, false)
	ctx := context.Background()
	for _, mode := range allModes {
		t.Run(mode.String(), func(t *testing.T) {
			_, err := conn.Exec(ctx, "FAIL", mode)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("FAIL: want PgError, got %v", err)
			}
			if pe.Code != "22012" || pe.Message != "division by zero" || pe.Detail != "detail here" ||
				pe.Hint != "hint here" || pe.Position != 3 || pe.Severity != "ERROR" {
				t.Fatalf("FAIL: got %+v", pe)
			}
			_, err = conn.Exec(ctx, "SELECT generate(1);\n  bogus", mode)
			if !errors.As(err, &pe) || pe.Code != "42601" || pe.Position != 23 {
				t.Fatalf("syntax error: got %v", err)
			}
			_, err = conn.Exec(ctx, "PANIC", mode)
			if !errors.As(err, &pe) || pe.Code != "XX000" {
				t.Fatalf("panic: got %v", err)
			}
			var n int64
			if err := conn.QueryRow(ctx, "SELECT add(1, 1)", mode).Scan(&n); err != nil || n != 2 {
				t.Fatalf("after errors: got %d, %v", n, err)
			}
		})
	}
	if !strings.Contains(ts.logs.String(), "fake panic in Execute") {
		t.Fatalf("panic not logged: %s", ts.logs.String())
	}
}

func TestPgxCopyFrom(t *testing.T) {
	ts := startServer(t)
	conn := connectPgx(t, ts, false)
	ctx := context.Background()
	var rows [][]any
	for i := range 2500 {
		rows = append(rows, []any{int64(i), int64(2 * i)})
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"a", "b"}, pgx.CopyFromRows(rows))
	if err != nil || n != 2500 {
		t.Fatalf("CopyFrom: got %d, %v", n, err)
	}
	if got := ts.h.lines("big"); fmt.Sprint(got) != "[<2500 tuples>]" {
		t.Fatalf("stored %v", got)
	}
	// The connection is usable afterwards.
	var sum int64
	if err := conn.QueryRow(ctx, "SELECT add(1, 2)").Scan(&sum); err != nil || sum != 3 {
		t.Fatalf("after copy: %d, %v", sum, err)
	}
	// A failing copy source aborts with CopyFail.
	boom := errors.New("source failed")
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"a", "b"}, pgx.CopyFromFunc(func() ([]any, error) {
		return nil, boom
	}))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || !strings.Contains(pe.Message, "source failed") {
		t.Fatalf("failing source: got %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT add(2, 2)").Scan(&sum); err != nil || sum != 4 {
		t.Fatalf("after failed copy: %d, %v", sum, err)
	}
}

func TestPgxTransactionsAndParameters(t *testing.T) {
	ts := startServer(t)
	conn := connectPgx(t, ts, false)
	ctx := context.Background()
	if got := conn.PgConn().ParameterStatus("application_name"); got != "pgxtest" {
		t.Fatalf("application_name = %q", got)
	}
	if _, err := conn.Exec(ctx, "SET TimeZone = Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	if got := conn.PgConn().ParameterStatus("TimeZone"); got != "Asia/Tokyo" {
		t.Fatalf("TimeZone = %q", got)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'T' {
		t.Fatalf("TxStatus in tx = %c", st)
	}
	if _, err := tx.Exec(ctx, "FAIL"); err == nil {
		t.Fatal("FAIL succeeded")
	}
	if st := conn.PgConn().TxStatus(); st != 'E' {
		t.Fatalf("TxStatus after error = %c", st)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'I' {
		t.Fatalf("TxStatus after rollback = %c", st)
	}
}

// TestPgxCancel cancels a running statement through pgx's context, which
// sends a CancelRequest on a second connection.
func TestPgxCancel(t *testing.T) {
	ts := startServer(t)
	conn := connectPgx(t, ts, true)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			waitFor(t, func() bool { return ts.h.running.Load() == 1 })
			cancel()
		}()
		_, err := conn.Exec(ctx, "SLEEP", mode)
		cancel()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Fatalf("%v: want 57014, got %v", mode, err)
		}
		var n int64
		if err := conn.QueryRow(context.Background(), "SELECT add(1, 1)", mode).Scan(&n); err != nil || n != 2 {
			t.Fatalf("%v: after cancel: %d, %v", mode, n, err)
		}
	}
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t testing.TB, cond func() bool) {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Error("condition not reached")
			return
		}
		time.Sleep(time.Millisecond)
	}
}
