package tpcds

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// seedFlag replays a data set; 0 takes EDDY_TPCDS_SEED, else 1.
var seedFlag = flag.Uint64("seed", 0, "seed of the TPC-DS data (0: $EDDY_TPCDS_SEED, else 1)")

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m))
}

// queryTimeout bounds each statement, so that one slow query fails alone.
const queryTimeout = 60 * time.Second

// testConfig returns the scale (EDDY_TPCDS_SCALE, default 1) and seed.
func testConfig(t *testing.T) Config {
	cfg := Config{Scale: 1, Seed: 1}
	if v := os.Getenv("EDDY_TPCDS_SCALE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("EDDY_TPCDS_SCALE=%q: want a positive integer", v)
		}
		cfg.Scale = n
	}
	if v := os.Getenv("EDDY_TPCDS_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("EDDY_TPCDS_SEED=%q: %v", v, err)
		}
		cfg.Seed = seed
	}
	if *seedFlag != 0 {
		cfg.Seed = *seedFlag
	}
	return cfg
}

// onlyQueries is the set EDDY_TPCDS_QUERIES names ("q01,q14"), or nil.
func onlyQueries() map[string]bool {
	v := os.Getenv("EDDY_TPCDS_QUERIES")
	if v == "" {
		return nil
	}
	m := map[string]bool{}
	for _, q := range strings.Split(v, ",") {
		m[strings.TrimSpace(q)] = true
	}
	return m
}

// tpcds is the state of one TestTPCDS run.
type tpcds struct {
	t     *testing.T
	eddy  *pgconn.PgConn
	pg    *pgconn.PgConn
	gaps  map[string]gap
	qs    []Query
	adhoc map[string]bool // equal ad hoc
	views map[string]bool // created as a view
	bad   map[string]bool // views that differed after some batch
	last  map[string]string
	moved map[string]bool // queries whose answer some batch changed
	empty []string        // queries PostgreSQL answers with no rows
}

// TestTPCDS loads a generated data set into Eddy and PostgreSQL, runs the
// 99 queries ad hoc on both and compares them, creates each as a
// materialized view, applies the write batches to both, and after each
// compares every view with PostgreSQL's answer; after the last, also with
// the query recomputed ad hoc on Eddy. testdata/known_gaps lists what
// Eddy cannot do yet; a listed gap that works fails the test.
func TestTPCDS(t *testing.T) {
	cfg := testConfig(t)
	t.Logf("TPC-DS scale %d seed %d (replay: go test ./tests/tpcds -run TestTPCDS -seed %d)", cfg.Scale, cfg.Seed, cfg.Seed)
	start := time.Now()
	data := Generate(cfg)
	pgServer := harness.StartPostgres(t)
	eddyServer := harness.StartEddy(t, harness.WithLogLevel("warn"), harness.WithArgs("--memory-limit", "2GiB"))
	gaps, err := readGaps()
	if err != nil {
		t.Fatal(err)
	}
	x := &tpcds{t: t, gaps: gaps, adhoc: map[string]bool{}, views: map[string]bool{}, bad: map[string]bool{}, last: map[string]string{}, moved: map[string]bool{}}
	x.pg, x.eddy = connect(t, pgServer.DSN()), connect(t, eddyServer.DSN())
	only := onlyQueries()
	for _, q := range Queries() {
		if only == nil || only[q.Name] {
			x.qs = append(x.qs, q)
		}
	}
	for _, stmt := range Schema() {
		x.both(stmt)
	}
	// The odd-numbered queries become views over the empty tables, so
	// that the load reaches them as inserts; the even-numbered ones after
	// the load, from a backfill. Both paths are checked.
	phase := time.Now()
	for _, q := range x.qs {
		if early(q) && x.gaps[q.Name+" adhoc"] == (gap{}) {
			x.createView(q)
		}
	}
	t.Logf("creating %d views over empty tables took %v", len(x.views), time.Since(phase).Round(time.Millisecond))
	loadStart := time.Now()
	x.load(data.Tables)
	if err := exec(x.pg, "ANALYZE"); err != nil { // plans PostgreSQL's joins by the real sizes
		t.Fatal(err)
	}
	t.Logf("started and loaded in %v (the load %v)", time.Since(start).Round(time.Millisecond), time.Since(loadStart).Round(time.Millisecond))
	phase = time.Now()
	for _, q := range x.qs {
		x.runAdhoc(q)
	}
	t.Logf("ad hoc queries took %v", time.Since(phase).Round(time.Millisecond))
	phase = time.Now()
	for _, q := range x.qs {
		if !early(q) && x.adhoc[q.Name] {
			x.createView(q)
		}
	}
	t.Logf("creating the views over the loaded tables took %v", time.Since(phase).Round(time.Millisecond))
	x.compareViews("load", false)
	for i, b := range data.Batches {
		x.apply(b)
		x.compareViews(b.Name, i == len(data.Batches)-1)
	}
	x.report(time.Since(start), fmt.Sprintf("peak RSS %s, CPU %s", peakRSS(eddyServer.Pid()), cpuTime(eddyServer.Pid())))
}

