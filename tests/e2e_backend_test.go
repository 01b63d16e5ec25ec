package tests

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestBackends runs the scenarios about sessions seeing each other
// (LISTEN/NOTIFY, pids, pg_stat_activity, cancel and terminate) against
// the target.
func TestBackends(t *testing.T) { runBackends(t, harness.StartTarget(t)) }

// TestBackendsPostgres runs them against PostgreSQL, which proves the
// expectations written here.
func TestBackendsPostgres(t *testing.T) { runBackends(t, harness.StartPostgres(t)) }

// runBackends runs every scenario in a fresh database.
func runBackends(t *testing.T, s *harness.Server) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, dsn string)
	}{
		{"Notify", backendNotify},
		{"Activity", backendActivity},
		{"CancelByPid", backendCancel},
		{"Terminate", backendTerminate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tc.fn(t, ctx, s.NewDatabase(t))
		})
	}
}

// waitNote waits briefly for a notification; nil if none came.
func waitNote(t *testing.T, ctx context.Context, c *pgx.Conn, d time.Duration) *pgconn.Notification {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	n, err := c.WaitForNotification(wctx)
	if err != nil {
		if wctx.Err() == nil {
			t.Fatalf("WaitForNotification: %v", err)
		}
		return nil
	}
	return n
}

// expectNote requires the next notification to be channel/payload from pid.
func expectNote(t *testing.T, ctx context.Context, c *pgx.Conn, pid uint32, channel, payload string) {
	t.Helper()
	n := waitNote(t, ctx, c, 5*time.Second)
	if n == nil {
		t.Fatalf("no notification, want %s %q from %d", channel, payload, pid)
	}
	if n.PID != pid || n.Channel != channel || n.Payload != payload {
		t.Fatalf("notification %d %s %q, want %d %s %q", n.PID, n.Channel, n.Payload, pid, channel, payload)
	}
}

// backendNotify: delivery to an idle listener, after COMMIT only, folded
// duplicates, pg_notify, the sender's own notifications, UNLISTEN.
func backendNotify(t *testing.T, ctx context.Context, dsn string) {
	l, s := connect(t, ctx, dsn), connect(t, ctx, dsn)
	sender := s.PgConn().PID()
	mustExec(t, ctx, l, "LISTEN ch")
	mustExec(t, ctx, s, "NOTIFY ch, 'hello'")
	expectNote(t, ctx, l, sender, "ch", "hello")

	mustExec(t, ctx, s, "BEGIN", "NOTIFY ch, 'a'", "NOTIFY ch, 'a'", "SELECT pg_notify('ch', 'b')", "NOTIFY other")
	if n := waitNote(t, ctx, l, 300*time.Millisecond); n != nil {
		t.Fatalf("notification %q before COMMIT", n.Payload)
	}
	mustExec(t, ctx, s, "COMMIT")
	expectNote(t, ctx, l, sender, "ch", "a")
	expectNote(t, ctx, l, sender, "ch", "b")

	mustExec(t, ctx, s, "BEGIN", "NOTIFY ch, 'lost'", "ROLLBACK")
	mustExec(t, ctx, l, "NOTIFY ch, 'self'")
	expectNote(t, ctx, l, l.PgConn().PID(), "ch", "self")
	if got := queryStrings(t, ctx, l, "SELECT pg_listening_channels()"); got != "ch" {
		t.Errorf("pg_listening_channels() = %q, want ch", got)
	}
	mustExec(t, ctx, l, "UNLISTEN *")
	mustExec(t, ctx, s, "NOTIFY ch, 'unheard'")
	if n := waitNote(t, ctx, l, 300*time.Millisecond); n != nil {
		t.Fatalf("notification %q after UNLISTEN *", n.Payload)
	}
	big := make([]byte, 8000)
	for i := range big {
		big[i] = 'x'
	}
	_, err := s.Exec(ctx, "SELECT pg_notify('ch', $1)", string(big))
	checkCode(t, err, "22023")
}

