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
	for round := range 2 {
		time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
		s.Kill()
		s.Restart()
		t.Logf("round %d: killed and restarted", round)
	}
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	want := queries.CountOf(nexmark.Bid, events)
	deadline := time.Now().Add(time.Minute)
	for {
		rows, err := queryRows(ctx, c, "SELECT (SELECT max(n) FROM totals), (SELECT count(*) FROM bid_t)")
		if err != nil {
			t.Fatal(err)
		}
		if rows[0] == fmt.Sprintf("%d|%d", want, want) {
			break
		}
		if time.Now().After(deadline) {
			st, _ := queryRows(ctx, c, "SELECT name, state, error, records FROM eddy_sources")
			t.Fatalf("view and table counts %s, want %d each; sources: %v", rows[0], want, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
