package planner

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// TestSQLiteCorpusPlans plans every query of the shared SQLite corpus
// (select1/select2 over t1(a..e int)) and reports the errors by message.
// It fails on internal errors (XX000) and panics: every query must either
// plan or be rejected with a user-facing SQLSTATE.
func TestSQLiteCorpusPlans(t *testing.T) {
	files, _ := filepath.Glob("../../shared/slt/sqlite/*.test")
	if len(files) == 0 {
		t.Skip("corpus not found")
	}
	cat := newTestCatalog(t)
	for _, f := range files {
		queries := readQueries(t, f)
		errs := map[string]int{}
		ok := 0
		for _, q := range queries {
			res, err := pg_query.Parse(q)
			if err != nil {
				errs["parse: "+err.Error()]++
				continue
			}
			if _, err := PlanQuery(cat, res.Stmts[0].Stmt, Options{MaterializedView: true}); err != nil {
				if repr.ErrorCode(err) == repr.CodeInternal {
					t.Errorf("%s: internal error %v\n%s", f, err, q)
				}
				errs[repr.ErrorCode(err)+" "+err.Error()]++
				continue
			}
			ok++
		}
		t.Logf("%s: %d/%d queries planned", filepath.Base(f), ok, len(queries))
		var keys []string
		for k := range errs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("  %4d  %s", errs[k], k)
		}
	}
}

// readQueries returns the SQL of every `query` record in a .test file.
func readQueries(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "query ") {
			continue
		}
		var lines []string
		for sc.Scan() && sc.Text() != "----" && sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}
