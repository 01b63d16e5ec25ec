package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// stateRows is how many rows TestSpillOperatorState loads: its self-join
// arranges each of them on both sides, one side with a 600-byte pad: some
// 90 MB of join state in memory against a 32 MiB budget.
const stateRows = 120_000

// stateViews are TestSpillOperatorState's views: a self-join (whose
// arrangements spill) and an aggregate of 40,000 groups.
var stateViews = []struct{ name, query string }{
	{"pairs", "SELECT a.k AS k1, b.k AS k2, a.pad FROM wide a JOIN wide b ON a.g = b.g WHERE a.k < b.k AND a.v % 5 = 0"},
	{"groups", "SELECT g, count(*) AS n, sum(v) AS s FROM wide GROUP BY g"},
}

// TestSpillOperatorState runs a server with --memory-limit 32MiB whose
// self-join view keeps several times the budget in join arrangements
// (the test, scaled down from 2M rows under 1 GiB): views created
// before the data, loaded, then updated and deleted from, each view equal
// to its query after every phase, across a clean restart and a kill -9,
// the join's state spilled, and peak RSS under the bound that
// TestSpillMemoryLimit keeps.
func TestSpillOperatorState(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 120,000 rows")
	}
	// The budget drives spilling only: the load's commits and the checks'
	// whole-table snapshots pass what 32MiB leaves to work (53200 otherwise;
	// TestMemoryLimit covers refusals).
	s := harness.StartEddy(t, harness.WithArgs("--memory-limit", "32MiB"), harness.WithEnv("EDDY_MEMORY_ACCOUNTING=0"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c, "CREATE TABLE wide (k bigint PRIMARY KEY, g int NOT NULL, v int NOT NULL, pad text)")
	for _, v := range stateViews {
		execAll(t, ctx, c, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	pad := strings.Repeat("p", 600)
	for lo := 0; lo < stateRows; lo += 5_000 {
		copyRows(t, ctx, c, "COPY wide FROM STDIN", lo, lo+5_000, func(b *strings.Builder, i int) {
			fmt.Fprintf(b, "%d\t%d\t%d\t%s%d\n", i, i%40_000, i%997, pad, i)
		})
	}
	check := func(when string) {
		t.Helper()
		for _, v := range stateViews {
			compareView(t, ctx, c, when, v.name, v.query)
		}
	}
	check("after the load")
	execAll(t, ctx, c,
		"UPDATE wide SET v = v + 1, pad = 'updated' WHERE k % 10 = 3",
		"DELETE FROM wide WHERE k % 10 = 7",
		"INSERT INTO wide VALUES (1000001, 5, 10, 'late'), (1000002, 5, 15, 'late')")
	check("after updates and deletes")
	checkRSS(t, s)
	if !strings.Contains(s.Logs(), "operator state spilled to disk") {
		t.Fatalf("no operator state spilled under a 32MiB budget; log:\n%s", s.Logs())
	}
	c.Close(ctx)
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	check("after a restart")
	execAll(t, ctx, c, "DELETE FROM wide WHERE k % 10 = 1", "UPDATE wide SET g = g + 1 WHERE k % 10 = 2")
	c.Close(ctx)
	s.Kill()
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	check("after kill -9")
	checkRSS(t, s)
}

// compareView fails unless view name has exactly the rows of query, and
// some.
func compareView(t *testing.T, ctx context.Context, c *pgconn.PgConn, when, name, query string) {
	t.Helper()
	got, err := queryRows(ctx, c, "SELECT * FROM "+name)
	if err != nil {
		t.Fatalf("%s: reading %s: %v", when, name, err)
	}
	want, err := queryRows(ctx, c, query)
	if err != nil {
		t.Fatalf("%s: %s: %v", when, query, err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("%s: view %s has %d rows, its query %d (differ or empty)", when, name, len(got), len(want))
	}
}
