package tpch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/server"
)

// BenchmarkRefreshWrites measures what a TPC-H refresh batch costs
// outside the views: an Eddy with the eight tables, the two indexes the
// 22 views make automatically (lineitem(l_partkey), orders(o_custkey))
// and no view, loaded at SF 0.01, applies RF1 of 1% (150 orders and their
// lineitems: the size of SF 0.1's 0.1% batch) as bench/tpch sends it
// (one transaction of two text INSERTs), then deletes the same orders as
// RF2 does (two DELETE ... IN), and again. cpu-ms/rf1 and cpu-ms/rf2 are
// the process's CPU time (server and client) per batch.
func BenchmarkRefreshWrites(b *testing.B) {
	benchRefresh(b, false)
}

// BenchmarkRefreshViews is BenchmarkRefreshWrites with the 22 views
// created before the load, as bench/tpch runs them: its cpu-ms per batch
// is the whole batch, views included, repeated often enough (the same
// orders inserted and deleted again) for test binaries of two builds,
// alternated, to resolve a change that one bench/tpch batch cannot.
func BenchmarkRefreshViews(b *testing.B) {
	benchRefresh(b, true)
}

// benchRefresh runs BenchmarkRefreshWrites, with the 22 views if views.
func benchRefresh(b *testing.B, views bool) {
	d := Generate(Config{SF: 0.01, Seed: 1, RefreshPermille: 10})
	srv, err := server.Start(server.Config{Listen: "127.0.0.1:0", DataDir: b.TempDir(), Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, srv.ConnString()+"?sslmode=disable")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	exec := func(sql string) {
		if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
			b.Fatalf("%s: %v", firstLine(sql), err)
		}
	}
	for _, s := range Schema() {
		exec(s)
	}
	if views {
		for _, q := range Queries() {
			for _, s := range q.Setup {
				exec(s)
			}
			exec(fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", q.Name, q.SQL))
		}
	} else {
		exec("CREATE INDEX ON lineitem (l_partkey); CREATE INDEX ON orders (o_custkey)")
	}
	for _, tb := range d.Tables {
		if err := copyRows(ctx, c, tb, tb.Rows); err != nil {
			b.Fatal(err)
		}
	}
	rf1, del := refreshPair(b, d)
	var cpu1, cpu2 time.Duration
	for b.Loop() {
		t0 := benchCPU()
		exec(rf1)
		t1 := benchCPU()
		exec(del)
		cpu1, cpu2 = cpu1+t1-t0, cpu2+benchCPU()-t1
	}
	b.ReportMetric(float64(cpu1.Microseconds())/1e3/float64(b.N), "cpu-ms/rf1")
	b.ReportMetric(float64(cpu2.Microseconds())/1e3/float64(b.N), "cpu-ms/rf2")
}

// refreshPair returns d's RF1 as one transaction, and one deleting the
// orders RF1 inserts (and their lineitems) as RF2's statements do.
func refreshPair(b *testing.B, d *Data) (rf1, del string) {
	for _, bt := range d.Batches {
		if bt.Name != "rf1" {
			continue
		}
		var keys []string
		for _, m := range regexp.MustCompile(`\('(\d+)'`).FindAllStringSubmatch(bt.Stmts[0], -1) {
			keys = append(keys, m[1])
		}
		in := strings.Join(keys, ", ")
		return "BEGIN;\n" + strings.Join(bt.Stmts, ";\n") + ";\nCOMMIT",
			fmt.Sprintf("BEGIN;\nDELETE FROM lineitem WHERE l_orderkey IN (%s);\nDELETE FROM orders WHERE o_orderkey IN (%s);\nCOMMIT", in, in)
	}
	b.Fatal("no rf1 batch")
	return "", ""
}

// benchCPU is the process's user and system CPU time.
func benchCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
