package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// tabCompleteFile is the replay corpus of psql 15's tab-completion
// queries; tabCompleteInputs the lines typed to produce it.
const (
	tabCompleteFile   = "testdata/replay_tabcomplete.sql"
	tabCompleteInputs = "testdata/tabcomplete_inputs.txt"
)

// psqlBinary is psql 15's own binary (not Debian's wrapper, which may
// pick another version).
const psqlBinary = "/usr/lib/postgresql/15/bin/psql"

// startPsql runs psql 15 interactively on a terminal connected to dsn,
// with readline set to list every completion without asking, and waits
// for its prompt.
func startPsql(t *testing.T, dsn string) *ptyProgram {
	if _, err := os.Stat(psqlBinary); err != nil {
		missing(t, "psql 15 is not installed (%v)", err)
	}
	home := t.TempDir()
	inputrc := filepath.Join(home, ".inputrc")
	rc := "set completion-query-items 100000\nset page-completions off\nset bell-style none\n"
	if err := os.WriteFile(inputrc, []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "INPUTRC=" + inputrc, "PSQL_HISTORY=/dev/null", "PSQLRC=/dev/null",
		"PAGER=cat", "TERM=xterm", "PGCLIENTENCODING=UTF8"}
	p := startPTY(t, env, psqlBinary, dsn)
	p.waitFor(t, "=#", 30*time.Second)
	return p
}

// TestPsqlTabCompletion types into an interactive psql 15 on a terminal
// and presses TAB: a table name and a column name complete on Eddy as
// they do on PostgreSQL.
func TestPsqlTabCompletion(t *testing.T) {
	for _, kind := range []harness.Kind{harness.Eddy, harness.Postgres} {
		t.Run(string(kind), func(t *testing.T) {
			s := harness.StartEddy(t)
			if kind == harness.Postgres {
				s = harness.StartPostgres(t)
			}
			p := startPsql(t, freshDatabase(t, s))
			p.write(t, "SELECT * FROM customer_t\t")
			p.waitFor(t, "customer_totals", 30*time.Second)
			p.write(t, "\x15SELECT name FROM customers WHERE ema\t")
			p.waitFor(t, "WHERE email", 30*time.Second)
			p.write(t, "\x15\\q\n")
		})
	}
}

// TestCaptureTabCompletion types each line of tabcomplete_inputs.txt
// into psql 15 connected to PostgreSQL 15 through queryProxy, presses TAB
// twice, and writes every distinct query psql sent to
// testdata/replay_tabcomplete.sql. Run it with -capture.
func TestCaptureTabCompletion(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to renew " + tabCompleteFile)
	}
	inputs := readInputs(t)
	pg := harness.StartPostgres(t)
	dsn := freshDatabase(t, pg)
	proxy := startProxy(t, fmt.Sprintf("127.0.0.1:%d", pg.Port()))
	p := startPsql(t, strings.Replace(dsn, fmt.Sprintf(":%d/", pg.Port()), fmt.Sprintf(":%d/", proxy.port()), 1))
	marked := map[string]bool{}
	if _, err := os.Stat(tabCompleteFile); err == nil {
		for _, q := range readReplay(t, tabCompleteFile) {
			marked[q.key()] = q.compare
		}
	}
	var out []replayQuery
	seen := map[string]bool{}
	for _, in := range inputs {
		before := len(proxy.queries())
		p.write(t, in+"\t\t")
		waitQuiet(proxy, before)
		p.write(t, "\x15")
		for _, l := range proxy.queries()[before:] {
			q := replayQuery{client: "psql 15 tab completion: " + strings.TrimSpace(in), sql: strings.TrimSpace(l.sql)}
			if seen[q.key()] {
				continue
			}
			seen[q.key()], q.compare = true, marked[q.key()]
			out = append(out, q)
		}
	}
	p.write(t, "\\q\n")
	writeReplay(t, tabCompleteFile, tabCompleteHeader, out)
}

// tabCompleteHeader heads replay_tabcomplete.sql.
const tabCompleteHeader = `-- The catalog queries psql 15's tab completion sent to PostgreSQL 15 over
-- schema.sql, captured through queryProxy while typing each line of
-- tabcomplete_inputs.txt followed by TAB TAB into an interactive psql, by
-- go test ./tests/clients -run TestCaptureTabCompletion -capture
-- The client line names what was typed. TestReplay runs every one on
-- Eddy: each must run and return PostgreSQL's columns; "-- compare" ones
-- must return PostgreSQL's results (OID columns masked, rows sorted).

`

// readInputs reads tabcomplete_inputs.txt: one typed line per line,
// trailing spaces kept, "#" lines skipped.
func readInputs(t *testing.T) []string {
	data, err := os.ReadFile(tabCompleteInputs)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// waitQuiet waits until the proxy has logged nothing new for 300ms (at
// least 300ms after before queries were logged, at most 10s).
func waitQuiet(p *queryProxy, before int) {
	last, since := before, time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if n := len(p.queries()); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > 300*time.Millisecond {
			return
		}
	}
}
