package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/bench"
	"github.com/eddydb/eddy/tests/tpch"
)

// refreshBatches are the batches the refresh phase applies, in order:
// RF1 (0.1% new orders) and RF2 (0.1% of the orders deleted).
var refreshBatches = []string{"rf1", "rf2"}

// step is the cost of one phase on one server.
type step struct {
	Wall, CPU time.Duration
}

// loadResult is a server's cost of loading the data set.
type loadResult struct {
	Views       int
	Load        step
	Create      step  // creating the views (PostgreSQL: after the load)
	Index       step  // PostgreSQL: creating pgIndexes after the load
	PeakRSS     int64 // Eddy: VmHWM over creation and load
	Heap        int64 // Eddy: live heap after the load
	Disk        int64 // Eddy: bytes in the data directory after the load
	Error       string
	Refresh     map[string]step                // by batch name
	Rows        map[string]map[string][]string // each view's sorted rows after "load" and each batch (viewRows)
	RelationSum int64                          // PostgreSQL: pg_total_relation_size of the tables
	// Eddy: each view's operator state after the load, and the automatic
	// indexes' entries and bytes (readState).
	State               []viewState
	AutoRows, AutoBytes int64
	// StepCPU is Eddy's CPU time of each view's maintenance in each
	// refresh batch (by batch, then view; readStepCPU).
	StepCPU map[string]map[string]time.Duration
}

// measure returns the wall and CPU time of f, CPU read by cpu.
func measure(cpu func() time.Duration, f func() error) (step, error) {
	c0, t0 := cpu(), time.Now()
	err := f()
	return step{Wall: time.Since(t0), CPU: cpu() - c0}, err
}

// pgIndexes are the secondary indexes PostgreSQL gets after the load
// (-pgindexes): the schema has primary keys only, and without an index on
// lineitem's part and supplier PostgreSQL runs the correlated subqueries
// of Q17 and Q20 as a scan of lineitem per outer row (at SF 0.1, Q20 alone
// did not finish in 5 minutes).
var pgIndexes = []string{
	"CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey)",
	"CREATE INDEX orders_cust ON orders (o_custkey)",
	"ANALYZE",
}

