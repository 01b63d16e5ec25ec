package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/eddydb/eddy/bench"
)

// TestRunAgainstServer runs a few iterations against the server named by
// EDDY_BENCH_DSN (e.g. a local PostgreSQL), or else against an in-process
// Eddy polling a materialized view. A poll that can never see the row must
// time out rather than succeed.
func TestRunAgainstServer(t *testing.T) {
	dsn := os.Getenv("EDDY_BENCH_DSN")
	setup := []string{"CREATE TABLE IF NOT EXISTS eddy_freshness (id bigint PRIMARY KEY)"}
	poll := "SELECT id FROM eddy_freshness WHERE id = $1"
	if dsn == "" {
		eddy, err := bench.StartEddy(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = eddy.Stop() }()
		dsn = eddy.DSN
		setup = append(setup, "CREATE MATERIALIZED VIEW eddy_freshness_v AS SELECT id FROM eddy_freshness")
		poll = "SELECT id FROM eddy_freshness_v WHERE id = $1"
	}
	c := bench.FreshConfig{DSN: dsn, N: 5, Timeout: 5 * time.Second, Setup: setup,
		Insert: "INSERT INTO eddy_freshness VALUES ($1)", Poll: poll}
	r, err := bench.RunFreshness(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Visible.Len() != c.N || r.Commit.Len() != c.N {
		t.Fatalf("%d visible, %d commits recorded; want %d", r.Visible.Len(), r.Commit.Len(), c.N)
	}
	c.Setup, c.Poll, c.Timeout = nil, "SELECT id FROM eddy_freshness WHERE id = -$1", 50*time.Millisecond
	if _, err := bench.RunFreshness(context.Background(), c); err == nil {
		t.Fatal("a poll that never matches reported the row visible")
	}
}