// early reports whether q's view is created before the load (the
// odd-numbered queries).
func early(q Query) bool { return (q.Name[len(q.Name)-1]-'0')%2 == 1 }

// cpuTime returns the user plus system CPU time of process pid so far
// (/proc/pid/stat fields 14 and 15, in clock ticks of 10 ms), or
// "unknown".
func cpuTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "unknown"
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return "unknown"
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return (time.Duration(u+s) * 10 * time.Millisecond).String()
}

// peakRSS returns the VmHWM line of process pid, or "unknown".
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// connect opens a connection that the test closes at its end.
func connect(t *testing.T, dsn string) *pgconn.PgConn {
	t.Helper()
	c, err := pgconn.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// exec runs sql on c within queryTimeout.
func exec(c *pgconn.PgConn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	_, err := c.Exec(ctx, sql).ReadAll()
	return err
}

// query runs sql on c within queryTimeout and returns its rows in order.
func query(c *pgconn.PgConn, sql string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	return harness.TextRows(ctx, c, sql)
}

// both runs sql on PostgreSQL and Eddy; it must succeed on both.
func (x *tpcds) both(sql string) {
	x.t.Helper()
	if err := exec(x.pg, sql); err != nil {
		x.t.Fatalf("postgres: %.60s: %v", sql, err)
	}
	if err := exec(x.eddy, sql); err != nil {
		x.t.Fatalf("eddy: %.60s: %v", sql, err)
	}
}

// load copies every table into both servers and checks the row counts.
// The returns tables come last: a view whose query divides by sales net
// of returns (Q75's ratio of quantities) sees every intermediate state of
// the load, and Eddy refuses a write that makes a view fail (division by
// zero); with the returns last, each intermediate state nets out fewer
// returns than the final one, which PostgreSQL answers.
func (x *tpcds) load(tables []*Table) {
	x.t.Helper()
	tables = slices.Clone(tables)
	last := func(t *Table) int {
		if strings.HasSuffix(t.Name, "_returns") {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(tables, func(a, b *Table) int { return cmp.Compare(last(a), last(b)) })
	for _, tb := range tables {
		for _, c := range []*pgconn.PgConn{x.pg, x.eddy} {
			for lo := 0; lo < len(tb.Rows); lo += 2000 {
				if err := copyRows(c, tb, tb.Rows[lo:min(lo+2000, len(tb.Rows))]); err != nil {
					x.t.Fatalf("COPY %s: %v", tb.Name, err)
				}
			}
		}
		want := fmt.Sprint(len(tb.Rows))
		for _, c := range []*pgconn.PgConn{x.pg, x.eddy} {
			got, err := query(c, "SELECT count(*) FROM "+tb.Name)
			if err != nil || got[0] != want {
				x.t.Fatalf("%s holds %v rows (%v), want %s", tb.Name, got, err, want)
			}
		}
	}
}

// copyRows copies rows into tb with COPY FROM STDIN (text format; the
// generated values hold no tab, newline or backslash but `\N`).
func copyRows(c *pgconn.PgConn, tb *Table, rows [][]string) error {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "\t"))
		b.WriteByte('\n')
	}
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	_, err := c.CopyFrom(ctx, strings.NewReader(b.String()), fmt.Sprintf("COPY %s (%s) FROM STDIN", tb.Name, strings.Join(tb.Columns, ", ")))
	return err
}

