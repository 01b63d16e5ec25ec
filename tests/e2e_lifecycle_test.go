package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// runaway is a cross join of lifecycle's table with itself three times:
// 27 billion rows, far more than any test waits for.
const runaway = "SELECT count(*) FROM big a, big b, big c"

// TestLifecycle runs the statement lifecycle scenarios (timeouts,
// cancellation, clients that go away) against Eddy.
func TestLifecycle(t *testing.T) { runLifecycle(t, harness.StartTarget(t)) }

// TestLifecyclePostgres runs them against PostgreSQL, which proves the
// codes and messages expected here.
func TestLifecyclePostgres(t *testing.T) { runLifecycle(t, harness.StartPostgres(t)) }

// runLifecycle runs every scenario on one database of s holding the table
// big (3,000 rows).
func runLifecycle(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := s.DSN() // the CPU of this very server is measured
	if s.Kind() != harness.Eddy {
		dsn = s.NewDatabase(t)
	}
	mustExec(t, ctx, connect(t, ctx, dsn), "CREATE TABLE big (x int)",
		"INSERT INTO big SELECT generate_series(1, 3000)", "CREATE TABLE sink (x int)")
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, dsn string, s *harness.Server)
	}{
		{"StatementTimeout", lifecycleTimeout},
		{"TimeoutInBlock", lifecycleTimeoutInBlock},
		{"TimeoutStatements", lifecycleTimeoutStatements},
		{"CancelRequest", lifecycleCancelRequest},
		{"Disconnect", lifecycleDisconnect},
		{"IdleTimeouts", lifecycleIdle},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, ctx, dsn, s) })
	}
}

// wantCanceled requires err to be 57014 with PostgreSQL's message for
// why ("statement timeout" or "user request") and took to be short.
func wantCanceled(t *testing.T, err error, why string, took, limit time.Duration) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to "+why {
		t.Fatalf("got %v, want 57014 canceling statement due to %s", err, why)
	}
	if took > limit {
		t.Errorf("cancelled after %v, want within %v", took, limit)
	}
}

// lifecycleTimeout: a runaway cross join under statement_timeout = '1s'
// ends with 57014 about a second later; the session stays usable and
// SHOW prints the setting as PostgreSQL does.
func lifecycleTimeout(t *testing.T, ctx context.Context, dsn string, _ *harness.Server) {
	c := connect(t, ctx, dsn)
	mustExec(t, ctx, c, "SET statement_timeout = '1s'")
	start := time.Now()
	_, err := c.Exec(ctx, runaway)
	wantCanceled(t, err, "statement timeout", time.Since(start), 2500*time.Millisecond)
	if got := queryStrings(t, ctx, c, "SHOW statement_timeout"); got != "1s" {
		t.Errorf("SHOW statement_timeout = %q, want 1s", got)
	}
	mustExec(t, ctx, c, "SET statement_timeout = 1500")
	if got := queryStrings(t, ctx, c, "SHOW statement_timeout"); got != "1500ms" {
		t.Errorf("SHOW statement_timeout = %q, want 1500ms", got)
	}
	mustExec(t, ctx, c, "RESET statement_timeout")
	if got := queryStrings(t, ctx, c, "SELECT count(*)::text FROM big"); got != "3000" {
		t.Errorf("count after the timeout = %q", got)
	}
}

// lifecycleTimeoutInBlock: inside a block the timeout aborts the block:
// the next statement gets 25P02 and COMMIT rolls back the earlier write.
func lifecycleTimeoutInBlock(t *testing.T, ctx context.Context, dsn string, _ *harness.Server) {
	c := connect(t, ctx, dsn)
	mustExec(t, ctx, c, "BEGIN", "SET LOCAL statement_timeout = '300ms'", "INSERT INTO sink VALUES (1)")
	start := time.Now()
	_, err := c.Exec(ctx, runaway)
	wantCanceled(t, err, "statement timeout", time.Since(start), 2*time.Second)
	_, err = c.Exec(ctx, "SELECT 1")
	checkCode(t, err, "25P02")
	mustExec(t, ctx, c, "COMMIT")
	if got := queryStrings(t, ctx, c, "SELECT count(*)::text FROM sink"); got != "0" {
		t.Errorf("sink has %s rows after the aborted block, want 0", got)
	}
}

// lifecycleTimeoutStatements: statement_timeout stops every kind of long
// statement, and what it stopped left nothing behind: an INSERT ...
// SELECT, a materialized view's backfill (on Eddy; PostgreSQL's CREATE
// MATERIALIZED VIEW is its own statement kind too), a COPY (query) TO
// STDOUT, a runaway recursive CTE, a long generate_series.
func lifecycleTimeoutStatements(t *testing.T, ctx context.Context, dsn string, _ *harness.Server) {
	c := connect(t, ctx, dsn)
	mustExec(t, ctx, c, "SET statement_timeout = '300ms'")
	for _, sql := range []string{
		"INSERT INTO sink SELECT a.x FROM big a, big b, big c",
		"CREATE MATERIALIZED VIEW cross3 AS " + runaway,
		// The transitive closure of a 3,000-long chain: 4.5M rows over
		// 3,000 iterations, well inside the recursion limits.
		"WITH RECURSIVE r(a, b) AS (SELECT x, x FROM big UNION SELECT r.a, big.x FROM r, big WHERE big.x = r.b + 1) SELECT count(*) FROM r",
		"SELECT count(*) FROM big, generate_series(1, 1000000) AS g(i)",
		"SELECT count(*) FROM big a, big b, big c WHERE a.x = b.x + c.x",
	} {
		start := time.Now()
		_, err := c.Exec(ctx, sql)
		wantCanceled(t, err, "statement timeout", time.Since(start), 2*time.Second)
	}
	start := time.Now()
	_, err := c.PgConn().CopyTo(ctx, discard{}, "COPY ("+runaway+") TO STDOUT")
	wantCanceled(t, err, "statement timeout", time.Since(start), 2*time.Second)
	mustExec(t, ctx, c, "RESET statement_timeout")
	if got := queryStrings(t, ctx, c, "SELECT count(*)::text FROM sink"); got != "0" {
		t.Errorf("sink has %s rows after a cancelled INSERT, want 0", got)
	}
	if got := queryStrings(t, ctx, c, "SELECT count(*)::text FROM pg_matviews WHERE matviewname = 'cross3'"); got != "0" {
		t.Errorf("the cancelled materialized view exists")
	}
}

