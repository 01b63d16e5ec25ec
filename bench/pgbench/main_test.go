package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/eddydb/eddy/bench"
)

// TestRunAgainstServer runs a short benchmark against the server named by
// EDDY_BENCH_DSN (e.g. a local PostgreSQL), or else against an in-process
// Eddy; every key exists, so every query must read one row.
func TestRunAgainstServer(t *testing.T) {
	dsn := os.Getenv("EDDY_BENCH_DSN")
	if dsn == "" {
		eddy, err := bench.StartEddy(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = eddy.Stop() }()
		dsn = eddy.DSN
	}
	c := bench.QPSConfig{
		DSN: dsn, Conns: 2, Duration: 200 * time.Millisecond, Keys: 10,
		Query: "SELECT k FROM eddy_pgbench_test WHERE k = $1",
		Setup: []string{
			"DROP TABLE IF EXISTS eddy_pgbench_test",
			"CREATE TABLE eddy_pgbench_test (k int PRIMARY KEY)",
			"INSERT INTO eddy_pgbench_test VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
		},
	}
	r, err := bench.RunQPS(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Queries == 0 || r.Rows != int64(r.Queries) {
		t.Fatalf("%d queries read %d rows; every key exists, so want one row each", r.Queries, r.Rows)
	}
}
