package main

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestRunAgainstServer runs a few iterations against the server named by
// EDDY_BENCH_DSN (e.g. a local PostgreSQL); it is skipped without one. A
// poll that can never see the row must time out rather than succeed.
func TestRunAgainstServer(t *testing.T) {
	dsn := os.Getenv("EDDY_BENCH_DSN")
	if dsn == "" {
		t.Skip("EDDY_BENCH_DSN not set")
	}
	c := config{
		dsn: dsn, n: 5, timeout: 5 * time.Second,
		setup:  stringList{"CREATE TABLE IF NOT EXISTS eddy_freshness (id bigint PRIMARY KEY)"},
		insert: "INSERT INTO eddy_freshness VALUES ($1)",
		poll:   "SELECT id FROM eddy_freshness WHERE id = $1",
	}
	if err := run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	c.poll, c.timeout = "SELECT id FROM eddy_freshness WHERE id = -$1", 50*time.Millisecond
	if err := run(context.Background(), c); err == nil {
		t.Fatal("a poll that never matches reported the row visible")
	}
}
