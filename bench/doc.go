// Package bench holds Eddy's whole-system benchmarks: programs that drive
// a running server over the PostgreSQL wire protocol and report what a
// user would see. Micro-benchmarks live beside their code (go test
// -bench); these measure the assembled system, and their figures go to
// BENCHMARKS.md with the command that produced them and the machine.
//
// Each benchmark is a main package under bench/ that takes a -dsn, so it
// runs unchanged against Eddy or against PostgreSQL for comparison. A
// later step starts Eddy in-process (server.Start on a temp directory)
// when -dsn is empty; for now the server is started by hand.
//
// # pgbench: point-query throughput
//
//	go run ./bench/pgbench -dsn postgres://localhost:5432/eddy -conns 8 -duration 10s \
//	    -setup 'CREATE TABLE kv (k int PRIMARY KEY, v text)' \
//	    -setup 'INSERT INTO kv SELECT g, md5(g::text) FROM generate_series(0, 999) g' \
//	    -query 'SELECT v FROM kv WHERE k = $1' -keys 1000
//
// opens -conns connections, prepares -query on each, and runs it in a
// closed loop with $1 drawn uniformly from [0, keys) for -duration. It
// prints queries per second and the p50/p99/p99.9 latency of one query
// (send to last row read).
//
// # freshness: write-to-read latency
//
//	go run ./bench/freshness -dsn ... -n 200 \
//	    -setup 'CREATE TABLE fresh (id bigint PRIMARY KEY)' \
//	    -setup 'CREATE MATERIALIZED VIEW fresh_v AS SELECT id FROM fresh'
//	    -insert 'INSERT INTO fresh VALUES ($1)' -poll 'SELECT id FROM fresh_v WHERE id = $1'
//
// inserts one row on a writer connection, then polls -poll on a reader
// connection until it returns a row; it reports the commit latency and the
// visibility latency (from sending the INSERT to the first poll that sees
// the row), p50/p99 over -n iterations. Against PostgreSQL the defaults
// (a plain table) measure the floor: commit plus one round trip.
//
// This package itself provides what the programs share: Latencies, a
// recorder of durations with percentiles and a one-line summary.
package bench
