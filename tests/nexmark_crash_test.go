package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/bench/nexmark/queries"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/nexmark"
	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestNexmarkCrash kills the server with SIGKILL while a paced nexmark
// source feeds a view and a table, twice, within a second of the last
// checkpoint (they are a second apart), so restarts replay input-log
// records that hold a nexmark batch's positions only (the generator
// regenerates the rows). Once the
// generator is exhausted the view must hold exactly the bids among its
// events (nothing lost, nothing counted twice) and equal its query
// recomputed over the table.
func TestNexmarkCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	const events = 250000
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	s := harness.StartEddy(t, harness.WithEnv("EDDY_CHECKPOINT_COMMITS=1000"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := fmt.Sprintf(`connector = 'nexmark', nexmark.table.type = 'bid', nexmark.event.num = '%d',
		nexmark.max.emit.speed = 'false', nexmark.event.rate = '100000'`, events)
	cols := `auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR`
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c,
		"CREATE SOURCE bid ("+cols+") WITH ("+opts+")",
		"CREATE TABLE bid_t ("+cols+") WITH ("+opts+")",
		// One view reads the source: a view created once the source runs
		// would start from that moment (a source stores no rows). totals
		// reads per_auction, a stored view, which it backfills from.
		"CREATE MATERIALIZED VIEW per_auction AS SELECT auction, count(*) AS n, max(price) AS hi, sum(price) AS p, max(extra) AS e FROM bid GROUP BY auction",
		"CREATE MATERIALIZED VIEW totals AS SELECT sum(n) AS n, sum(p) AS p, max(e) AS e FROM per_auction")
	c.Close(ctx)
	killTwice(t, s, rng, 300, 700)
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	want := queries.CountOf(nexmark.Bid, events)
	awaitCounts(t, ctx, c, "SELECT (SELECT max(n) FROM totals), (SELECT count(*) FROM bid_t)", want)
	for view, recompute := range map[string]string{
		"SELECT * FROM totals":      "SELECT count(*), sum(price), max(extra) FROM bid_t",
		"SELECT * FROM per_auction": "SELECT auction, count(*), max(price), sum(price), max(extra) FROM bid_t GROUP BY auction",
	} {
		got, err := queryRows(ctx, c, view)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := queryRows(ctx, c, recompute)
		if err != nil {
			t.Fatal(err)
		}
		if err := diffRows(got, exp); err != nil {
			t.Fatalf("%s differs from its recomputation: %v", view, err)
		}
	}
	// The generator itself, run here without any crash, is the reference
	// for the bids' total price (a replay that regenerated the wrong
	// events would agree with the table, replayed the same way, but not
	// with this).
	cfg, _, err := nexmark.ParseOptions(map[string]string{"nexmark.table.type": "bid",
		"nexmark.event.num": fmt.Sprint(events), "nexmark.event.rate": "100000"})
	if err != nil {
		t.Fatal(err)
	}
	g, total := nexmark.NewAt(cfg, 0), int64(0)
	for {
		var row repr.Row
		if _, ok := g.NextOf(nexmark.Bid, &row); !ok {
			break
		}
		total += row[2].Int()
	}
	got, err := queryRows(ctx, c, "SELECT n, p FROM totals")
	if err != nil || len(got) != 1 || got[0] != fmt.Sprintf("%d|%d", want, total) {
		t.Fatalf("totals = %v (%v), want %d|%d from the generator", got, err, want, total)
	}
	if logs := s.Logs(); !strings.Contains(logs, "log replayed") {
		t.Fatalf("no restart replayed the input log:\n%s", logs)
	}
}

