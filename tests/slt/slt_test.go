package slt

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	rewrite = flag.Bool("rewrite", false, "TestSLTPostgres: rewrite the expectations of tests/slt/*.slt from PostgreSQL")
	files   = flag.String("slt-files", "", "regexp selecting which .slt/.test files run")
	corpus  = flag.String("slt-corpus", "", "directory of the SQLite corpus (default $EDDY_SLT_CORPUS or ../shared/slt/sqlite beside the module)")
	floor   = flag.Float64("slt-floor", envFloat("EDDY_SLT_FLOOR", 100), "TestSQLiteCorpus fails when a mode's pass rate (percent) is below this ($EDDY_SLT_FLOOR)")
	verbose = flag.Bool("slt-verbose", false, "TestSQLiteCorpus: log every failing record, not just the first few")
	timeout = flag.Duration("slt-timeout", 30*time.Second, "timeout of one statement")
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m))
}

// envFloat reads a float from the environment, or returns def.
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

// engines returns the engine names a server's guards match: Eddy counts as
// postgresql and eddy.
func engines(s *harness.Server) []string {
	if s.Kind() == harness.Eddy {
		return []string{"postgresql", "eddy"}
	}
	return []string{"postgresql"}
}

// ourFiles returns tests/slt/*.slt selected by -slt-files.
func ourFiles(t *testing.T) []string {
	paths, err := filepath.Glob("*.slt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .slt files found: %v", err)
	}
	return selectFiles(t, paths)
}

// selectFiles applies -slt-files.
func selectFiles(t *testing.T, paths []string) []string {
	if *files == "" {
		return paths
	}
	re, err := regexp.Compile(*files)
	if err != nil {
		t.Fatalf("-slt-files: %v", err)
	}
	var sel []string
	for _, p := range paths {
		if re.MatchString(filepath.Base(p)) {
			sel = append(sel, p)
		}
	}
	return sel
}

// parseFile parses one file, naming its records by base name.
func parseFile(t *testing.T, path string) []Record {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := Parse(filepath.Base(path), f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// newRunner returns a runner connected to dsn for the engine of s.
func newRunner(s *harness.Server, dsn string) *Runner {
	rn := &Runner{
		Connect: func(ctx context.Context) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, dsn) },
		Engines: engines(s),
		Timeout: *timeout,
	}
	if s.Kind() == harness.Postgres {
		rn.BeforeQuery = refreshViews
	}
	return rn
}

// refreshViews brings PostgreSQL's materialized views up to date before a
// query, which Eddy does by itself: only the record's view when it names
// one (the corpus' view mode), else every view in creation order, so that
// views over views see fresh inputs, as the session's own user (records
// may SET ROLE to one that does not own the views). Nothing is refreshed
// inside a failed transaction, nor in a read-only one (which cannot
// refresh).
func refreshViews(ctx context.Context, c *pgconn.PgConn, r *Record) error {
	if c.TxStatus() == 'E' {
		return nil
	}
	ro, err := c.Exec(ctx, "SHOW transaction_read_only").ReadAll()
	if err != nil {
		return err
	}
	if len(ro) == 1 && len(ro[0].Rows) == 1 && string(ro[0].Rows[0][0]) == "on" {
		return nil
	}
	views := []string{r.View}
	if r.View == "" {
		res, err := c.Exec(ctx, "SELECT oid::regclass::text FROM pg_class WHERE relkind = 'm' ORDER BY oid").ReadAll()
		if err != nil {
			return err
		}
		views = views[:0]
		for _, row := range res[0].Rows {
			views = append(views, string(row[0]))
		}
	}
	restore, err := asSessionUser(ctx, c)
	if err != nil {
		return err
	}
	for _, v := range views {
		if _, err := c.Exec(ctx, "REFRESH MATERIALIZED VIEW "+v).ReadAll(); err != nil {
			return errors.Join(fmt.Errorf("refreshing %s: %w", v, err), restore())
		}
	}
	return restore()
}

// asSessionUser makes the session's own user (the harness' superuser) the
// current role when a record has SET ROLE to another, which may not own
// the views, and returns how to set that role again.
func asSessionUser(ctx context.Context, c *pgconn.PgConn) (restore func() error, err error) {
	res, err := c.Exec(ctx, "SELECT current_user::text, session_user::text").ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) != 1 || len(res[0].Rows) != 1 {
		return nil, errors.New("reading current_user: no row")
	}
	current, session := string(res[0].Rows[0][0]), string(res[0].Rows[0][1])
	if current == session {
		return func() error { return nil }, nil
	}
	if _, err := c.Exec(ctx, "RESET ROLE").ReadAll(); err != nil {
		return nil, err
	}
	return func() error {
		_, err := c.Exec(ctx, `SET ROLE "`+strings.ReplaceAll(current, `"`, `""`)+`"`).ReadAll()
		return err
	}, nil
}

// reportFailures fails t once per failing record.
func reportFailures(t *testing.T, results []Result) (pass, fail int) {
	for _, res := range results {
		switch res.Outcome {
		case Pass:
			pass++
		case Fail:
			fail++
			t.Errorf("%s: %s\n%s", res.Record.Pos(), firstLine(res.Record.SQL), res.Message)
		}
	}
	return pass, fail
}

// firstLine shortens SQL for messages.
func firstLine(sql string) string {
	if i := strings.IndexByte(sql, '\n'); i >= 0 {
		return sql[:i] + " ..."
	}
	return sql
}

// TestSLT runs tests/slt/*.slt against the target (Eddy, or PostgreSQL with
// EDDY_TEST_TARGET=postgres). Every record must pass.
func TestSLT(t *testing.T) {
	if *rewrite {
		t.Skip("-rewrite regenerates expectations from PostgreSQL only (TestSLTPostgres)")
	}
	runFiles(t, harness.StartTarget(t))
}

// TestSLTPostgres runs tests/slt/*.slt against real PostgreSQL, which proves
// the expectations; with -rewrite it regenerates them instead.
func TestSLTPostgres(t *testing.T) {
	runFiles(t, harness.StartPostgres(t))
}

// runFiles runs each selected file in a fresh database of s.
func runFiles(t *testing.T, s *harness.Server) {
	total := 0
	for _, path := range ourFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			recs := parseFile(t, path)
			results := newRunner(s, s.NewDatabase(t)).Run(context.Background(), recs)
			if *rewrite && s.Kind() == harness.Postgres {
				if err := os.WriteFile(path, []byte(Rewrite(recs, results)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			pass, _ := reportFailures(t, results)
			total += countQueries(results)
			t.Logf("%d records pass", pass)
		})
	}
	t.Logf("%d query records in all", total)
}

// countQueries counts the query records that ran.
func countQueries(results []Result) int {
	n := 0
	for _, r := range results {
		if r.Record.Kind == Query && r.Outcome != Skip {
			n++
		}
	}
	return n
}
