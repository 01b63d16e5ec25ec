package clients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

// clientPassword is the bootstrap superuser's password in TestClientsTLS.
const clientPassword = "s3cret-pw"

// TestClientsTLS connects every client library to an Eddy that requires
// TLS and SCRAM-SHA-256 passwords, verifying the server's certificate
// (sslmode=verify-full against a CA the test makes): the right password
// connects as the bootstrap user, a wrong one fails with 28P01.
func TestClientsTLS(t *testing.T) {
	dir := t.TempDir()
	certs := harness.WriteCerts(t, dir)
	ca := certs.CA
	pwFile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte(clientPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.StartEddy(t, harness.WithArgs("--auth", "scram-sha-256", "--password-file", pwFile,
		"--tls-cert", certs.Cert, "--tls-key", certs.Key, "--tls-required"))
	for _, c := range tlsClients {
		t.Run(c.name, func(t *testing.T) {
			argv := c.command(t)
			for _, pw := range []string{clientPassword, "wrong"} {
				want := "connected eddy"
				if pw != clientPassword {
					want = "error " + c.authFailure
				}
				got := runConnect(t, c.dir, append(argv, c.dsn(s.Port(), pw, ca)))
				if got != want {
					t.Errorf("password %q: got %q, want %q", pw, got, want)
				}
			}
		})
	}
}

// tlsClient is one client library's connect-only program.
type tlsClient struct {
	name    string
	dir     string
	command func(t *testing.T) []string
	dsn     func(port int, password, ca string) string
	// authFailure is what the program prints after "error " for a wrong
	// password: the SQLSTATE, or libpq's message (it has no SQLSTATE).
	authFailure string
}

// libpqDSN is a libpq URL verifying the server against ca.
func libpqDSN(port int, password, ca string) string {
	return fmt.Sprintf("postgresql://eddy:%s@127.0.0.1:%d/eddy?sslmode=verify-full&sslrootcert=%s", password, port, ca)
}

// pyConnect connects with a Python driver and prints the outcome.
const pyConnect = `import sys, %[1]s
try:
    c = %[1]s.connect(sys.argv[1])
    cur = c.cursor()
    cur.execute("SELECT current_user")
    print("connected", cur.fetchone()[0])
except %[1]s.Error as e:
    # libpq reports connection failures without a SQLSTATE: print the
    # message's first words, PostgreSQL's for 28P01.
    code = getattr(e, "pgcode", None) or getattr(e, "sqlstate", None)
    msg = "password authentication failed" if "password authentication failed" in str(e) else str(e)
    print("error", code or msg)
`

// nodeConnect connects with node-postgres and prints the outcome.
const nodeConnect = `const { Client } = require('pg');
const c = new Client({ connectionString: process.argv[1] });
c.connect().then(() => c.query('SELECT current_user AS u')).then((r) => { console.log('connected ' + r.rows[0].u); return c.end(); })
  .catch((e) => { console.log('error ' + e.code); process.exit(0); });
`

var tlsClients = []tlsClient{
	{name: "jdbc", dir: "java", command: func(t *testing.T) []string {
		argv := jdbcCommand(t)
		return append(argv[:len(argv)-1:len(argv)-1], "Connect.java")
	}, dsn: func(port int, password, ca string) string {
		return fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/eddy?user=eddy&password=%s&sslmode=verify-full&sslrootcert=%s", port, password, ca)
	}, authFailure: "28P01"},
	{name: "psycopg2", dir: "python", command: func(t *testing.T) []string {
		return []string{pythonCommand("", "psycopg2", "python3-psycopg2")(t)[0], "-c", fmt.Sprintf(pyConnect, "psycopg2")}
	}, dsn: libpqDSN, authFailure: "password authentication failed"},
	{name: "psycopg3", dir: "python", command: func(t *testing.T) []string {
		return []string{pythonCommand("", "psycopg", "python3-psycopg")(t)[0], "-c", fmt.Sprintf(pyConnect, "psycopg")}
	}, dsn: libpqDSN, authFailure: "password authentication failed"},
	{name: "node", dir: "node", command: func(t *testing.T) []string {
		return []string{nodeCommand(t)[0], "-e", nodeConnect}
	}, dsn: libpqDSN, authFailure: "28P01"},
}

// runConnect runs a connect-only program and returns its trimmed output.
func runConnect(t *testing.T, dir string, argv []string) string {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv[:1], err, out)
	}
	return strings.TrimSpace(string(out))
}
