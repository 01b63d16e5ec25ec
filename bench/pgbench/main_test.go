package main

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestRunAgainstServer runs a short benchmark against the server named by
// EDDY_BENCH_DSN (e.g. a local PostgreSQL); it is skipped without one.
func TestRunAgainstServer(t *testing.T) {
	dsn := os.Getenv("EDDY_BENCH_DSN")
	if dsn == "" {
		t.Skip("EDDY_BENCH_DSN not set")
	}
	c := config{
		dsn: dsn, conns: 2, duration: 200 * time.Millisecond, keys: 10,
		query: "SELECT k FROM eddy_pgbench_test WHERE k = $1",
		setup: stringList{
			"DROP TABLE IF EXISTS eddy_pgbench_test",
			"CREATE TABLE eddy_pgbench_test (k int PRIMARY KEY)",
			"INSERT INTO eddy_pgbench_test VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
		},
	}
	ctx := context.Background()
	if err := runSetup(ctx, c.dsn, c.setup); err != nil {
		t.Fatal(err)
	}
	conns, err := connectAll(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	lat, rows, err := measure(ctx, conns, c, c.duration)
	if err != nil {
		t.Fatal(err)
	}
	if lat.Len() == 0 || rows != int64(lat.Len()) {
		t.Fatalf("%d queries read %d rows; every key exists, so want one row each", lat.Len(), rows)
	}
}
