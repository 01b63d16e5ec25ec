package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/bench/nexmark/queries"
	"github.com/eddydb/eddy/server/connector/nexmark"
	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// sourceStallAfter is how long TestSourceTinyBudget lets its sources go
// without a new record before it calls them stalled.
const sourceStallAfter = 90 * time.Second

// sourceUnreadAfter is how long TestSourceTinyBudget lets the server
// refuse every read of eddy_sources (53200) before it calls the server
// unresponsive: while reads are refused the sources' progress is unknown,
// not stalled.
const sourceUnreadAfter = 4 * time.Minute

// TestSourceTinyBudget runs Nexmark q8 (windowed aggregates of the
// person and auction sources, joined) over 1M events under a 24 MiB
// budget, too small for its state and commits, and checks that its
// sources never stall and both finish (every record of their events
// read), and the server keeps answering. The budget holds q8's state
// once spilled (its resident indexes reach about 20 of the 24 MiB with
// the server's own) only because each source's batch takes at most a
// 64th of it (server's ingestSize.fit): full 8192-row batches (5 MiB of
// auctions, 3.6 MiB of persons, one in flight and one generated ahead
// per source) are not reservations and measured as standing memory, so
// under make test's load the auction source was refused until it
// stopped with 53200 while the monitoring reads were refused for 4
// minutes. A source that stops with 53200 naming itself (its smallest
// batches refused again and again while no other work held memory) is
// reported as such and fails the test. Before, a refused source retried the same 8192-row batch
// every second forever: this test stalled (as q8 under 64 MiB did at 2M
// events, and q5 under 128 MiB). A stall is no source reading a record
// for sourceStallAfter while some source is neither done nor stopped, seen
// by a read of eddy_sources made sourceStallAfter after the last record.
// A read the budget refuses sees nothing: under make test's load the
// monitoring query was refused for 90 s while the auction source went on
// committing its small batches (it finished 2 s before the test called it
// stalled), so refused reads count against sourceUnreadAfter instead.
func TestSourceTinyBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, mib := range []int{24} {
		t.Run(fmt.Sprintf("%dMiB", mib), func(t *testing.T) { testSourceTinyBudget(t, mib) })
	}
}

func testSourceTinyBudget(t *testing.T, mib int) {
	const events = 1_000_000
	s := harness.StartEddy(t, harness.WithArgs("--memory-limit", fmt.Sprintf("%dMiB", mib)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	suite, err := queries.ParseSuite(queries.SQL)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := suite.Select("q8")
	if err != nil {
		t.Fatal(err)
	}
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	execAll(t, ctx, c, queries.BoundedSource(suite.Sources["person"], events, 0),
		queries.BoundedSource(suite.Sources["auction"], events, 0), qs[0].View)
	want := map[string]int64{"person": queries.CountOf(nexmark.Person, events), "auction": queries.CountOf(nexmark.Auction, events)}
	var last, read string
	moved, answered, refused := time.Now(), time.Now(), 0
	for {
		rows, err := sourceRows(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if rows != "" {
			// Progress is records read: a source retrying a refused batch
			// flips between running and failed without reading any.
			if r := recordsOf(rows); r != read {
				read, moved = r, time.Now()
			}
			last, answered = rows, time.Now()
		} else {
			refused++
		}
		if outcome, ok := sourcesSettled(t, last, want); ok {
			t.Logf("under %d MiB: %s; %d batches refused; %d reads of eddy_sources refused", mib, outcome,
				strings.Count(s.Logs(), "source batch refused memory"), refused)
			if strings.Contains(outcome, " stopped ") {
				t.Fatalf("under %d MiB a source stopped: %s\n%s", mib, outcome, tail(s.Logs()))
			}
			break
		}
		if answered.Sub(moved) > sourceStallAfter {
			t.Fatalf("under %d MiB the sources stalled for %v: %s\n%s", mib, sourceStallAfter, last, tail(s.Logs()))
		}
		if time.Since(answered) > sourceUnreadAfter {
			t.Fatalf("under %d MiB every read of eddy_sources was refused for %v (%d refused in all; last read: %s)\n%s",
				mib, sourceUnreadAfter, refused, last, tail(s.Logs()))
		}
		time.Sleep(200 * time.Millisecond)
	}
	expectRows(t, ctx, c, "SELECT 1", "1")
}

// sourcesSettled reads eddy_sources rows (name|records|state|error, ';'
// separated) and reports whether every source is done (records as many
// as want says) or stopped for good by 53200, and how each ended. A source
// stopped by any other error fails the test.
func sourcesSettled(t *testing.T, rows string, want map[string]int64) (string, bool) {
	t.Helper()
	if rows == "" {
		return "", false
	}
	var outcome []string
	for _, r := range strings.Split(rows, ";") {
		f := strings.SplitN(r, "|", 4)
		if len(f) != 4 {
			t.Fatalf("eddy_sources row %q", r)
		}
		name, records, state, msg := f[0], f[1], f[2], f[3]
		switch {
		case records == fmt.Sprint(want[name]):
			outcome = append(outcome, name+" done")
		case state == "failed" && strings.HasPrefix(msg, "53200: out of memory: source "+name+" stopped"):
			outcome = append(outcome, fmt.Sprintf("%s stopped at %s of %d records: %s", name, records, want[name], msg))
		case state == "failed" && !strings.HasPrefix(msg, "53200"):
			t.Fatalf("source %s failed: %s", name, msg)
		default:
			return "", false
		}
	}
	return strings.Join(outcome, "; "), true
}

// sourceRows reads eddy_sources' name, records, state and error, one
// source per row ('|' between columns, ';' between rows). A read the
// budget refuses (53200: the statement is small work, but the budget is
// tiny) returns "" and no error: no progress seen.
func sourceRows(ctx context.Context, c *pgconn.PgConn) (string, error) {
	rows, err := queryRows(ctx, c, "SELECT name, records, state, coalesce(error, '') FROM eddy_sources ORDER BY name")
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "53200" {
		return "", nil
	}
	return strings.Join(rows, ";"), err
}

// recordsOf returns the records column of sourceRows' rows.
func recordsOf(rows string) string {
	var out []string
	for _, r := range strings.Split(rows, ";") {
		if f := strings.SplitN(r, "|", 3); len(f) > 1 {
			out = append(out, f[1])
		}
	}
	return strings.Join(out, ",")
}
