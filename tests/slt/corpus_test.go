package slt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

// corpusDir finds the SQLite corpus, or returns "" when it is absent.
func corpusDir(t *testing.T) string {
	dir := *corpus
	if dir == "" {
		dir = os.Getenv("EDDY_SLT_CORPUS")
	}
	if dir == "" {
		root, err := harness.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "..", "shared", "slt", "sqlite")
	}
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// tally counts query outcomes for one mode.
type tally struct{ pass, fail, stmtFail int }

// rate returns the pass rate in percent.
func (c tally) rate() float64 {
	if c.pass+c.fail == 0 {
		return 0
	}
	return 100 * float64(c.pass) / float64(c.pass+c.fail)
}

// String prints a tally.
func (c tally) String() string {
	return fmt.Sprintf("%d/%d queries pass (%.1f%%), %d statements fail", c.pass, c.pass+c.fail, c.rate(), c.stmtFail)
}

// TestSQLiteCorpus runs the SQLite sqllogictest corpus against the target
// twice: as plain queries, and in materialized-view mode (every query a view
// created before the INSERTs). It logs the pass rate per mode and file, and
// fails only when a mode's rate is below -slt-floor ($EDDY_SLT_FLOOR).
func TestSQLiteCorpus(t *testing.T) {
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("SQLite corpus not found: set -slt-corpus or EDDY_SLT_CORPUS (default ../shared/slt/sqlite beside the module)")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.test"))
	paths = selectFiles(t, paths)
	if len(paths) == 0 {
		t.Fatalf("no *.test files in %s", dir)
	}
	s := harness.StartTarget(t)
	totals := map[string]*tally{"plain": {}, "view": {}}
	var summary strings.Builder
	for _, path := range paths {
		for _, mode := range []string{"plain", "view"} {
			c := runCorpusFile(t, s, path, mode)
			fmt.Fprintf(&summary, "  %-14s %-5s %v\n", filepath.Base(path), mode, c)
			totals[mode].pass += c.pass
			totals[mode].fail += c.fail
			totals[mode].stmtFail += c.stmtFail
		}
	}
	for _, mode := range []string{"plain", "view"} {
		fmt.Fprintf(&summary, "  %-14s %-5s %v\n", "all", mode, *totals[mode])
	}
	t.Logf("SQLite corpus on %s (floor %.1f%%):\n%s", s.Kind(), *floor, summary.String())
	for mode, c := range totals {
		if c.rate() < *floor {
			t.Errorf("%s mode: pass rate %.1f%% is below the floor %.1f%%", mode, c.rate(), *floor)
		}
	}
}

// runCorpusFile runs one corpus file in one mode in a fresh database and
// logs its first failures.
func runCorpusFile(t *testing.T, s *harness.Server, path, mode string) tally {
	recs := parseFile(t, path)
	if mode == "view" {
		oracle, err := LoadOracle(strings.TrimSuffix(path, ".test") + ".oracle.json")
		if err != nil {
			t.Fatalf("view mode needs the oracle: %v", err)
		}
		recs = MaterializeQueries(recs, oracle)
	}
	results := newRunner(s, s.NewDatabase(t)).Run(context.Background(), recs)
	var c tally
	logged := 0
	for _, res := range results {
		if res.Outcome == Fail && (logged < 5 || *verbose) {
			logged++
			t.Logf("%s mode, %s: %s\n%s", mode, res.Record.Pos(), firstLine(res.Record.SQL), res.Message)
		}
		switch {
		case res.Record.Kind == Statement && res.Outcome == Fail:
			c.stmtFail++
		case res.Record.Kind != Query:
		case res.Outcome == Pass:
			c.pass++
		case res.Outcome == Fail:
			c.fail++
		}
	}
	return c
}