// TestNexmarkCrashSpilledIntervalJoin is TestNexmarkCrash for q7's
// interval join (over 1-second windows of a bid source watermarked on
// date_time) with every operator state spilled at each checkpoint
// (EDDY_SPILL_ALL), so that restarts restore it within a bound of
// nothing: the join spills part way through its restore and files
// every stored row in its close index. Once the generator is exhausted
// the view must equal its query recomputed over a table fed the same
// bids, and the join must have spilled.
func TestNexmarkCrashSpilledIntervalJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	const events = 100000
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 4))
	s := harness.StartEddy(t, harness.WithEnv("EDDY_CHECKPOINT_COMMITS=1000", "EDDY_SPILL_ALL=1"),
		harness.WithLogLevel("debug"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := fmt.Sprintf(`connector = 'nexmark', nexmark.table.type = 'bid', nexmark.event.num = '%d',
		nexmark.max.emit.speed = 'false', nexmark.event.rate = '20000'`, events)
	cols := `auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR`
	q7 := func(from string) string {
		return `SELECT b.auction, b.price, b.bidder, b.date_time FROM ` + from + ` b
			JOIN (SELECT max(price) AS maxprice, window_end AS date_time
			      FROM TUMBLE(` + from + `, date_time, INTERVAL '1' SECOND) GROUP BY window_end) b1
			  ON b.price = b1.maxprice
			WHERE b.date_time BETWEEN b1.date_time - INTERVAL '1' SECOND AND b1.date_time`
	}
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c,
		"CREATE SOURCE bid ("+cols+", WATERMARK FOR date_time AS date_time) WITH ("+opts+")",
		"CREATE TABLE bid_t ("+cols+") WITH ("+opts+")",
		"CREATE MATERIALIZED VIEW q7 AS "+q7("bid"),
		"CREATE MATERIALIZED VIEW nbids AS SELECT count(*) AS n FROM bid")
	c.Close(ctx)
	killTwice(t, s, rng, 500, 1500)
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	awaitCounts(t, ctx, c, "SELECT (SELECT n FROM nbids), (SELECT count(*) FROM bid_t)", queries.CountOf(nexmark.Bid, events))
	got, err := queryRows(ctx, c, "SELECT * FROM q7")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := queryRows(ctx, c, q7("bid_t"))
	if err != nil {
		t.Fatal(err)
	}
	if err := diffRows(got, exp); err != nil || len(got) == 0 {
		t.Fatalf("q7 (%d rows) differs from its recomputation (%d rows): %v", len(got), len(exp), err)
	}
	logs := s.Logs()
	spilled := 0
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "operator state spilled to disk") && strings.Contains(l, "name=q7") && strings.Contains(l, "operator=Join") {
			spilled++
		}
	}
	restored := strings.Count(logs, `restored with operator state spilled" name=q7`)
	if spilled == 0 || restored == 0 { // a restart before the first bid restores nothing to spill
		t.Fatalf("q7's interval join spilled %d times, and q7 restored with spilled state %d times:\n%s", spilled, restored, logs)
	}
	t.Logf("%d q7 rows; its interval join spilled %d times, q7 restored spilled %d times; input log replayed: %t",
		len(got), spilled, restored, strings.Contains(logs, "log replayed"))
}

// killTwice kills s with SIGKILL and restarts it twice, each after a
// random wait of base to base+spread milliseconds.
func killTwice(t *testing.T, s *harness.Server, rng *rand.Rand, base, spread int) {
	t.Helper()
	for round := range 2 {
		time.Sleep(time.Duration(base+rng.IntN(spread)) * time.Millisecond)
		s.Kill()
		s.Restart()
		t.Logf("round %d: killed and restarted", round)
	}
}

// awaitCounts polls query, which returns two counts, until both equal
// want, failing after a minute (with the sources' states).
func awaitCounts(t *testing.T, ctx context.Context, c *pgconn.PgConn, query string, want int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		rows, err := queryRows(ctx, c, query)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0] == fmt.Sprintf("%d|%d", want, want) {
			return
		}
		if time.Now().After(deadline) {
			st, _ := queryRows(ctx, c, "SELECT name, state, error, records FROM eddy_sources")
			t.Fatalf("counts %s, want %d each; sources: %v", rows[0], want, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
