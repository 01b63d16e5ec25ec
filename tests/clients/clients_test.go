package clients

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// rewrite makes TestClientsPostgres write the golden transcripts.
var rewrite = flag.Bool("rewrite", false, "write testdata/<client>.golden from PostgreSQL")

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m))
}

// clientTimeout bounds one client program's run.
const clientTimeout = 3 * time.Minute

// TestClients runs every installed client program against Eddy and
// compares its transcript with PostgreSQL's (testdata/<client>.golden),
// allowing only the differences listed in testdata/gaps.
func TestClients(t *testing.T) {
	if *rewrite {
		t.Skip("-rewrite takes transcripts from PostgreSQL (TestClientsPostgres)")
	}
	gaps := readGaps(t)
	for _, c := range clientList {
		t.Run(c.name, func(t *testing.T) {
			argv := c.command(t)
			got := runClient(t, harness.StartEddy(t), c, argv)
			want := readGolden(t, c.name)
			compareTranscripts(t, c.name, want, got, gaps)
		})
	}
}

// TestClientsPostgres runs the client programs against PostgreSQL 15; with
// -rewrite it writes their transcripts as the golden files, otherwise (make
// clients sets EDDY_CLIENTS_POSTGRES=1) it checks that PostgreSQL still
// produces them. make test skips it: the goldens change only with the
// client programs.
func TestClientsPostgres(t *testing.T) {
	if !*rewrite && os.Getenv("EDDY_CLIENTS_POSTGRES") != "1" {
		t.Skip("checks the golden transcripts against PostgreSQL: make clients, or -rewrite")
	}
	for _, c := range clientList {
		t.Run(c.name, func(t *testing.T) {
			argv := c.command(t)
			got := runClient(t, harness.StartPostgres(t), c, argv)
			path := goldenPath(c.name)
			if *rewrite {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			compareTranscripts(t, c.name, readGolden(t, c.name), got, nil)
		})
	}
}

// runClient loads schema.sql into a fresh database of s, runs the client
// program with the database's address and returns its standard output.
func runClient(t *testing.T, s *harness.Server, c client, argv []string) string {
	return runProgram(t, c, argv, freshDatabase(t, s))
}

// freshDatabase returns the DSN of a database of s holding schema.sql's
// objects and nothing else.
func freshDatabase(t *testing.T, s *harness.Server) string {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	dsn := s.DSN()
	if s.Kind() == harness.Postgres {
		dsn = s.NewDatabase(t)
	}
	loadSchema(ctx, t, dsn, s.Kind())
	return dsn
}

// runProgram runs a client program against dsn and returns its output.
func runProgram(t *testing.T, c client, argv []string, dsn string) string {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], dsn)...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "PGCLIENTENCODING=UTF8", "TZ=UTC", "PYTHONDONTWRITEBYTECODE=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n--- stdout ---\n%s\n--- stderr ---\n%s", c.name, err, out, stderr.String())
	}
	return string(out)
}

// loadSchema runs schema.sql on dsn, one statement at a time, and on
// PostgreSQL refreshes the materialized views it defines.
func loadSchema(ctx context.Context, t *testing.T, dsn string, kind harness.Kind) {
	data, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	stmts := splitStatements(string(data))
	if kind == harness.Postgres {
		stmts = append(stmts, "REFRESH MATERIALIZED VIEW customer_totals")
	}
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt).ReadAll(); err != nil {
			t.Fatalf("schema.sql: %v\n%s", err, stmt)
		}
	}
}

// splitStatements splits a file of ';'-terminated statements, dropping
// "--" comment lines. Statements must not contain ';' inside literals.
func splitStatements(src string) []string {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	var out []string
	for _, s := range strings.Split(strings.Join(lines, "\n"), ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// goldenPath is where a client's expected transcript lives.
func goldenPath(name string) string {
	return filepath.Join("testdata", name+".golden")
}

// readGolden reads a client's expected transcript.
func readGolden(t *testing.T, name string) string {
	data, err := os.ReadFile(goldenPath(name))
	if err != nil {
		t.Fatalf("%v (write it with go test ./tests/clients -run TestClientsPostgres -rewrite)", err)
	}
	return string(data)
}

// requireClients reports whether a missing client is a failure.
func requireClients() bool { return os.Getenv("EDDY_REQUIRE_CLIENTS") == "1" }

// missing skips (or, with EDDY_REQUIRE_CLIENTS=1, fails) a client test
// whose program or library is not installed.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if requireClients() {
		t.Fatalf("%s (EDDY_REQUIRE_CLIENTS=1)", msg)
	}
	t.Skip(msg)
}
