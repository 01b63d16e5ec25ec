package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/tests/harness"
)

// PL/pgSQL over the wire (sql/plpgsql*.go): RAISE's notices reach the
// client as NoticeResponses (pgx's OnNotice) with their severity and
// SQLSTATE, RAISE EXCEPTION's fields reach it in the ErrorResponse, and
// an endless loop obeys statement_timeout; the same checks pass against
// PostgreSQL 15.

func TestPlpgsqlWire(t *testing.T)         { runPlpgsqlWire(t, harness.StartTarget(t)) }
func TestPlpgsqlWirePostgres(t *testing.T) { runPlpgsqlWire(t, harness.StartPostgres(t)) }

// noticeConn is a connection that records the notices it receives.
type noticeConn struct {
	*pgx.Conn
	mu      sync.Mutex
	notices []string
}

// take returns the notices received since the last take, as
// "SEVERITY CODE: message".
func (c *noticeConn) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := strings.Join(c.notices, "\n")
	c.notices = nil
	return out
}

func runPlpgsqlWire(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := pgx.ParseConfig(s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	c := &noticeConn{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		c.mu.Lock()
		c.notices = append(c.notices, fmt.Sprintf("%s %s: %s", n.Severity, n.Code, n.Message))
		c.mu.Unlock()
	}
	if c.Conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	t.Run("notices", func(t *testing.T) { plNotices(t, ctx, c) })
	t.Run("errors", func(t *testing.T) { plErrors(t, ctx, c) })
	t.Run("timeout", func(t *testing.T) { plTimeout(t, ctx, c) })
	t.Run("one message", func(t *testing.T) { plOneMessage(t, ctx, c) })
}

// plNotices checks the notices of a function called per row and of a DO
// block, in order.
func plNotices(t *testing.T, ctx context.Context, c *noticeConn) {
	mustExec(t, ctx, c.Conn, `CREATE FUNCTION pw_note(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'row %', n;
  IF n = 2 THEN RAISE WARNING 'two is % %%', 'special' USING ERRCODE = '01000'; END IF;
  RETURN n * 10;
END $$`)
	c.take()
	got := queryStrings(t, ctx, c.Conn, "SELECT pw_note(g)::text FROM generate_series(1, 3) g ORDER BY 1")
	if got != "10 20 30" {
		t.Fatalf("results: %q", got)
	}
	want := "NOTICE 00000: row 1\nNOTICE 00000: row 2\nWARNING 01000: two is special %\nNOTICE 00000: row 3"
	if n := c.take(); n != want {
		t.Fatalf("notices:\n%s\nwant:\n%s", n, want)
	}
	mustExec(t, ctx, c.Conn, `DO $$
DECLARE i int := 0;
BEGIN
  WHILE i < 2 LOOP
    i := i + 1;
    RAISE INFO 'step %', i;
  END LOOP;
  BEGIN
    PERFORM 1 / 0;
  EXCEPTION WHEN division_by_zero THEN
    RAISE NOTICE 'caught % (%)', SQLERRM, SQLSTATE;
  END;
  RAISE DEBUG 'not sent';
END $$`)
	want = "INFO 00000: step 1\nINFO 00000: step 2\nNOTICE 00000: caught division by zero (22012)"
	if n := c.take(); n != want {
		t.Fatalf("DO notices:\n%s\nwant:\n%s", n, want)
	}
}

// plErrors checks RAISE EXCEPTION's fields and STRICT's SQLSTATE.
func plErrors(t *testing.T, ctx context.Context, c *noticeConn) {
	_, err := c.Exec(ctx, `DO $$ BEGIN
  RAISE EXCEPTION 'order % is late', 42 USING ERRCODE = 'check_violation', DETAIL = 'due yesterday', HINT = 'ship it';
END $$`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("want a server error, got %v", err)
	}
	if got := fmt.Sprintf("%s|%s|%s|%s", pe.Code, pe.Message, pe.Detail, pe.Hint); got != "23514|order 42 is late|due yesterday|ship it" {
		t.Fatalf("error fields: %s", got)
	}
	mustExec(t, ctx, c.Conn, `CREATE FUNCTION pw_one() RETURNS int LANGUAGE plpgsql AS $$
DECLARE v int;
BEGIN
  SELECT g INTO STRICT v FROM generate_series(1, 2) g;
  RETURN v;
END $$`)
	_, err = c.Exec(ctx, "SELECT pw_one()")
	if !errors.As(err, &pe) || pe.Code != "P0003" || pe.Message != "query returned more than one row" {
		t.Fatalf("STRICT with two rows: %v", err)
	}
}

// plTimeout checks that endless loops, in a DO block and in a function,
// end with 57014 at statement_timeout and leave the session usable.
func plTimeout(t *testing.T, ctx context.Context, c *noticeConn) {
	mustExec(t, ctx, c.Conn, `CREATE FUNCTION pw_spin() RETURNS int LANGUAGE plpgsql AS $$
DECLARE i bigint := 0;
BEGIN
  LOOP
    i := i + 1;
  END LOOP;
END $$`, "SET statement_timeout = '300ms'")
	for _, sql := range []string{"DO $$ BEGIN LOOP END LOOP; END $$", "SELECT pw_spin()",
		"DO $$ BEGIN WHILE true LOOP PERFORM 1; END LOOP; END $$"} {
		start := time.Now()
		_, err := c.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
			t.Fatalf("%s: want 57014 statement timeout, got %v", sql, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("%s: the timeout took %v", sql, d)
		}
	}
	mustExec(t, ctx, c.Conn, "RESET statement_timeout")
	if got := queryStrings(t, ctx, c.Conn, "SELECT 'ok'"); got != "ok" {
		t.Fatalf("after the timeouts: %q", got)
	}
}

// plOneMessage runs an exception block in a Query message of several
// statements (an implicit transaction, as migration tools send scripts):
// the handler undoes only its block's writes.
func plOneMessage(t *testing.T, ctx context.Context, c *noticeConn) {
	mustExec(t, ctx, c.Conn, `CREATE TABLE pw_m (v int);
DO $$ BEGIN
  INSERT INTO pw_m VALUES (1);
  BEGIN
    INSERT INTO pw_m VALUES (2);
    PERFORM 1 / 0;
  EXCEPTION WHEN OTHERS THEN
    INSERT INTO pw_m VALUES (3);
  END;
END $$;
INSERT INTO pw_m VALUES (4)`)
	if got := queryStrings(t, ctx, c.Conn, "SELECT string_agg(v::text, ',' ORDER BY v) FROM pw_m"); got != "1,3,4" {
		t.Fatalf("rows: %q, want 1,3,4", got)
	}
}
