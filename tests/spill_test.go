package tests

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// spillRows is how many rows TestSpillMemoryLimit loads into its big
// table (about 70 MB of rows in memory, more than its whole budget).
const spillRows = 300_000

// spillRSSBoundMB bounds the server's peak RSS in TestSpillMemoryLimit:
// the 64 MiB budget plus the collector's headroom, Pebble's memtables and
// block cache (sized from the budget) and the views' operator state. The
// same load held entirely in memory peaks far above it.
const spillRSSBoundMB = 400

// spillViews are TestSpillMemoryLimit's views and their defining queries,
// compared after every phase.
var spillViews = []struct{ name, query string }{
	{"agg", "SELECT g, count(*) AS n, sum(v) AS s FROM big GROUP BY g"},
	{"sel", "SELECT k, v, pad FROM big WHERE v % 4 = 0"},
	{"named", "SELECT d.name, a.n, a.s FROM agg a JOIN dim d ON a.g = d.g"},
}

// TestSpillMemoryLimit runs a server with --memory-limit 64MiB, loads a
// table larger than the budget under views created before the data,
// updates and deletes a tenth of it, and checks that the big table and
// view spilled to disk, that every view equals its query recomputed ad
// hoc (after the load, the writes, a clean restart and a kill -9), and
// that peak RSS stayed bounded.
func TestSpillMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 300,000 rows")
	}
	// The budget only drives spilling here: the checks recompute views
	// from snapshots of the whole 300,000-row table, which 64MiB cannot
	// hold (they would fail with 53200; TestMemoryLimit covers that).
	s := harness.StartEddy(t, harness.WithArgs("--memory-limit", "64MiB"), harness.WithEnv("EDDY_MEMORY_ACCOUNTING=0"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c,
		"CREATE TABLE big (k bigint PRIMARY KEY, g int NOT NULL, v int NOT NULL, pad text)",
		"CREATE TABLE dim (g int PRIMARY KEY, name text)")
	for _, v := range spillViews {
		execAll(t, ctx, c, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	copyRows(t, ctx, c, "COPY dim FROM STDIN", 0, 1000, func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "%d\tname%d\n", i, i)
	})
	for lo := 0; lo < spillRows; lo += 50_000 {
		copyRows(t, ctx, c, "COPY big FROM STDIN", lo, lo+50_000, func(b *strings.Builder, i int) {
			fmt.Fprintf(b, "%d\t%d\t%d\t%s%d\n", i, i%1000, i%997, strings.Repeat("p", 120), i)
		})
	}
	checkSpillViews(t, ctx, c, "after the load")
	execAll(t, ctx, c,
		"UPDATE big SET v = v + 1, pad = 'updated' WHERE k % 10 = 3",
		"DELETE FROM big WHERE k % 10 = 7",
		"INSERT INTO big VALUES (1000001, 5, 8, 'late'), (1000002, 6, 12, 'late')",
		"UPDATE dim SET name = 'renamed' WHERE g < 10")
	checkSpillViews(t, ctx, c, "after updates and deletes")
	checkRSS(t, s)
	if !strings.Contains(s.Logs(), "collection spilled to disk") {
		t.Fatalf("nothing spilled under a 64MiB budget; log:\n%s", s.Logs())
	}
	c.Close(ctx)
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	checkSpillViews(t, ctx, c, "after a restart")
	execAll(t, ctx, c, "DELETE FROM big WHERE k % 10 = 1")
	c.Close(ctx)
	s.Kill()
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	checkSpillViews(t, ctx, c, "after kill -9")
	checkRSS(t, s)
}

// copyRows loads rows [lo, hi) written by line with one COPY.
func copyRows(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql string, lo, hi int, line func(*strings.Builder, int)) {
	t.Helper()
	var b strings.Builder
	for i := lo; i < hi; i++ {
		line(&b, i)
	}
	if _, err := c.CopyFrom(ctx, strings.NewReader(b.String()), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// checkSpillViews compares every view with its query and checks that the
// big table holds rows.
func checkSpillViews(t *testing.T, ctx context.Context, c *pgconn.PgConn, when string) {
	t.Helper()
	for _, v := range spillViews {
		got, err := queryRows(ctx, c, "SELECT * FROM "+v.name)
		if err != nil {
			t.Fatalf("%s: reading %s: %v", when, v.name, err)
		}
		want, err := queryRows(ctx, c, v.query)
		if err != nil {
			t.Fatalf("%s: %s: %v", when, v.query, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s: view %s has %d rows, its query %d (differ or empty)", when, v.name, len(got), len(want))
		}
	}
}

// checkRSS fails if the server's peak RSS (VmHWM) passed spillRSSBoundMB.
func checkRSS(t *testing.T, s *harness.Server) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Pid()))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			t.Logf("peak RSS %d MB", kb>>10)
			if kb>>10 > spillRSSBoundMB {
				t.Fatalf("peak RSS %d MB, bound %d MB", kb>>10, spillRSSBoundMB)
			}
			return
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
}
