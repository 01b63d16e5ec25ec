package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// backfillRows is the size of the table the backfill tests' views read.
const backfillRows = 1_000_000

// backfillQuery is the view the backfill tests create: an aggregate over
// every row of big, which takes the backfill seconds.
const backfillQuery = "SELECT g, count(*) AS n, sum(x) AS total FROM big GROUP BY g"

// probeLimit is the latency every probe must stay under while a view
// backfills (issue 8: SELECT 1 within 100 ms).
const probeLimit = 100 * time.Millisecond

// TestBackfill creates materialized views over a million rows while other
// sessions read and write: they never wait for the backfill, progress
// shows, and a cancelled or killed backfill leaves nothing.
func TestBackfill(t *testing.T) {
	s := harness.StartEddy(t, harness.WithEnv("EDDY_BACKFILL_NOTICE_MS=200"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := pgConnect(t, ctx, s.DSN())
	start := time.Now()
	execAll(t, ctx, c, "CREATE TABLE big (id bigint PRIMARY KEY, g int, x int)",
		fmt.Sprintf("INSERT INTO big SELECT i, i %% 1000, i %% 9973 FROM generate_series(1, %d) i", backfillRows),
		"CREATE TABLE other (id int PRIMARY KEY, v int)", "INSERT INTO other VALUES (1, 10)")
	t.Logf("loaded %d rows in %v", backfillRows, time.Since(start))
	limit := settle(t, ctx, c)
	c.Close(ctx)
	t.Run("Admission", func(t *testing.T) { backfillAdmission(t, ctx, s, limit) })
	t.Run("Cancel", func(t *testing.T) { backfillCancel(t, ctx, s) })
	t.Run("Kill", func(t *testing.T) { backfillKill(t, ctx, s) })
}

// settle waits until writes are quick again after the load (its rows
// reach the store at the next checkpoint, a second later, and Pebble then
// flushes and compacts them, which slows every fsync for a while), then
// returns the latency limit of the probes: probeLimit, or on a machine
// too loaded to meet it without any backfill (a shared CI box), twice the
// slowest of the same probes run before the backfill. A backfill under
// the engine lock makes probes wait for seconds either way.
func settle(t *testing.T, ctx context.Context, c *pgconn.PgConn) time.Duration {
	t.Helper()
	time.Sleep(1100 * time.Millisecond)
	var slowest time.Duration
	for round := range 20 {
		for _, sql := range []string{"SELECT 1", "SELECT v FROM other WHERE id = 1",
			fmt.Sprintf("INSERT INTO other VALUES (%d, 0)", -1-round)} {
			start := time.Now()
			execAll(t, ctx, c, sql)
			if round >= 10 { // the first ones meet the flush
				slowest = max(slowest, time.Since(start))
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	limit := max(probeLimit, 2*slowest)
	t.Logf("slowest probe before the backfill %v: limit %v", slowest, limit)
	return limit
}

// backfillAdmission creates view v while a second session probes (SELECT
// 1, a point SELECT, an INSERT into another table) and writes to big:
// every probe answers within limit (see settle), eddy_backfills lists the
// backfill, NOTICEs report its progress, and the view equals its query
// recomputed, including the writes made during the backfill (the view's
// maintenance after it exists is every other test's subject).
func backfillAdmission(t *testing.T, ctx context.Context, s *harness.Server, limit time.Duration) {
	var mu sync.Mutex
	var notices []string
	cfg, err := pgconn.ParseConfig(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Message)
		mu.Unlock()
	}
	creator, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer creator.Close(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := creator.Exec(ctx, "CREATE MATERIALIZED VIEW v AS "+backfillQuery).ReadAll()
		done <- err
	}()
	p := pgConnect(t, ctx, s.DSN())
	defer p.Close(ctx)
	progress := waitBackfill(t, ctx, p, "v")
	t.Logf("eddy_backfills: %s", progress)
	probes, err := probeWhile(ctx, p, done, limit)
	if err != nil {
		t.Fatalf("CREATE MATERIALIZED VIEW: %v", err)
	}
	if probes < 3 {
		t.Fatalf("the backfill ended after %d probe rounds: too fast to show anything", probes)
	}
	mu.Lock()
	t.Logf("%d probe rounds; notices: %q", probes, notices)
	if len(notices) == 0 || !strings.Contains(notices[0], "backfill read") {
		t.Errorf("no progress NOTICE, got %q", notices)
	}
	mu.Unlock()
	start := time.Now()
	sameAsQuery(t, ctx, p, "v", backfillQuery)
	t.Logf("compared with the query in %v", time.Since(start))
}

// waitBackfill waits until eddy_backfills lists view's backfill with some
// rows done, of all of big's (at least 99% of backfillRows: the probes
// delete a few), and returns its row.
func waitBackfill(t *testing.T, ctx context.Context, c *pgconn.PgConn, view string) string {
	t.Helper()
	q := "SELECT viewname, inputs, rows_done, rows_total, phase FROM eddy_catalog.eddy_backfills WHERE viewname = '" + view + "' AND rows_done > 0"
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		rows, err := queryRows(ctx, c, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 {
			var name, inputs, phase string
			var done, total int
			_, err := fmt.Sscanf(strings.ReplaceAll(rows[0], "|", " "), "%s %s %d %d %s", &name, &inputs, &done, &total, &phase)
			if err != nil || inputs != "public.big" || total < backfillRows*99/100 || phase != "snapshot" {
				t.Errorf("eddy_backfills row %q (%v), want big's rows in total, phase snapshot", rows[0], err)
			}
			return rows[0]
		}
	}
	t.Fatalf("eddy_backfills never listed %s", view)
	return ""
}

// probeWhile runs probe rounds until done delivers the backfill's result:
// each round times SELECT 1, a point SELECT and an INSERT into another
// table, failing on one slower than limit, and writes to big (an
// insert, an update and a delete) for the backfill to catch up with. It
// returns the rounds run and the backfill's error.
func probeWhile(ctx context.Context, c *pgconn.PgConn, done <-chan error, limit time.Duration) (int, error) {
	var slow []string
	for round := 0; ; round++ {
		select {
		case err := <-done:
			if len(slow) > 0 && err == nil {
				err = fmt.Errorf("probes slower than %v during the backfill: %s", limit, strings.Join(slow, "; "))
			}
			return round, err
		default:
		}
		for _, sql := range []string{"SELECT 1", "SELECT v FROM other WHERE id = 1",
			fmt.Sprintf("INSERT INTO other VALUES (%d, %d)", round+2, round)} {
			start := time.Now()
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				return round, fmt.Errorf("%s: %w", sql, err)
			}
			if took := time.Since(start); took > limit {
				slow = append(slow, fmt.Sprintf("round %d: %s took %v", round, sql, took))
			}
		}
		id := backfillRows + 1 + round
		for _, sql := range []string{fmt.Sprintf("INSERT INTO big VALUES (%d, %d, %d)", id, round%1000, round),
			fmt.Sprintf("UPDATE big SET x = x + 7 WHERE id = %d", round+1),
			fmt.Sprintf("DELETE FROM big WHERE id = %d", 500_000+round)} {
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				return round, fmt.Errorf("%s: %w", sql, err)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sameAsQuery fails unless view holds exactly what query computes.
func sameAsQuery(t *testing.T, ctx context.Context, c *pgconn.PgConn, view, query string) {
	t.Helper()
	got, err := queryRows(ctx, c, "SELECT * FROM "+view)
	if err != nil {
		t.Fatal(err)
	}
	want, err := queryRows(ctx, c, query)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !sameRows(got, want) {
		t.Fatalf("view %s (%d rows) differs from its query (%d rows)", view, len(got), len(want))
	}
}

// backfillCancel: a backfill stopped by statement_timeout fails with
// 57014 and leaves nothing: no backfill listed, the name free.
func backfillCancel(t *testing.T, ctx context.Context, s *harness.Server) {
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	execAll(t, ctx, c, "SET statement_timeout = '300ms'")
	_, err := c.Exec(ctx, "CREATE MATERIALIZED VIEW w AS "+backfillQuery).ReadAll()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" {
		t.Fatalf("CREATE under statement_timeout: %v, want 57014", err)
	}
	execAll(t, ctx, c, "SET statement_timeout = 0")
	wantNoBackfill(t, ctx, c, "w")
}

// wantNoBackfill fails unless no backfill is listed and view's name is
// free (a table of that name can be created).
func wantNoBackfill(t *testing.T, ctx context.Context, c *pgconn.PgConn, view string) {
	t.Helper()
	if rows, err := queryRows(ctx, c, "SELECT viewname FROM eddy_catalog.eddy_backfills"); err != nil || len(rows) > 0 {
		t.Fatalf("eddy_backfills after the backfill ended: %v %v", rows, err)
	}
	execAll(t, ctx, c, "CREATE TABLE "+view+" (x int)", "DROP TABLE "+view)
}

// backfillKill kills the server with SIGKILL in the middle of a backfill:
// after a restart the view does not exist, big is intact and v still
// equals its query.
func backfillKill(t *testing.T, ctx context.Context, s *harness.Server) {
	c := pgConnect(t, ctx, s.DSN())
	count, err := queryRows(ctx, c, "SELECT count(*) FROM big")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = c.Exec(ctx, "CREATE MATERIALIZED VIEW k AS "+backfillQuery).ReadAll() }()
	p := pgConnect(t, ctx, s.DSN())
	waitBackfill(t, ctx, p, "k")
	s.Kill()
	s.Restart()
	p = pgConnect(t, ctx, s.DSN())
	defer p.Close(ctx)
	wantNoBackfill(t, ctx, p, "k")
	if after, err := queryRows(ctx, p, "SELECT count(*) FROM big"); err != nil || !sameRows(after, count) {
		t.Fatalf("big after the kill: %v %v, want %v", after, err, count)
	}
	sameAsQuery(t, ctx, p, "v", backfillQuery)
}
