package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// memLimitMiB is TestMemoryLimit's --memory-limit: small, so that work
// needing tens of GB is refused after a few hundred MB (a 2GiB budget
// behaves alike, only slower to fill).
const memLimitMiB = 256

// memRSSMarginMiB is how far above the budget the server's peak RSS may
// go: the collector's garbage beyond the soft limit while a refused
// query unwinds. Pebble's memory and the rest outside the Go heap are
// within the budget (the server fits Go's soft limit to their bound):
// peak 245-252 MiB with the fit on an idle machine, but 276-292 MiB with
// three busy loops competing for the two cores (the collector, capped
// at half the CPU, falls behind the allocating query), as under make
// test's parallel packages.
const memRSSMarginMiB = 48

// TestMemoryLimit runs a server under --memory-limit and checks that work
// that cannot fit fails with 53200 while the server and another session
// keep working: an ad hoc cross join with ORDER BY, a GROUP BY over a
// generate_series join, a materialized view whose backfill explodes (it
// leaves no trace) and a write whose view maintenance explodes (nothing
// of it applies, to no view). The peak RSS stays under the budget plus a
// margin, and memory is returned once the refused work is gone.
func TestMemoryLimit(t *testing.T) {
	s := harness.StartEddy(t, harness.WithArgs("--memory-limit", fmt.Sprintf("%dMiB", memLimitMiB)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	execAll(t, ctx, c, "CREATE TABLE a (x int)", "CREATE TABLE b (y int)",
		"CREATE MATERIALIZED VIEW na AS SELECT count(*) AS n FROM a",
		"CREATE MATERIALIZED VIEW ab AS SELECT a.x, b.y FROM a, b",
		"INSERT INTO b SELECT generate_series(1, 20000)")
	other := startOtherSession(t, ctx, s.DSN())
	expectOutOfMemory(t, ctx, c, "SELECT * FROM b b1, b b2 ORDER BY 1, 2", "statement")
	expectOutOfMemory(t, ctx, c, "SELECT x.g * 100000 + y.g AS k, count(*) FROM generate_series(1, 30000) x(g), "+
		"generate_series(1, 30000) y(g) GROUP BY 1", "statement")
	expectOutOfMemory(t, ctx, c, "CREATE MATERIALIZED VIEW boom AS SELECT b1.y, b2.y AS z FROM b b1, b b2",
		"CREATE MATERIALIZED VIEW boom")
	expectRows(t, ctx, c, "SELECT count(*) FROM pg_matviews WHERE matviewname = 'boom'", "0")
	expectOutOfMemory(t, ctx, c, "INSERT INTO a SELECT generate_series(1, 20000)", `materialized view "ab"`)
	expectRows(t, ctx, c, "SELECT (SELECT count(*) FROM a), (SELECT n FROM na), (SELECT count(*) FROM ab)", "0|0|0")
	other.stop(t)
	peak := procStatusMiB(t, s.Pid(), "VmHWM:")
	t.Logf("peak RSS %d MiB under a %d MiB budget", peak, memLimitMiB)
	if peak > memLimitMiB+memRSSMarginMiB {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", peak, memLimitMiB+memRSSMarginMiB)
	}
	waitRSSBelow(t, s.Pid(), memLimitMiB/2)
	execAll(t, ctx, c, "INSERT INTO a VALUES (1), (2)")
	expectRows(t, ctx, c, "SELECT (SELECT count(*) FROM a), (SELECT n FROM na), (SELECT count(*) FROM ab)", "2|2|40000")
}

// expectOutOfMemory runs sql and checks that it fails with 53200 whose
// DETAIL names what (the statement or the view) and the memory limit.
func expectOutOfMemory(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql, what string) {
	t.Helper()
	start := time.Now()
	_, err := c.Exec(ctx, sql).ReadAll()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53200" || !strings.Contains(pe.Detail, what) ||
		!strings.Contains(pe.Detail, fmt.Sprintf("memory limit of %d.0 MiB", memLimitMiB)) {
		t.Fatalf("%s: err %v (detail %q); want 53200 naming %q and the limit", sql, err, detailOf(pe), what)
	}
	t.Logf("%s: refused after %v: %s", sql, time.Since(start).Round(time.Millisecond), pe.Detail)
}

// detailOf returns pe's DETAIL ("" for nil).
func detailOf(pe *pgconn.PgError) string {
	if pe == nil {
		return ""
	}
	return pe.Detail
}

// expectRows checks that sql returns exactly the rows want ("v1|v2"
// lines).
func expectRows(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql string, want ...string) {
	t.Helper()
	got, err := queryRows(ctx, c, sql)
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s: %v, err %v; want %v", sql, got, err, want)
	}
}

// otherSession runs small queries on its own connection until stopped,
// counting those that answered correctly and recording the first that
// did not.
type otherSession struct {
	done chan struct{}
	wg   sync.WaitGroup
	ok   int
	err  error
}

// startOtherSession starts the other session's loop: a sum over b and
// an ad hoc join of its rows with a small range, whose answers are known.
func startOtherSession(t *testing.T, ctx context.Context, dsn string) *otherSession {
	o := &otherSession{done: make(chan struct{})}
	c := pgConnect(t, ctx, dsn)
	queries := map[string]string{
		"SELECT count(*), sum(y) FROM b": "20000|200010000",
		"SELECT count(*) FROM b JOIN (SELECT g * 7 AS k FROM generate_series(1, 100) g) s ON b.y = s.k": "100",
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer c.Close(context.Background())
		for {
			for q, want := range queries {
				select {
				case <-o.done:
					return
				default:
				}
				got, err := queryRows(ctx, c, q)
				if err == nil && (len(got) != 1 || got[0] != want) {
					err = fmt.Errorf("got %v, want %s", got, want)
				}
				if err != nil {
					var pe *pgconn.PgError
					errors.As(err, &pe)
					o.err = fmt.Errorf("%s: %w (DETAIL %s)", q, err, detailOf(pe))
					return
				}
				o.ok++
			}
		}
	}()
	return o
}

// stop ends the loop and fails the test if a query failed or none ran.
func (o *otherSession) stop(t *testing.T) {
	t.Helper()
	close(o.done)
	o.wg.Wait()
	if o.err != nil || o.ok == 0 {
		t.Fatalf("the other session: %d queries answered, then %v", o.ok, o.err)
	}
	t.Logf("the other session answered %d queries meanwhile", o.ok)
}

// procStatusMiB reads a field in kB (VmRSS:, VmHWM:) of the process's
// /proc status, in MiB; it skips the test where there is no /proc.
func procStatusMiB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.Atoi(f[1])
			return kb >> 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// waitRSSBelow waits up to 10 s for the server's RSS to drop under mib,
// as the memory of the refused work returns to the operating system.
func waitRSSBelow(t *testing.T, pid, mib int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rss := procStatusMiB(t, pid, "VmRSS:")
		if rss < mib {
			t.Logf("RSS %d MiB after the refused work", rss)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("RSS %d MiB 10 s after the refused work, want under %d MiB", rss, mib)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