// runPostgres loads the data into a throwaway PostgreSQL with no views,
// adds pgIndexes (withIndexes), creates the views as materialized views,
// and applies each refresh batch followed by REFRESH MATERIALIZED VIEW of
// every view.
func runPostgres(ctx context.Context, w *workload, dir string, withIndexes bool) (*loadResult, error) {
	pg, err := bench.StartPostgres(dir)
	if err != nil {
		return nil, err
	}
	defer pg.Stop()
	c, err := pgconn.Connect(ctx, pg.DSN)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	r := &loadResult{Views: len(w.views), Refresh: map[string]step{}, Rows: map[string]map[string][]string{}}
	nop := func(string) {}
	if err := w.createSchema(ctx, c); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if r.Load, err = measure(pg.ServerCPU, func() error { return w.load(ctx, c, nop) }); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if r.RelationSum, err = relationSize(ctx, c, w.tables); err != nil {
		return nil, err
	}
	if withIndexes {
		if r.Index, err = measure(pg.ServerCPU, func() error { return execSQL(ctx, c, strings.Join(pgIndexes, ";\n")) }); err != nil {
			return nil, fmt.Errorf("postgres: indexes: %w", err)
		}
	}
	if r.Create, err = measure(pg.ServerCPU, func() error { return createViews(ctx, c, w.views, nop) }); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if r.Rows["load"], err = viewRows(ctx, c, w.views); err != nil {
		return nil, err
	}
	for _, name := range refreshBatches {
		b, err := w.batch(name)
		if err != nil {
			return nil, err
		}
		if r.Refresh[name], err = measure(pg.ServerCPU, func() error { return refreshPostgres(ctx, c, b, w.views) }); err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		if r.Rows[name], err = viewRows(ctx, c, w.views); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// refreshPostgres applies b and recomputes every materialized view.
func refreshPostgres(ctx context.Context, c *pgconn.PgConn, b tpch.Batch, views []tpch.Query) error {
	if err := apply(ctx, c, b); err != nil {
		return err
	}
	for _, q := range views {
		if err := execSQL(ctx, c, "REFRESH MATERIALIZED VIEW "+q.Name); err != nil {
			return fmt.Errorf("REFRESH MATERIALIZED VIEW %s: %w", q.Name, err)
		}
	}
	return nil
}

// relationSize returns the sum of pg_total_relation_size (heap, TOAST and
// indexes) of the tables.
func relationSize(ctx context.Context, c *pgconn.PgConn, tables []*table) (int64, error) {
	var parts []string
	for _, tb := range tables {
		parts = append(parts, fmt.Sprintf("pg_total_relation_size('%s')", tb.Name))
	}
	res, err := c.Exec(ctx, "SELECT "+strings.Join(parts, " + ")).ReadAll()
	if err != nil {
		return 0, fmt.Errorf("postgres: table sizes: %w", err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 {
		return 0, errors.New("postgres: table sizes: no row")
	}
	return strconv.ParseInt(string(res[0].Rows[0][0]), 10, 64)
}

// runEddy creates the views on a fresh Eddy child before any data, loads
// the data, measures memory, and (when refresh is set) applies each
// refresh batch, which Eddy reflects in every view before COMMIT returns
// (sql/commit.go: propagate steps every affected view in the commit).
// An error that stops the run is recorded in the result, with what was
// measured until then.
func runEddy(ctx context.Context, w *workload, views []tpch.Query, refresh bool, o options, profile string) *loadResult {
	r := &loadResult{Views: len(views), Refresh: map[string]step{}, Rows: map[string]map[string][]string{},
		StepCPU: map[string]map[string]time.Duration{}}
	if err := eddyPhases(ctx, w, views, refresh, o, profile, r); err != nil {
		r.Error = strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return r
}

func eddyPhases(ctx context.Context, w *workload, views []tpch.Query, refresh bool, o options, profile string, r *loadResult) (err error) {
	e, err := startEddy(o.maxRSS<<20, profile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, e.close()) }()
	c, err := pgconn.Connect(ctx, e.dsn)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if err := w.createSchema(ctx, c); err != nil {
		return e.failed(err)
	}
	if r.Create, err = measure(e.cpu, func() error { return createViews(ctx, c, views, e.setPhase) }); err != nil {
		return e.failed(err)
	}
	if r.Load, err = measure(e.cpu, func() error { return w.load(ctx, c, e.setPhase) }); err != nil {
		return e.failed(err)
	}
	_, r.PeakRSS = e.memory()
	r.Disk = dirSize(e.dir)
	if r.Heap, err = e.heap(); err != nil {
		return err
	}
	if r.State, r.AutoRows, r.AutoBytes, err = readState(ctx, c); err != nil {
		return e.failed(err)
	}
	if !refresh {
		return nil
	}
	return eddyRefresh(ctx, w, e, c, r)
}

// eddyRefresh applies the refresh batches to a loaded Eddy and reads the
// rows of every view after the load and after each batch.
func eddyRefresh(ctx context.Context, w *workload, e *eddyProc, c *pgconn.PgConn, r *loadResult) (err error) {
	if r.Rows["load"], err = viewRows(ctx, c, w.views); err != nil {
		return e.failed(err)
	}
	for _, name := range refreshBatches {
		b, err := w.batch(name)
		if err != nil {
			return err
		}
		if err := e.quiesce(); err != nil {
			return err
		}
		settle(e.cpu)
		e.setPhase("batch " + name)
		before, err := readStepCPU(ctx, c)
		if err != nil {
			return e.failed(err)
		}
		if err := e.profile(name); err != nil {
			return err
		}
		if r.Refresh[name], err = measure(e.runtime, func() error { return apply(ctx, c, b) }); err != nil {
			return e.failed(err)
		}
		if err := e.unprofile(); err != nil {
			return err
		}
		if r.StepCPU[name], err = stepCPUSince(ctx, c, before); err != nil {
			return e.failed(err)
		}
		if r.Rows[name], err = viewRows(ctx, c, w.views); err != nil {
			return e.failed(err)
		}
	}
	return nil
}

// settle waits until the process whose CPU time cpu reads is idle (under
// one 10 ms tick in 300 ms, twice in a row; at most 60 s), so that a
// refresh batch's CPU-s are its own and not the load's background work:
// at SF 0.1 Pebble's compactions after the load were most of rf1's.
func settle(cpu func() time.Duration) {
	quiet, last := 0, cpu()
	for deadline := time.Now().Add(time.Minute); quiet < 2 && time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		now := cpu()
		if now-last < 10*time.Millisecond {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
}

// viewRun is one view loaded alone on a fresh Eddy (-per-view).
type viewRun struct {
	Query     tpch.Query
	InputRows int64
	Result    *loadResult
	Rows      int64
	RSS, Heap int64 // over the run with no views
	Disk      int64 // over the run with no views
}

// runPerView loads the data into a fresh Eddy with no views, then once per
// view with that view alone, and returns the baseline and the runs.
func runPerView(ctx context.Context, w *workload, o options, counts map[string]int64) (*loadResult, []viewRun) {
	fmt.Fprintln(os.Stderr, "per-view: baseline (no views)")
	base := runEddy(ctx, w, nil, false, o, "")
	if base.Error != "" {
		return base, nil
	}
	var runs []viewRun
	for _, q := range w.views {
		r := runEddy(ctx, w, []tpch.Query{q}, false, o, profilePath(o.cpuprofile, q.Name))
		v := viewRun{Query: q, InputRows: w.inputRows(q), Result: r, Rows: counts[q.Name],
			RSS: r.PeakRSS - base.PeakRSS, Heap: r.Heap - base.Heap, Disk: r.Disk - base.Disk}
		fmt.Fprintf(os.Stderr, "per-view: %s peak RSS +%d MB, live heap +%d MB, %.1f CPU-s %s\n", q.Name,
			v.RSS>>20, v.Heap>>20, r.Load.CPU.Seconds(), r.Error)
		runs = append(runs, v)
	}
	return base, runs
}

// profilePath returns the CPU profile file of a run under dir, or "".
func profilePath(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name+".pprof")
}