// discard is an io.Writer that drops what it gets.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// lifecycleCancelRequest: a CancelRequest and pg_cancel_backend stop a
// runaway join with 57014 "due to user request" within a few hundred ms.
func lifecycleCancelRequest(t *testing.T, ctx context.Context, dsn string, _ *harness.Server) {
	victim, c := connect(t, ctx, dsn), connect(t, ctx, dsn)
	pid := int32(victim.PgConn().PID())
	for _, how := range []string{"CancelRequest", "pg_cancel_backend"} {
		done := make(chan error, 1)
		go func() {
			_, err := victim.Exec(ctx, runaway)
			done <- err
		}()
		waitState(t, ctx, c, pid, "active")
		time.Sleep(200 * time.Millisecond) // well into the join
		start := time.Now()
		if how == "CancelRequest" {
			if err := victim.PgConn().CancelRequest(ctx); err != nil {
				t.Fatal(err)
			}
		} else if got := queryStrings(t, ctx, c, "SELECT pg_cancel_backend($1)::text", pid); got != "true" {
			t.Fatalf("pg_cancel_backend = %q", got)
		}
		select {
		case err := <-done:
			wantCanceled(t, err, "user request", time.Since(start), time.Second)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not cancel the runaway join", how)
		}
	}
}

// lifecycleDisconnect: a client that goes away in the middle of a runaway
// join stops it: within a second the server's CPU use is back to idle
// (measured on Eddy from /proc; PostgreSQL only checks the client at
// client_connection_check_interval, off by default, so there the scenario
// only checks that the server still answers).
func lifecycleDisconnect(t *testing.T, ctx context.Context, dsn string, s *harness.Server) {
	c := connect(t, ctx, dsn)
	v, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	pid := int32(v.PID())
	rr := v.Exec(ctx, runaway) // sent; the result is never read
	waitState(t, ctx, c, pid, "active")
	time.Sleep(200 * time.Millisecond)
	v.Conn().Close()
	_ = rr
	if s.Kind() == harness.Eddy {
		time.Sleep(time.Second)
		if used := cpuDuring(t, s.Pid(), time.Second); used > 300*time.Millisecond {
			t.Errorf("server used %v of CPU in the second after the client left, want idle", used)
		}
		if n := queryStrings(t, ctx, c, "SELECT count(*)::text FROM pg_stat_activity WHERE pid = $1", pid); n != "0" {
			t.Errorf("the departed client's session is still listed")
		}
	}
	if got := queryStrings(t, ctx, c, "SELECT 1::text"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
}

// cpuDuring measures the CPU time (user + system) process pid uses over d.
func cpuDuring(t *testing.T, pid int, d time.Duration) time.Duration {
	t.Helper()
	before := cpuTime(t, pid)
	time.Sleep(d)
	return cpuTime(t, pid) - before
}

// cpuTime reads a process's CPU time from /proc/<pid>/stat (utime and
// stime, in clock ticks of 1/100 s on Linux).
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// Fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("parsing /proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// lifecycleIdle: a session idle in a block past
// idle_in_transaction_session_timeout is ended with FATAL 25P03 and its
// block rolled back; one idle outside a block past idle_session_timeout
// with FATAL 57P05; within the timeouts nothing happens.
func lifecycleIdle(t *testing.T, ctx context.Context, dsn string, _ *harness.Server) {
	c := connect(t, ctx, dsn)
	mustExec(t, ctx, c, "SET idle_in_transaction_session_timeout = '300ms'", "SET idle_session_timeout = '300ms'",
		"BEGIN", "INSERT INTO sink VALUES (7)")
	time.Sleep(100 * time.Millisecond)
	mustExec(t, ctx, c, "INSERT INTO sink VALUES (8)") // each wait is timed anew
	time.Sleep(time.Second)
	_, err := c.Exec(ctx, "COMMIT")
	checkCode(t, err, "25P03")
	c2 := connect(t, ctx, dsn)
	mustExec(t, ctx, c2, "SET idle_session_timeout = '300ms'")
	time.Sleep(100 * time.Millisecond)
	if got := queryStrings(t, ctx, c2, "SELECT count(*)::text FROM sink WHERE x IN (7, 8)"); got != "0" {
		t.Errorf("the timed-out block left %s rows", got)
	}
	time.Sleep(time.Second)
	_, err = c2.Exec(ctx, "SELECT 1")
	checkCode(t, err, "57P05")
}