// backendActivity: pg_backend_pid is BackendKeyData's pid, and
// pg_stat_activity shows every session with its state and last query.
func backendActivity(t *testing.T, ctx context.Context, dsn string) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = "eddy-activity"
	other, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	c := connect(t, ctx, dsn)
	var pid uint32
	if err := other.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil || pid != other.PgConn().PID() {
		t.Fatalf("pg_backend_pid() = %d, %v; BackendKeyData pid %d", pid, err, other.PgConn().PID())
	}
	mustExec(t, ctx, other, "BEGIN", "SELECT 42")
	q := "SELECT state, query, application_name, (client_addr = '127.0.0.1')::text, (backend_start <= xact_start)::text FROM pg_stat_activity WHERE pid = $1"
	if got, want := queryStrings(t, ctx, c, q, int32(pid)), "idle in transaction|SELECT 42|eddy-activity|true|true"; got != want {
		t.Errorf("the other session:\n got %q\nwant %q", got, want)
	}
	mustExec(t, ctx, other, "COMMIT")
	if got, want := queryStrings(t, ctx, c, "SELECT state, query FROM pg_stat_activity WHERE pid = $1", int32(pid)), "idle|COMMIT"; got != want {
		t.Errorf("the other session after COMMIT: got %q, want %q", got, want)
	}
	self := "SELECT state FROM pg_stat_activity WHERE pid = pg_backend_pid()"
	if got := queryStrings(t, ctx, c, self); got != "active" {
		t.Errorf("own state %q, want active", got)
	}
}

// backendCancel: pg_cancel_backend from another session and a
// CancelRequest both end a running statement with 57014; a pid nobody has
// gives false.
func backendCancel(t *testing.T, ctx context.Context, dsn string) {
	victim, c := connect(t, ctx, dsn), connect(t, ctx, dsn)
	pid := int32(victim.PgConn().PID())
	for _, how := range []string{"pg_cancel_backend", "CancelRequest"} {
		done := make(chan error, 1)
		go func() {
			_, err := victim.Exec(ctx, "SELECT pg_sleep(30)")
			done <- err
		}()
		waitState(t, ctx, c, pid, "active")
		if how == "CancelRequest" {
			if err := victim.PgConn().CancelRequest(ctx); err != nil {
				t.Fatal(err)
			}
		} else if got := queryStrings(t, ctx, c, "SELECT pg_cancel_backend($1)::text", pid); got != "true" {
			t.Fatalf("pg_cancel_backend = %q", got)
		}
		select {
		case err := <-done:
			if e := checkCode(t, err, "57014"); e != nil && e.Message != "canceling statement due to user request" {
				t.Errorf("%s: message %q", how, e.Message)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not cancel the running statement", how)
		}
	}
	if got := queryStrings(t, ctx, c, "SELECT pg_cancel_backend(0)::text"); got != "false" {
		t.Errorf("pg_cancel_backend(0) = %q, want false", got)
	}
}

// waitState polls pg_stat_activity until session pid is in state.
func waitState(t *testing.T, ctx context.Context, c *pgx.Conn, pid int32, state string) {
	t.Helper()
	for range 200 {
		if queryStrings(t, ctx, c, "SELECT state FROM pg_stat_activity WHERE pid = $1", pid) == state {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("session %d never became %s", pid, state)
}

// backendTerminate: pg_terminate_backend closes the other session with
// FATAL 57P01.
func backendTerminate(t *testing.T, ctx context.Context, dsn string) {
	victim, c := connect(t, ctx, dsn), connect(t, ctx, dsn)
	pid := int32(victim.PgConn().PID())
	if got := queryStrings(t, ctx, c, "SELECT pg_terminate_backend($1)::text", pid); got != "true" {
		t.Fatalf("pg_terminate_backend = %q", got)
	}
	_, err := victim.Exec(ctx, "SELECT 1")
	var pgErr *pgconn.PgError
	if err == nil {
		t.Fatal("terminated session still runs queries")
	}
	if errors.As(err, &pgErr) && pgErr.Code != "57P01" {
		t.Errorf("terminated session got %s %s, want 57P01", pgErr.Code, pgErr.Message)
	}
	for range 200 {
		if queryStrings(t, ctx, c, "SELECT count(*)::text FROM pg_stat_activity WHERE pid = $1", pid) == "0" {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Error("terminated session still in pg_stat_activity")
}