// runAdhoc runs q on both servers and compares the answers: as lists when
// q ends in ORDER BY (unless known_gaps marks its order not total), else
// as multisets. A query listed as an ad hoc gap must still fail so.
func (x *tpcds) runAdhoc(q Query) {
	x.t.Helper()
	start := time.Now()
	want, err := query(x.pg, q.SQL)
	if err != nil {
		x.t.Errorf("postgres: %s: %v", q.Name, err)
		return
	}
	if len(want) == 0 {
		x.empty = append(x.empty, q.Name)
	}
	pgTime := time.Since(start)
	start = time.Now()
	got, err := query(x.eddy, q.SQL)
	x.t.Logf("%s ad hoc: %d rows; postgres %v, eddy %v", q.Name, len(want), pgTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if g, listed := x.gaps[q.Name+" adhoc"]; listed {
		x.checkGap(q.Name+" ad hoc", g, err)
		return
	}
	if err != nil {
		x.t.Errorf("%s ad hoc fails on eddy: %v; if Eddy cannot run it yet, list it in testdata/known_gaps", q.Name, err)
		return
	}
	if d := x.diff(q, got, want); d != nil {
		x.t.Errorf("%s ad hoc differs from PostgreSQL: %v", q.Name, d)
		return
	}
	x.adhoc[q.Name] = true
}

// diff compares an Eddy answer with PostgreSQL's for q.
func (x *tpcds) diff(q Query, got, want []string) error {
	_, unordered := x.gaps[q.Name+" unordered"]
	if topLevelOrderBy(q.SQL) && !unordered {
		return diffList(got, want)
	}
	return harness.DiffRows(sorted(got), sorted(want))
}

// checkGap checks that err is the failure g lists for what.
func (x *tpcds) checkGap(what string, g gap, err error) {
	x.t.Helper()
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		x.t.Errorf("%s now works: remove it from known_gaps", what)
	case !errors.As(err, &pgErr):
		x.t.Errorf("%s: %v", what, err)
	case pgErr.Code != g.code || !strings.Contains(pgErr.Message, g.text):
		x.t.Errorf("%s fails differently than known_gaps says: got SQLSTATE %s %q, listed %s %q", what, pgErr.Code, pgErr.Message, g.code, g.text)
	}
}

