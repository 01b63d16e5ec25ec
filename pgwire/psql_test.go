package pgwire

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

const psqlPath = "/usr/bin/psql"

// TestPsql runs the real psql binary against the server; see testdata/psql.
// Commands:
//
//	psql
//	    every input line is one -c command
//	psql stdin
//	    the first input line is the -c command, the rest is psql's stdin
//	    (COPY ... FROM STDIN and \copy ... from stdin read it)
//	copied table=t
//	    print what COPY stored under t
//
// The output is psql's stdout and stderr followed by its exit status.
func TestPsql(t *testing.T) {
	if _, err := os.Stat(psqlPath); err != nil {
		t.Skipf("no psql: %v", err)
	}
	ts := startServer(t)
	datadriven.RunTest(t, "testdata/psql", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "psql":
			return runPsql(t, ts, d)
		case "copied":
			var table string
			d.ScanArgs(t, "table", &table)
			return strings.Join(ts.h.lines(table), "\n") + "\n"
		default:
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		}
	})
}

// runPsql runs psql -X -v ON_ERROR_STOP=1 with the command's -c arguments
// and stdin.
func runPsql(t *testing.T, ts *testServer, d *datadriven.TestData) string {
	lines := strings.Split(d.Input, "\n")
	args := []string{"-X", "-v", "ON_ERROR_STOP=1", "-P", "pager=off"}
	var stdin string
	if d.HasArg("stdin") {
		args = append(args, "-c", lines[0])
		stdin = strings.Join(lines[1:], "\n") + "\n"
	} else {
		for _, l := range lines {
			args = append(args, "-c", l)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, psqlPath, args...)
	cmd.Env = []string{
		"PGHOST=127.0.0.1", "PGPORT=" + ts.port(), "PGUSER=test", "PGDATABASE=db",
		"PGSSLMODE=prefer", "PGCONNECT_TIMEOUT=10", "LANG=C", "LC_ALL=C",
	}
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		d.Fatalf(t, "psql: %v", err)
	}
	return fmt.Sprintf("%sexit %d\n", out.String(), status)
}
