package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eddydb/eddy/bench/nexmark/queries"
)

// TestNexmarkScript runs shared/nexmark/queries.sql as written, on one
// server: the three sources (bounded), then every view in file order. The
// test waits, after each view, until the sources it reads have ingested
// their whole stream, so every later view over them is created after its
// sources finished: each must be backfilled from the sources' start. Then
// every view must equal its recomputation over connector-fed tables
// holding the same events (the oracle of TestNexmarkOracle) and have
// dropped no late row.
func TestNexmarkScript(t *testing.T) {
	suite, err := queries.ParseSuite(queries.SQL)
	if err != nil {
		t.Fatal(err)
	}
	events := nexmarkEvents() / 2 // 20 s of event time: q7_final closes a window
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := startNexmarkEnv(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"person", "auction", "bid"} {
		if err := env.exec(queries.TableOf(suite.Sources[name], "_t", events, nexmarkRate)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"person", "auction", "bid"} {
		if err := env.exec(queries.BoundedSource(suite.Sources[name], events, nexmarkRate)); err != nil {
			t.Fatal(err)
		}
	}
	created := map[string]bool{}
	for _, q := range suite.Queries {
		for _, s := range q.Setup {
			if !created[s] {
				created[s] = true
				if err := env.exec(s); err != nil {
					t.Fatal(err)
				}
				if err := env.exec(queries.Renamed(s, "_t")); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := env.exec(q.View); err != nil {
			t.Fatalf("creating %s: %v", q.Name, err)
		}
		if err := env.waitIngested(q.Sources, events); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.waitIngested([]string{"person_t", "auction_t", "bid_t"}, events); err != nil {
		t.Fatal(err)
	}
	for _, q := range suite.Queries {
		if err := env.checkNoLate(q.Name); err != nil {
			t.Error(err)
		}
		rows, err := env.compare(q)
		if err != nil {
			t.Error(fmt.Errorf("%s: %w", q.Name, err))
			continue
		}
		t.Logf("%s: %d rows match the recomputation", q.Name, rows)
	}
}

// TestPacedWindowViews creates a plain view over one-second windows of a
// paced Nexmark source, and an EMIT ON WINDOW CLOSE view over the same
// windows a second and a half later: the later view is backfilled from the
// source's start, so every window it has closed equals the plain view's,
// the first one included.
func TestPacedWindowViews(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := startNexmarkEnv(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	const windows = " AS SELECT window_start, count(*) AS n, sum(price) AS total FROM TUMBLE(bid, date_time, INTERVAL '1' SECOND) GROUP BY window_start"
	for _, s := range []string{
		`CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
			date_time TIMESTAMP, extra VARCHAR, WATERMARK FOR date_time AS date_time)
			WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.event.rate = '1000', nexmark.max.emit.speed = 'false')`,
		"CREATE MATERIALIZED VIEW plain" + windows,
	} {
		if err := env.exec(s); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	if err := env.exec("CREATE MATERIALIZED VIEW eowc" + windows + " EMIT ON WINDOW CLOSE"); err != nil {
		t.Fatal(err)
	}
	const check = `SELECT count(*) FILTER (WHERE p.n IS DISTINCT FROM e.n OR p.total IS DISTINCT FROM e.total),
		count(*), min(e.window_start) = (SELECT min(window_start) FROM plain)
		FROM eowc e LEFT JOIN plain p USING (window_start)`
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		rows, err := queryRows(ctx, env.conn, check)
		if err != nil {
			t.Fatal(err)
		}
		var differ, closed int
		var sameFirst string
		if _, err := fmt.Sscanf(rows[0], "%d|%d|%s", &differ, &closed, &sameFirst); err != nil {
			t.Fatalf("%q: %v", rows[0], err)
		}
		if differ != 0 || (closed > 0 && sameFirst != "t") {
			t.Fatalf("the EMIT ON WINDOW CLOSE view disagrees with the plain view (differing windows, closed windows, same first window): %s", rows[0])
		}
		if closed >= 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d windows closed in a minute", closed)
		}
	}
}

// TestSubscribeSourceHistory: a SUBSCRIBE over a source no view reads
// starts the source's reader and sees every event; a later SUBSCRIBE over
// the source, which has read its whole (bounded) stream by then, starts
// with a snapshot of every event, as a view created then would.
func TestSubscribeSourceHistory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env, err := startNexmarkEnv(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	suite, err := queries.ParseSuite(queries.SQL)
	if err != nil {
		t.Fatal(err)
	}
	const events = 2000
	if err := env.exec(queries.BoundedSource(suite.Sources["bid"], events, nexmarkRate)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(queries.CountOf(queries.TableType("bid"), events))
	// No view reads the source: the subscription starts its reader.
	if err := env.exec("BEGIN; DECLARE c0 CURSOR FOR SUBSCRIBE (SELECT count(*) FROM bid)"); err != nil {
		t.Fatal(err)
	}
	for last := ""; last != want; {
		res, err := env.conn.Exec(ctx, "FETCH ALL c0").ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res[0].Rows {
			if string(r[1]) == "1" {
				last = string(r[2])
			}
		}
	}
	if err := env.exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := env.waitIngested([]string{"bid"}, events); err != nil {
		t.Fatal(err)
	}
	res, err := env.conn.Exec(ctx, "BEGIN; DECLARE c CURSOR FOR SUBSCRIBE (SELECT count(*) FROM bid); FETCH 1 c").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := res[len(res)-1].Rows
	if len(rows) != 1 || string(rows[0][1]) != "1" || string(rows[0][2]) != want {
		t.Fatalf("the subscription's first row is %q, want diff 1 and count %s", rows, want)
	}
}
