package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/tests/harness"
)

// TestPsqlCopy drives the real psql through testdata/psql_copy against
// Eddy: \copy in both directions (from the script, to and from a client
// file, to stdout) and the notices psql prints.
func TestPsqlCopy(t *testing.T) {
	if rewriting() {
		t.Skip("-rewrite takes expectations from PostgreSQL (TestPsqlCopyPostgres)")
	}
	runPsqlCopy(t, harness.StartTarget(t))
}

// TestPsqlCopyPostgres runs the same file against PostgreSQL, which proves
// (or, with -rewrite, produces) the expected output.
func TestPsqlCopyPostgres(t *testing.T) { runPsqlCopy(t, harness.StartPostgres(t)) }

// runPsqlCopy runs each "psql" block of testdata/psql_copy in one psql
// process whose working directory is a fresh temporary directory, so that
// \copy's client-side files have fixed relative names.
func runPsqlCopy(t *testing.T, s *harness.Server) {
	psql := psqlPath(t)
	dsn := s.NewDatabase(t)
	dir := t.TempDir()
	datadriven.RunTest(t, "testdata/psql_copy", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "psql" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		cmd := exec.Command(psql, "-X", "-q", "-d", dsn, "-f", "-")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(d.Input)
		cmd.Env = append(os.Environ(), "PGTZ=UTC", "PGCONNECT_TIMEOUT=10")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(&out, "psql: %v\n", err)
		}
		return out.String()
	})
}
