package tests

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/tests/harness"
)

// refreshAllSQL refreshes every materialized view of a PostgreSQL database
// in creation order; the psql and crash tests run it on PostgreSQL before
// reading views, because PostgreSQL does not maintain them.
const refreshAllSQL = `DO $$DECLARE v regclass; BEGIN FOR v IN SELECT oid::regclass FROM pg_class WHERE relkind = 'm' ORDER BY oid LOOP EXECUTE 'REFRESH MATERIALIZED VIEW ' || v; END LOOP; END$$;`

// rewriting reports whether datadriven's -rewrite flag is set.
func rewriting() bool {
	f := flag.Lookup("rewrite")
	return f != nil && f.Value.String() == "true"
}

// TestPsqlQuickstart drives the real psql through the README's quick start
// against Eddy, kills the server with SIGKILL, restarts it and checks that
// the view survived and is still maintained (testdata/psql_quickstart).
func TestPsqlQuickstart(t *testing.T) {
	if rewriting() {
		t.Skip("-rewrite takes expectations from PostgreSQL (TestPsqlQuickstartPostgres)")
	}
	runPsqlFile(t, harness.StartTarget(t))
}

// TestPsqlQuickstartPostgres runs the same file against PostgreSQL, which
// proves (or, with -rewrite, produces) the expected output.
func TestPsqlQuickstartPostgres(t *testing.T) {
	runPsqlFile(t, harness.StartPostgres(t))
}

// runPsqlFile runs testdata/psql_quickstart against s. Commands:
//
//	psql readme   run the SQL block of README.md marked "quickstart"
//	psql          run the input
//	kill          SIGKILL the server
//	restart       start it again on the same data directory
func runPsqlFile(t *testing.T, s *harness.Server) {
	psql := psqlPath(t)
	datadriven.RunTest(t, "testdata/psql_quickstart", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "psql":
			sql := d.Input
			if d.HasArg("readme") {
				sql = readmeQuickstart(t)
			}
			return runPsql(t, psql, s, sql)
		case "kill":
			s.Kill()
			return "ok"
		case "restart":
			s.Restart()
			return "ok"
		}
		d.Fatalf(t, "unknown command %s", d.Cmd)
		return ""
	})
}

// psqlPath finds the psql client; without one the test is skipped, unless
// EDDY_REQUIRE_PG=1.
func psqlPath(t *testing.T) string {
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	if dir := harness.PostgresBinDir(); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "psql")); err == nil {
			return filepath.Join(dir, "psql")
		}
	}
	if os.Getenv("EDDY_REQUIRE_PG") == "1" {
		t.Fatal("psql not found (EDDY_REQUIRE_PG=1)")
	}
	t.Skip("psql not found: install postgresql-client-15")
	return ""
}

// readmeQuickstart extracts the ```sql block that follows the
// "<!-- quickstart" marker in README.md, so the README cannot drift from
// what is tested.
func readmeQuickstart(t *testing.T) string {
	root, err := harness.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- quickstart")
	if !ok {
		t.Fatal("README.md has no <!-- quickstart --> marker")
	}
	_, rest, ok = strings.Cut(rest, "```sql\n")
	if !ok {
		t.Fatal("README.md: no ```sql block after the quickstart marker")
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("README.md: unterminated ```sql block")
	}
	return block
}

// runPsql feeds sql to psql (quiet, no psqlrc, errors do not stop it) and
// returns everything psql printed. On PostgreSQL every statement that
// starts a line with SELECT is preceded by a refresh of all views.
func runPsql(t *testing.T, psql string, s *harness.Server, sql string) string {
	if s.Kind() == harness.Postgres {
		sql = withRefresh(sql)
	}
	cmd := exec.Command(psql, "-X", "-q", "-d", s.DSN(), "-f", "-")
	cmd.Stdin = strings.NewReader(sql)
	cmd.Env = append(os.Environ(), "PGTZ=UTC", "PGCONNECT_TIMEOUT=10")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(&out, "psql: %v\n", err)
	}
	return out.String()
}

// withRefresh inserts refreshAllSQL before every line starting with SELECT.
func withRefresh(sql string) string {
	var sb strings.Builder
	for _, line := range strings.SplitAfter(sql, "\n") {
		if strings.HasPrefix(line, "SELECT") {
			sb.WriteString(refreshAllSQL + "\n")
		}
		sb.WriteString(line)
	}
	return sb.String()
}
