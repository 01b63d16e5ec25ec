// Command suite reproduces the whole-system numbers in BENCHMARKS.md with
// no manual steps: it starts Eddy on a temporary directory (in-process, or
// with -eddy-bin as a server process of its own, as PostgreSQL is) and,
// when installed, a throwaway PostgreSQL, loads the same data into both,
// and runs the point-query (QPS) and freshness benchmarks against each,
// printing one table. See package bench.
//
//	go run ./bench/suite -duration 10s -fresh-n 500
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/eddydb/eddy/bench"
)

type config struct {
	duration   time.Duration
	warmup     time.Duration
	conns      int
	keys       int
	rowsPerKey int
	freshN     int
	postgres   bool
	only       string
	cpuprofile string
	workers    int
	eddyBin    string
	memLimit   string
}

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 3*time.Second, "measured time of each QPS run")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "unmeasured time before each QPS run")
	flag.IntVar(&c.conns, "conns", 8, "connections of the QPS runs")
	flag.IntVar(&c.keys, "keys", 1000, "distinct group keys (view rows)")
	flag.IntVar(&c.rowsPerKey, "rows-per-key", 10, "base-table rows per group key")
	flag.IntVar(&c.freshN, "fresh-n", 200, "freshness iterations")
	flag.BoolVar(&c.postgres, "postgres", true, "also run against PostgreSQL when installed")
	flag.StringVar(&c.only, "only", "", "run only workloads whose name contains this")
	flag.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of the Eddy runs (server and client) to this file")
	flag.IntVar(&c.workers, "workers", 1, "workers of Eddy's view dataflows (the server's --workers)")
	flag.StringVar(&c.eddyBin, "eddy-bin", "", "run Eddy as this binary (cmd/eddy), a server process apart from the clients as PostgreSQL's are; default: in this process")
	flag.StringVar(&c.memLimit, "memory-limit", "1GiB", "--memory-limit of the -eddy-bin server")
	flag.Parse()
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "suite:", err)
		os.Exit(1)
	}
}

// row is one line of the result table.
type row struct {
	target, workload, result string
}