// createView creates q as a materialized view on Eddy (a view gap must
// still fail as listed).
func (x *tpcds) createView(q Query) {
	x.t.Helper()
	start := time.Now()
	err := exec(x.eddy, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", q.Name, q.SQL))
	x.t.Logf("%s CREATE MATERIALIZED VIEW: %v", q.Name, time.Since(start).Round(time.Millisecond))
	if g, listed := x.gaps[q.Name+" view"]; listed {
		x.checkGap(q.Name+" as a view", g, err)
		if err == nil {
			x.views[q.Name] = true
		}
		return
	}
	if err != nil {
		x.t.Errorf("%s: CREATE MATERIALIZED VIEW fails: %v; if Eddy cannot maintain it yet, list it in testdata/known_gaps", q.Name, err)
		return
	}
	x.views[q.Name] = true
	x.checkTopK(q)
}

// checkTopK checks that a query ending in ORDER BY ... LIMIT is planned
// with a TopK, which keeps the view to its limit under retractions.
func (x *tpcds) checkTopK(q Query) {
	x.t.Helper()
	u := strings.ToUpper(q.SQL)
	if !topLevelOrderBy(q.SQL) || strings.LastIndex(u, "LIMIT") < strings.LastIndex(u, ")") {
		return
	}
	plan, err := query(x.eddy, "EXPLAIN (DATAFLOW) "+q.SQL)
	if err != nil {
		x.t.Errorf("%s: EXPLAIN (DATAFLOW): %v", q.Name, err)
	} else if !strings.Contains(strings.Join(plan, "\n"), "TopK") {
		x.t.Errorf("%s ends in ORDER BY ... LIMIT, but its dataflow has no TopK:\n%s", q.Name, strings.Join(plan, "\n"))
	}
}

// apply runs a batch in one transaction on both servers.
func (x *tpcds) apply(b Batch) {
	x.t.Helper()
	sql := "BEGIN;\n" + strings.Join(b.Stmts, ";\n") + ";\nCOMMIT"
	start := time.Now()
	if err := exec(x.pg, sql); err != nil {
		x.t.Fatalf("postgres: batch %s: %v", b.Name, err)
	}
	pgTime := time.Since(start)
	start = time.Now()
	if err := exec(x.eddy, sql); err != nil {
		x.t.Fatalf("eddy: batch %s: %v", b.Name, err)
	}
	x.t.Logf("batch %s (%d statements): eddy %v, postgres %v", b.Name, len(b.Stmts), time.Since(start).Round(time.Millisecond), pgTime.Round(time.Millisecond))
}

// compareViews checks every view against PostgreSQL's answer as a
// multiset (a view has no order); with recompute, also against the query
// run ad hoc on Eddy.
func (x *tpcds) compareViews(batch string, recompute bool) {
	x.t.Helper()
	start := time.Now()
	defer func() {
		x.t.Logf("comparing the views after %s took %v", batch, time.Since(start).Round(time.Millisecond))
	}()
	for _, q := range x.qs {
		if !x.views[q.Name] {
			continue
		}
		want, err := query(x.pg, q.SQL)
		if err != nil {
			x.t.Fatalf("postgres: %s: %v", q.Name, err)
		}
		key := strings.Join(sorted(want), "\n")
		if prev, ok := x.last[q.Name]; ok && prev != key {
			x.moved[q.Name] = true
		}
		x.last[q.Name] = key
		got, err := query(x.eddy, "SELECT * FROM "+q.Name)
		if err != nil {
			x.t.Errorf("after %s: reading view %s: %v", batch, q.Name, err)
			x.bad[q.Name] = true
			continue
		}
		if d := harness.DiffRows(sorted(got), sorted(want)); d != nil {
			x.t.Errorf("after %s: view %s differs from PostgreSQL: %v", batch, q.Name, d)
			x.bad[q.Name] = true
			continue
		}
		if !recompute {
			continue
		}
		again, err := query(x.eddy, q.SQL)
		if err != nil {
			x.t.Errorf("after %s: %s ad hoc: %v", batch, q.Name, err)
		} else if d := harness.DiffRows(sorted(got), sorted(again)); d != nil {
			x.t.Errorf("after %s: view %s differs from its query recomputed: %v", batch, q.Name, d)
			x.bad[q.Name] = true
		}
	}
}

// report logs the counts: queries equal ad hoc, views equal throughout.
func (x *tpcds) report(total time.Duration, usage string) {
	good := 0
	for name := range x.views {
		if !x.bad[name] {
			good++
		}
	}
	x.t.Logf("%d/%d queries equal PostgreSQL ad hoc; %d/%d equal as maintained views (the batches changed %d of their answers); %d return no rows on PostgreSQL %v; eddy %s; total %v",
		len(x.adhoc), len(x.qs), good, len(x.qs), len(x.moved), len(x.empty), x.empty, usage, total.Round(time.Millisecond))
}
