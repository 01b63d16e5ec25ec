package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/eddydb/eddy/bench"
	"github.com/eddydb/eddy/tests/tpch"
)

// options are the command-line flags.
type options struct {
	sf         float64
	seed       uint64
	chunk      int
	queries    string
	perView    bool
	cpuprofile string
	rfPermille int
	maxRSS     int64 // MB
	postgres   bool
	eddy       bool
	pgbin      string
	pgIndexes  bool
	serve      string // internal: run the Eddy server of a child process
}

// memoryLimit is -memory-limit, passed on to the child (serve).
var memoryLimit string

func main() {
	var o options
	flag.Float64Var(&o.sf, "sf", 0.1, "TPC-H scale factor (1: 6M lineitems)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the generated data")
	flag.IntVar(&o.rfPermille, "rf", 1, "orders each refresh batch inserts or deletes, in thousandths of the orders (TPC-H: 1)")
	flag.IntVar(&o.chunk, "chunk", 10_000, "rows per COPY during the load (one commit, one step of every view)")
	flag.StringVar(&o.queries, "queries", "", "comma-separated views to create (q01,q18; default all 22)")
	flag.BoolVar(&o.perView, "per-view", false, "also load each view alone in a fresh Eddy and report its state per input row")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "directory for CPU and heap profiles of the Eddy processes (all.pprof/.heap, and qNN.pprof/.heap with -per-view)")
	flag.Int64Var(&o.maxRSS, "maxrss", 16<<10, "stop a run when Eddy's RSS passes this many MB")
	flag.BoolVar(&o.postgres, "postgres", true, "also measure PostgreSQL (skipped when initdb is not found)")
	flag.BoolVar(&o.eddy, "eddy", true, "measure Eddy (-eddy=false measures PostgreSQL alone, e.g. at a scale where both do not fit in memory at once)")
	flag.BoolVar(&o.pgIndexes, "pgindexes", true, "give PostgreSQL indexes on lineitem(l_partkey, l_suppkey) and orders(o_custkey) after the load")
	flag.StringVar(&o.pgbin, "pgbin", "", "directory of PostgreSQL's initdb and pg_ctl (default: "+bench.PostgresBinDir+", else /usr/lib/postgresql/15/bin)")
	flag.StringVar(&memoryLimit, "memory-limit", "", "Eddy's --memory-limit, e.g. 8GiB (default: none, the garbage-collector policy of server.TuneGC and no spilling)")
	flag.StringVar(&o.serve, "serve", "", "internal: serve Eddy on this data directory (the child process)")
	flag.Parse()
	var err error
	if o.serve != "" {
		err = serve(o.serve, o.cpuprofile)
	} else {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpch:", err)
		os.Exit(1)
	}
}

// run generates the data, measures PostgreSQL (when available), Eddy with
// all views, and with -per-view each view alone, and prints the report.
func run(o options) error {
	views, err := selectQueries(o.queries)
	if err != nil {
		return err
	}
	if o.cpuprofile != "" {
		if err := os.MkdirAll(o.cpuprofile, 0o755); err != nil {
			return err
		}
	}
	start := time.Now()
	w := newWorkload(tpch.Generate(tpch.Config{SF: o.sf, Seed: o.seed, RefreshPermille: o.rfPermille}), tpch.Queries(), views, o.chunk)
	debug.FreeOSMemory() // the generator's garbage: gigabytes at SF 1
	rep := &report{o: o, w: w, machine: machine(), genTime: time.Since(start)}
	fmt.Fprintf(os.Stderr, "generated SF %g in %v: %d rows\n", o.sf, rep.genTime.Round(time.Millisecond), w.loadRows())
	ctx := context.Background()
	if o.postgres && setPostgresBin(o.pgbin) {
		dir, err := os.MkdirTemp("", "tpch-pg-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, "postgres: load, materialized views, refresh")
		if rep.pg, err = runPostgres(ctx, w, dir, o.pgIndexes); err != nil {
			return err
		}
	}
	if !o.eddy {
		rep.eddy = &loadResult{Error: "not measured (-eddy=false)"}
		rep.print(os.Stdout)
		return nil
	}
	fmt.Fprintln(os.Stderr, "eddy: views, load, refresh")
	rep.eddy = runEddy(ctx, w, views, true, o, profilePath(o.cpuprofile, "all"))
	if o.perView {
		rows := rep.eddy.Rows["load"]
		if rep.pg != nil {
			rows = rep.pg.Rows["load"]
		}
		counts := map[string]int64{}
		for name, r := range rows {
			counts[name] = int64(len(r))
		}
		rep.base, rep.perView = runPerView(ctx, w, o, counts)
	}
	rep.print(os.Stdout)
	return nil
}

// selectQueries returns the queries named in list (all 22 when empty).
func selectQueries(list string) ([]tpch.Query, error) {
	all := tpch.Queries()
	if list == "" {
		return all, nil
	}
	byName := map[string]tpch.Query{}
	for _, q := range all {
		byName[q.Name] = q
	}
	var out []tpch.Query
	for _, name := range strings.Split(list, ",") {
		q, ok := byName[strings.TrimSpace(name)]
		if !ok {
			return nil, fmt.Errorf("-queries: no query %q (q01 ... q22)", name)
		}
		out = append(out, q)
	}
	return out, nil
}

// setPostgresBin points bench.StartPostgres at dir, or at the first of
// its default and Debian's PostgreSQL 15 that holds initdb; it reports
// whether one does.
func setPostgresBin(dir string) bool {
	candidates := []string{bench.PostgresBinDir, "/usr/lib/postgresql/15/bin"}
	if dir != "" {
		candidates = []string{dir}
	}
	for _, d := range candidates {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			bench.PostgresBinDir = d
			return true
		}
	}
	fmt.Fprintf(os.Stderr, "postgres: no initdb in %s; PostgreSQL is not measured\n", strings.Join(candidates, ", "))
	return false
}