func run(ctx context.Context, c config) error {
	dir, err := os.MkdirTemp("", "eddy-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var rows []row
	eddy, err := startEddy(dir, c)
	if err != nil {
		return err
	}
	if c.cpuprofile != "" {
		f, err := os.Create(c.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	rows, err = runAll(ctx, c, eddy, rows)
	pprof.StopCPUProfile()
	if err = joinStop(err, eddy); err != nil {
		return err
	}
	if c.postgres {
		pg, err := bench.StartPostgres(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "suite: skipping PostgreSQL:", err)
		} else if rows, err = runAll(ctx, c, pg, rows); joinStop(err, pg) != nil {
			return joinStop(err, pg)
		}
	}
	printTable(c, rows)
	return nil
}

// startEddy starts Eddy in this process, or as c.eddyBin.
func startEddy(dir string, c config) (*bench.Target, error) {
	if c.eddyBin != "" {
		return bench.StartEddyProcess(dir, c.eddyBin, c.workers, c.memLimit)
	}
	return bench.StartEddyWorkers(dir, c.workers)
}

func joinStop(err error, t *bench.Target) error {
	if serr := t.Stop(); err == nil {
		err = serr
	}
	return err
}

// runAll runs every workload against t, appending result rows.
func runAll(ctx context.Context, c config, t *bench.Target, rows []row) ([]row, error) {
	if err := bench.RunSetup(ctx, t.DSN, loadData(c, t.Name)); err != nil {
		return rows, err
	}
	for _, w := range workloads(c, t.Name) {
		if c.only != "" && !strings.Contains(w.name, c.only) {
			continue
		}
		cpu0, srv0 := totalCPU(t)
		res, err := w.run(ctx, t.DSN)
		if err != nil {
			return rows, fmt.Errorf("%s on %s: %w", w.name, t.Name, err)
		}
		cpu1, srv1 := totalCPU(t)
		rows = append(rows, row{t.Name, w.name, res(cpu1-cpu0, srv1-srv0)})
	}
	return rows, nil
}

// loadData creates and fills the tables (and, for Eddy, the maintained
// views; PostgreSQL gets a materialized view with a unique index, the
// best it can do for the same point query).
func loadData(c config, target string) []string {
	stmts := []string{"CREATE TABLE orders (id int PRIMARY KEY, cust int NOT NULL, amount int NOT NULL)"}
	stmts = append(stmts, insertRows("orders", c.keys*c.rowsPerKey, func(i int) string {
		return fmt.Sprintf("(%d, %d, %d)", i, i%c.keys, i%97)
	})...)
	stmts = append(stmts,
		"CREATE MATERIALIZED VIEW cust_totals AS SELECT cust, count(*) AS n, sum(amount) AS total FROM orders GROUP BY cust",
		"CREATE TABLE kv (k int PRIMARY KEY, v text)")
	stmts = append(stmts, insertRows("kv", c.keys, func(i int) string { return fmt.Sprintf("(%d, 'value %d')", i, i) })...)
	stmts = append(stmts, "CREATE TABLE fresh (id bigint PRIMARY KEY)", "CREATE TABLE fresh_a (id bigint PRIMARY KEY)")
	if target == "postgres" {
		return append(stmts, "CREATE UNIQUE INDEX ON cust_totals (cust)", "ANALYZE")
	}
	return append(stmts, "CREATE MATERIALIZED VIEW fresh_v AS SELECT id FROM fresh",
		// A grouped view: at 2 or more workers its Reduce is sharded, so
		// a written row crosses the exchange before it is visible.
		"CREATE MATERIALIZED VIEW fresh_g AS SELECT id % 1000 AS g, count(*) AS n, max(id) AS m FROM fresh_a GROUP BY id % 1000")
}

// insertRows returns INSERT statements of up to 1000 rows each that insert
// rows 0..n-1 of table as formatted by tuple.
func insertRows(table string, n int, tuple func(i int) string) []string {
	var out []string
	for lo := 0; lo < n; lo += 1000 {
		var b strings.Builder
		fmt.Fprintf(&b, "INSERT INTO %s VALUES ", table)
		for i := lo; i < min(lo+1000, n); i++ {
			if i > lo {
				b.WriteString(", ")
			}
			b.WriteString(tuple(i))
		}
		out = append(out, b.String())
	}
	return out
}

// workload is one named measurement; run returns a formatter of its
// result given the CPU time spent by the clients and server together and
// by the server's processes alone (0: unknown, the server in this
// process).
type workload struct {
	name string
	run  func(ctx context.Context, dsn string) (func(cpu, server time.Duration) string, error)
}

func workloads(c config, target string) []workload {
	qps := func(query string) func(context.Context, string) (func(time.Duration, time.Duration) string, error) {
		return func(ctx context.Context, dsn string) (func(time.Duration, time.Duration) string, error) {
			r, err := bench.RunQPS(ctx, bench.QPSConfig{DSN: dsn, Conns: c.conns, Duration: c.duration,
				Warmup: c.warmup, Query: query, Keys: int64(c.keys)})
			if err != nil {
				return nil, err
			}
			if r.Rows != int64(r.Queries) {
				return nil, fmt.Errorf("%d queries read %d rows; want one each", r.Queries, r.Rows)
			}
			return func(cpu, server time.Duration) string {
				srv := "-"
				if server > 0 {
					srv = fmt.Sprintf("%.1f µs", float64(server.Microseconds())/float64(r.Queries))
				}
				return fmt.Sprintf("%.0f q/s\tp50=%v p99=%v\t%.1f µs\t%s", r.QPS(), r.Latency.Percentile(50),
					r.Latency.Percentile(99), float64(cpu.Microseconds())/float64(r.Queries), srv)
			}, nil
		}
	}
	poll := "SELECT id FROM fresh_v WHERE id = $1"
	if target == "postgres" {
		poll = "SELECT id FROM fresh WHERE id = $1" // no incremental views: the floor
	}
	fresh := func(table, poll string) func(context.Context, string) (func(time.Duration, time.Duration) string, error) {
		return func(ctx context.Context, dsn string) (func(time.Duration, time.Duration) string, error) {
			r, err := bench.RunFreshness(ctx, bench.FreshConfig{DSN: dsn, N: c.freshN,
				Insert: "INSERT INTO " + table + " VALUES ($1)", Poll: poll, Timeout: 10 * time.Second})
			if err != nil {
				return nil, err
			}
			return func(_, _ time.Duration) string {
				return fmt.Sprintf("visible p50=%v p99=%v\tcommit p50=%v p99=%v\t%.1f polls/row",
					r.Visible.Percentile(50), r.Visible.Percentile(99), r.Commit.Percentile(50),
					r.Commit.Percentile(99), r.PollsPerRow())
			}, nil
		}
	}
	ws := []workload{
		{"point-mv", qps("SELECT n, total FROM cust_totals WHERE cust = $1")},
		{"point-table", qps("SELECT v FROM kv WHERE k = $1")},
		{"freshness", fresh("fresh", poll)},
	}
	if target != "postgres" {
		// Ids grow (RunFreshness numbers them from the clock), so a
		// group's max is the newest row written to it.
		ws = append(ws, workload{"freshness-agg", fresh("fresh_a", "SELECT n FROM fresh_g WHERE g = $1::bigint % 1000 AND m = $1::bigint")})
	}
	return ws
}

// totalCPU is the CPU time used so far by this process (the clients, and
// Eddy when it runs in this process) and by t's server processes, and by
// the latter alone (0 when the server runs in this process). Backends of
// closed connections count once the postmaster has reaped them, hence the
// pause.
func totalCPU(t *bench.Target) (all, server time.Duration) {
	if t.ServerCPU == nil {
		return cpuTime(), 0
	}
	time.Sleep(200 * time.Millisecond)
	server = t.ServerCPU()
	return cpuTime() + server, server
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func printTable(c config, rows []row) {
	fmt.Printf("conns=%d duration=%v keys=%d rows/key=%d fresh-n=%d workers=%d\n", c.conns, c.duration, c.keys, c.rowsPerKey, c.freshN, c.workers)
	fmt.Println("cpu/q: CPU time (user+sys) per query of server and client together; server cpu/q: the server's processes alone (- when Eddy runs in the suite's process)")
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "target\tworkload\tresult\tlatency\tcpu/q\tserver cpu/q")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.target, r.workload, r.result)
	}
	w.Flush()
}
