package tpch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// seedFlag replays a data set; 0 takes EDDY_TPCH_SEED, else 1.
var seedFlag = flag.Uint64("seed", 0, "seed of the TPC-H data (0: $EDDY_TPCH_SEED, else 1)")

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m))
}

// testConfig returns the scale (EDDY_TPCH_SF, default 0.001) and seed.
func testConfig(t *testing.T) Config {
	cfg := Config{SF: 0.001, Seed: 1}
	if v := os.Getenv("EDDY_TPCH_SF"); v != "" {
		sf, err := strconv.ParseFloat(v, 64)
		if err != nil || sf <= 0 {
			t.Fatalf("EDDY_TPCH_SF=%q: want a positive number", v)
		}
		cfg.SF = sf
	}
	if v := os.Getenv("EDDY_TPCH_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("EDDY_TPCH_SEED=%q: %v", v, err)
		}
		cfg.Seed = seed
	}
	if *seedFlag != 0 {
		cfg.Seed = *seedFlag
	}
	return cfg
}

// copyChunk is how many rows one COPY into Eddy carries (one commit, one
// step of every view): EDDY_TPCH_CHUNK, default 1,000.
func copyChunk() int {
	if n, err := strconv.Atoi(os.Getenv("EDDY_TPCH_CHUNK")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// onlyQueries is the set of queries EDDY_TPCH_QUERIES names (say
// "q17,q18"), or nil for all. Only those are created, even when
// expected_failures lists them: the way to try whether a listed query works
// now (the watchdog guards the machine).
func onlyQueries() map[string]bool {
	v := os.Getenv("EDDY_TPCH_QUERIES")
	if v == "" {
		return nil
	}
	m := map[string]bool{}
	for _, q := range strings.Split(v, ",") {
		m[strings.TrimSpace(q)] = true
	}
	return m
}

// tpch is the state of one TestTPCH run.
type tpch struct {
	t       *testing.T
	ctx     context.Context
	cfg     Config
	eddy    *pgconn.PgConn
	pg      *pgconn.PgConn
	dog     *watchdog
	views   []Query // created on Eddy and compared after every batch
	results map[string][]int
}

// TestTPCH creates the 22 TPC-H queries as materialized views on Eddy
// before any data exists, loads a generated data set into Eddy and
// PostgreSQL, applies the refresh batches to both, and after the load and
// after each batch compares every view with its query run on PostgreSQL.
// Queries in testdata/expected_failures must still fail as listed.
func TestTPCH(t *testing.T) {
	cfg := testConfig(t)
	t.Logf("TPC-H SF %g seed %d (replay: EDDY_TPCH_SF=%g go test ./tests/tpch -run TestTPCH -seed %d)", cfg.SF, cfg.Seed, cfg.SF, cfg.Seed)
	start := time.Now()
	data := Generate(cfg)
	var sizes []string
	for _, tb := range data.Tables {
		sizes = append(sizes, fmt.Sprintf("%s %d", tb.Name, len(tb.Rows)))
	}
	t.Logf("generated in %v: %s", time.Since(start).Round(time.Millisecond), strings.Join(sizes, ", "))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	pgServer := harness.StartPostgres(t)
	opts := []harness.Option{harness.WithLogLevel("warn")}
	if addr := os.Getenv("EDDY_TPCH_DEBUG_LISTEN"); addr != "" {
		opts = append(opts, harness.WithArgs("--debug-listen", addr)) // to profile the server
	}
	eddyServer := harness.StartEddy(t, opts...)
	x := &tpch{t: t, ctx: ctx, cfg: cfg, results: map[string][]int{}}
	x.dog = startWatchdog(t, eddyServer, rssLimit())
	x.pg, x.eddy = connect(t, ctx, pgServer.DSN()), connect(t, ctx, eddyServer.DSN())
	expected, err := readExpectedFailures()
	if err != nil {
		t.Fatal(err)
	}

	for _, stmt := range Schema() {
		x.both(stmt)
	}
	x.createViews(Queries(), expected)
	x.load(data.Tables)
	x.compare("load")
	for _, b := range data.Batches {
		x.apply(b)
		x.compare(b.Name)
	}
	x.report(time.Since(start))
}

// connect opens a connection that the test closes at its end.
func connect(t *testing.T, ctx context.Context, dsn string) *pgconn.PgConn {
	t.Helper()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// exec runs sql (one or more statements) on c.
func (x *tpch) exec(c *pgconn.PgConn, sql string) error {
	_, err := c.Exec(x.ctx, sql).ReadAll()
	return err
}

// both runs sql on PostgreSQL and Eddy; it must succeed on both.
func (x *tpch) both(sql string) {
	x.t.Helper()
	if err := x.exec(x.pg, sql); err != nil {
		x.t.Fatalf("postgres: %s: %v", firstLine(sql), err)
	}
	if err := x.exec(x.eddy, sql); err != nil {
		x.dog.check(x.t)
		x.t.Fatalf("eddy: %s: %v", firstLine(sql), err)
	}
}

// createViews creates each query as a materialized view on Eddy, except
// the expected failures, which must still fail as listed.
func (x *tpch) createViews(qs []Query, expected map[string]expectedFailure) {
	x.t.Helper()
	only := onlyQueries()
	for _, q := range qs {
		for _, s := range q.Setup {
			x.both(s)
		}
		if only != nil && !only[q.Name] {
			continue
		}
		if e, ok := expected[q.Name]; ok && only == nil {
			x.checkExpectedFailure(q, e)
			continue
		}
		x.dog.setPhase("CREATE MATERIALIZED VIEW " + q.Name)
		if err := x.exec(x.eddy, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", q.Name, q.SQL)); err != nil {
			x.dog.check(x.t)
			x.t.Errorf("%s: CREATE MATERIALIZED VIEW fails (%v); if Eddy cannot run it yet, list it in testdata/expected_failures", q.Name, err)
			continue
		}
		x.views = append(x.views, q)
	}
	for name := range expected {
		if !strings.HasPrefix(name, "q") {
			x.t.Errorf("expected_failures names %q, which is no query", name)
		}
	}
}

// checkExpectedFailure checks that q still fails the way e says.
func (x *tpch) checkExpectedFailure(q Query, e expectedFailure) {
	x.t.Helper()
	if e.kind == "plan" {
		res, err := x.eddy.Exec(x.ctx, "EXPLAIN (DATAFLOW) "+q.SQL).ReadAll()
		if err != nil {
			x.t.Errorf("%s: EXPLAIN fails: %v", q.Name, err)
			return
		}
		if plan := explainText(res); !strings.Contains(plan, e.text) {
			x.t.Errorf("%s now works: its plan no longer contains %q; remove it from expected_failures (it is not created until then)\n%s", q.Name, e.text, plan)
		}
		return
	}
	err := x.exec(x.eddy, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", q.Name, q.SQL))
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		x.t.Errorf("%s now works: remove it from expected_failures", q.Name)
		if err := x.exec(x.eddy, "DROP MATERIALIZED VIEW "+q.Name); err != nil {
			x.t.Fatalf("dropping %s: %v", q.Name, err)
		}
	case !errors.As(err, &pgErr):
		x.dog.check(x.t)
		x.t.Fatalf("%s: %v", q.Name, err)
	case pgErr.Code != e.kind || !strings.Contains(pgErr.Message, e.text):
		x.t.Errorf("%s fails differently than expected_failures says: got SQLSTATE %s %q, listed %s %q", q.Name, pgErr.Code, pgErr.Message, e.kind, e.text)
	}
}

// explainText joins the rows of an EXPLAIN result.
func explainText(res []*pgconn.Result) string {
	var b strings.Builder
	for _, r := range res {
		for _, row := range r.Rows {
			for _, v := range row {
				b.Write(v)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// load copies every table into PostgreSQL at once and into Eddy in chunks
// of copyChunk rows, then checks that both hold as many rows.
func (x *tpch) load(tables []*Table) {
	x.t.Helper()
	start := time.Now()
	for _, tb := range tables {
		if err := copyRows(x.ctx, x.pg, tb, tb.Rows); err != nil {
			x.t.Fatalf("postgres: COPY %s: %v", tb.Name, err)
		}
	}
	pgTime := time.Since(start)
	start = time.Now()
	chunk, n := copyChunk(), 0
	for _, tb := range tables {
		for lo := 0; lo < len(tb.Rows); lo += chunk {
			x.dog.setPhase(fmt.Sprintf("the load of %s (rows %d-%d)", tb.Name, lo+1, min(lo+chunk, len(tb.Rows))))
			if err := copyRows(x.ctx, x.eddy, tb, tb.Rows[lo:min(lo+chunk, len(tb.Rows))]); err != nil {
				x.dog.check(x.t)
				x.t.Fatalf("eddy: COPY %s rows %d-: %v", tb.Name, lo+1, err)
			}
		}
		n += len(tb.Rows)
	}
	x.dog.check(x.t)
	el := time.Since(start)
	x.t.Logf("loaded %d rows: eddy %v (%.0f rows/s, %d views), postgres %v (no views)", n, el.Round(time.Millisecond),
		float64(n)/el.Seconds(), len(x.views), pgTime.Round(time.Millisecond))
	for _, tb := range tables {
		x.sameCount(tb.Name)
	}
}

// copyRows copies rows into table tb with COPY FROM STDIN (text format;
// the generated values hold no tab, newline or backslash).
func copyRows(ctx context.Context, c *pgconn.PgConn, tb *Table, rows [][]string) error {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "\t"))
		b.WriteByte('\n')
	}
	_, err := c.CopyFrom(ctx, strings.NewReader(b.String()), fmt.Sprintf("COPY %s (%s) FROM STDIN", tb.Name, strings.Join(tb.Columns, ", ")))
	return err
}

// sameCount checks that a table holds as many rows on both servers.
func (x *tpch) sameCount(table string) {
	x.t.Helper()
	q := "SELECT count(*) FROM " + table
	a, errA := queryRows(x.ctx, x.eddy, q)
	b, errB := queryRows(x.ctx, x.pg, q)
	if errA != nil || errB != nil {
		x.t.Fatalf("%s: eddy %v, postgres %v", q, errA, errB)
	}
	if a[0] != b[0] {
		x.t.Fatalf("%s: eddy %s, postgres %s", q, a[0], b[0])
	}
}

// apply runs a refresh batch in one transaction on both servers.
func (x *tpch) apply(b Batch) {
	x.t.Helper()
	x.dog.setPhase("batch " + b.Name)
	start := time.Now()
	sql := "BEGIN;\n" + strings.Join(b.Stmts, ";\n") + ";\nCOMMIT"
	if err := x.exec(x.pg, sql); err != nil {
		x.t.Fatalf("postgres: batch %s: %v", b.Name, err)
	}
	pgTime := time.Since(start)
	start = time.Now()
	if err := x.exec(x.eddy, sql); err != nil {
		x.dog.check(x.t)
		x.t.Fatalf("eddy: batch %s: %v", b.Name, err)
	}
	x.t.Logf("batch %s (%d statements): eddy %v, postgres %v", b.Name, len(b.Stmts),
		time.Since(start).Round(time.Millisecond), pgTime.Round(time.Millisecond))
}

// compare checks every view against its query on PostgreSQL; after the
// load it also checks that every query's result is not trivial.
func (x *tpch) compare(batch string) {
	x.t.Helper()
	x.dog.setPhase("the comparison after " + batch)
	wants := map[string][]string{}
	for _, q := range Queries() {
		want, err := queryRows(x.ctx, x.pg, q.SQL)
		if err != nil {
			x.t.Fatalf("postgres: %s: %v", q.Name, err)
		}
		wants[q.Name] = want
		x.results[q.Name] = append(x.results[q.Name], len(want))
		if batch == "load" && trivial(want) {
			x.t.Errorf("%s returns %v on PostgreSQL after the load: the generator must give every query rows", q.Name, want)
		}
	}
	for _, q := range x.views {
		want := wants[q.Name]
		got, err := queryRows(x.ctx, x.eddy, "SELECT * FROM "+q.Name)
		if err != nil {
			x.dog.check(x.t)
			x.t.Errorf("after %s: reading view %s: %v", batch, q.Name, err)
			continue
		}
		if err := harness.DiffRows(got, want); err != nil {
			x.t.Errorf("after %s: view %s differs from PostgreSQL: %v", batch, q.Name, err)
		}
	}
	x.dog.check(x.t)
}

// trivial reports whether a result is empty or one row of NULLs.
func trivial(rows []string) bool {
	if len(rows) == 0 {
		return true
	}
	return len(rows) == 1 && strings.Trim(strings.ReplaceAll(rows[0], "NULL", ""), "|") == ""
}

// report logs each query's result sizes and the peak memory.
func (x *tpch) report(total time.Duration) {
	var lines []string
	for _, q := range Queries() {
		state := "view"
		if !x.created(q.Name) {
			state = "not created"
		}
		lines = append(lines, fmt.Sprintf("%s rows %v (%s)", q.Name, x.results[q.Name], state))
	}
	sort.Strings(lines)
	x.t.Logf("result sizes after load and each batch:\n%s", strings.Join(lines, "\n"))
	x.t.Logf("eddy peak RSS %d MB; %d views compared; total %v", x.dog.peak.Load()>>20, len(x.views), total.Round(time.Millisecond))
}

// created reports whether the view of query name exists on Eddy.
func (x *tpch) created(name string) bool {
	for _, q := range x.views {
		if q.Name == name {
			return true
		}
	}
	return false
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
