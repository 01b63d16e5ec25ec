// Package bench holds Eddy's whole-system benchmarks: programs that drive
// a running server over the PostgreSQL wire protocol and report what a
// user would see. Micro-benchmarks live beside their code (go test
// -bench); these measure the assembled system, and their figures go to
// BENCHMARKS.md with the command that produced them and the machine.
//
// The measurements are library functions (RunQPS, RunFreshness) so that
// they serve both the stand-alone programs, which take a -dsn and run
// unchanged against Eddy or PostgreSQL, and the suite, which needs no
// manual steps.
//
// # suite: everything, reproducibly (make bench)
//
//	go run ./bench/suite [-duration 3s] [-fresh-n 200] [-conns 8] [-keys 1000] [-postgres=false]
//
// starts Eddy in this process (StartEddy: server.Start on a temporary
// directory and a free loopback port) and, when /usr/local/bin/initdb
// exists, a throwaway PostgreSQL (StartPostgres: initdb + pg_ctl, as the
// postgres user when run as root); loads the same data into both (orders
// with a maintained per-customer view, kv keyed by k); and prints one
// table: point-query QPS and latency on the view (PostgreSQL: a
// materialized view with a unique index) and on the table, and
// freshness (Eddy polls a materialized view; PostgreSQL, having no
// maintained views, polls the table, which is its floor). cpu/q is the
// CPU time of server and client together per query (the PostgreSQL
// server's from /proc), the number to compare on a shared machine.
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
