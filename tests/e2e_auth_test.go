package tests

import (
	"bytes"
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"github.com/eddydb/eddy/tests/harness"
)

// TestPsqlRoles runs psql's role commands against Eddy
// (testdata/psql_roles); TestPsqlRolesPostgres runs the same input against
// PostgreSQL (testdata/psql_roles_postgres), so the two files compare.
func TestPsqlRoles(t *testing.T) {
	runPsqlRoles(t, harness.StartEddy(t), "testdata/psql_roles")
}

func TestPsqlRolesPostgres(t *testing.T) {
	runPsqlRoles(t, harness.StartPostgres(t), "testdata/psql_roles_postgres")
}

func runPsqlRoles(t *testing.T, s *harness.Server, file string) {
	psql := psqlPath(t)
	datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
		return runPsql(t, psql, s, d.Input)
	})
}

// psqlAs runs sql through psql with a connection string and password and
// returns what psql printed (errors included).
func psqlAs(t *testing.T, conninfo, password, sql string) string {
	t.Helper()
	cmd := exec.Command(psqlPath(t), "-X", "-A", "-t", "-d", conninfo, "-c", sql)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGCONNECT_TIMEOUT=10")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	return strings.TrimSpace(out.String())
}

// pgxCode connects with pgx and returns the SQLSTATE of a failure ("").
func pgxCode(t *testing.T, dsn string) (*pgx.Conn, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, pe.Code
		}
		return nil, err.Error()
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, ""
}

// TestAuthPsql drives each authentication method with psql against the
// eddy binary, configured by an --hba-file, and checks PostgreSQL's
// messages for failures; roles survive a restart.
func TestAuthPsql(t *testing.T) {
	dir := t.TempDir()
	hba := filepath.Join(dir, "hba.conf")
	rules := "host all md5user all md5\nhost all pwuser all password\nhost all trustuser 127.0.0.1/32 trust\nhost all all all scram-sha-256\n"
	if err := os.WriteFile(hba, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.StartEddy(t, harness.WithArgs("--hba-file", hba), harness.WithEnv("EDDY_PASSWORD=rootpw"))
	url := func(user, db string) string {
		return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, s.Port(), db)
	}
	setup := "CREATE ROLE scramuser LOGIN PASSWORD 'p1'; CREATE ROLE nologin PASSWORD 'p4'; SET password_encryption = 'md5'; " +
		"CREATE ROLE md5user LOGIN PASSWORD 'p2'; CREATE ROLE pwuser LOGIN PASSWORD 'p3'; CREATE ROLE trustuser LOGIN"
	if out := psqlAs(t, url("eddy", "eddy"), "rootpw", setup); strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	check := func(user, password, db, want string) {
		t.Helper()
		got := psqlAs(t, url(user, db), password, "SELECT current_user")
		if !strings.Contains(got, want) {
			t.Errorf("%s/%s@%s: got %q, want %q", user, password, db, got, want)
		}
	}
	check("scramuser", "p1", "eddy", "scramuser")
	check("md5user", "p2", "eddy", "md5user")
	check("pwuser", "p3", "postgres", "pwuser")
	check("trustuser", "", "eddy", "trustuser")
	check("scramuser", "bad", "eddy", `FATAL:  password authentication failed for user "scramuser"`)
	check("md5user", "bad", "eddy", `FATAL:  password authentication failed for user "md5user"`)
	check("ghost", "p1", "eddy", `FATAL:  password authentication failed for user "ghost"`)
	check("nologin", "p4", "eddy", `FATAL:  role "nologin" is not permitted to log in`)
	check("scramuser", "p1", "nodb", `FATAL:  database "nodb" does not exist`)
	s.Restart()
	check("md5user", "p2", "eddy", "md5user")
	check("scramuser", "p1", "eddy", "scramuser")
}

// TestAuthTLS: psql and pgx with sslmode=verify-full against a certificate
// the test generates, sslmode=require, and --tls-required refusing
// plaintext.
func TestAuthTLS(t *testing.T) {
	c := harness.WriteCerts(t, t.TempDir())
	s := harness.StartEddy(t, harness.WithArgs("--tls-cert", c.Cert, "--tls-key", c.Key, "--tls-required"))
	base := fmt.Sprintf("postgres://eddy@localhost:%d/eddy", s.Port())
	verify := base + "?sslmode=verify-full&sslrootcert=" + c.CA
	if got := psqlAs(t, verify, "", "SELECT 1"); got != "1" {
		t.Fatalf("psql verify-full: %q", got)
	}
	if got := psqlAs(t, base+"?sslmode=require", "", "SELECT 2"); got != "2" {
		t.Fatalf("psql require: %q", got)
	}
	// pg_stat_ssl shows the connection's TLS as libpq negotiated it.
	ssl := "SELECT s.ssl, s.version, s.cipher LIKE 'TLS_%', s.bits >= 128 FROM pg_stat_ssl s WHERE s.pid = pg_backend_pid()"
	if got := psqlAs(t, verify, "", ssl); got != "t|TLSv1.3|t|t" {
		t.Fatalf("pg_stat_ssl over TLS: %q", got)
	}
	want := `FATAL:  no pg_hba.conf entry for host "127.0.0.1", user "eddy", database "eddy", no encryption`
	if got := psqlAs(t, base+"?sslmode=disable", "", "SELECT 3"); !strings.Contains(got, want) {
		t.Fatalf("plaintext with --tls-required: %q", got)
	}
	for _, dsn := range []string{verify, base + "?sslmode=require"} {
		conn, code := pgxCode(t, dsn)
		if code != "" {
			t.Fatalf("pgx %s: %s", dsn, code)
		}
		var n int
		if err := conn.QueryRow(context.Background(), "SELECT 4").Scan(&n); err != nil || n != 4 {
			t.Fatalf("pgx over TLS: %v", err)
		}
	}
	if _, code := pgxCode(t, base+"?sslmode=disable"); code != "28000" {
		t.Fatalf("pgx plaintext: %q", code)
	}
}

// TestAuthMaxConnections: with the default limit of 100, the 101st client
// gets 53300 while the first 100 keep running queries.
func TestAuthMaxConnections(t *testing.T) {
	s := harness.StartEddy(t)
	conns := make([]*pgx.Conn, 100)
	for i := range conns {
		c, code := pgxCode(t, s.DSN())
		if code != "" {
			t.Fatalf("connection %d: %s", i+1, code)
		}
		conns[i] = c
	}
	if _, code := pgxCode(t, s.DSN()); code != "53300" {
		t.Fatalf("101st connection: %q, want 53300", code)
	}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			var n int
			if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&n); err != nil {
				t.Errorf("query on an open connection: %v", err)
			}
		})
	}
	wg.Wait()
	conns[0].Close(context.Background())
	time.Sleep(100 * time.Millisecond)
	if _, code := pgxCode(t, s.DSN()); code != "" {
		t.Fatalf("after one closed: %q", code)
	}
}

// TestAuthStartupTimeout: a client that never sends its startup packet is
// disconnected at --authentication-timeout.
func TestAuthStartupTimeout(t *testing.T) {
	s := harness.StartEddy(t, harness.WithArgs("--authentication-timeout", "1s", "--max-connections", "1"))
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, code := pgxCode(t, s.DSN()); code != "" {
		t.Fatalf("a half-open connection took the only slot: %q", code)
	}
	start := time.Now()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Read(make([]byte, 1)); err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("not disconnected at the timeout: %v after %v", err, time.Since(start))
	}
}

// TestAuthRefusesTrustOffLoopback: on a non-loopback address without a
// password the server refuses to start and says why; with one it starts.
func TestAuthRefusesTrustOffLoopback(t *testing.T) {
	cmd := exec.Command(harness.EddyBinary(t), "--listen", "0.0.0.0:0", "--data-dir", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to listen on 0.0.0.0:0: no role has a password") {
		t.Fatalf("started without a password on 0.0.0.0: %v\n%s", err, out)
	}
}

// TestAuthAllowConnect: a Kafka source to a broker outside --allow-connect
// fails with 42501 and the broker is never contacted.
func TestAuthAllowConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	contacted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			contacted <- struct{}{}
			c.Close()
		}
	}()
	s := harness.StartEddy(t, harness.WithArgs("--allow-connect", "kafka.internal:9092,10.0.0.0/8"))
	sql := fmt.Sprintf("CREATE SOURCE k (a int) WITH (connector = 'kafka', topic = 't', "+
		"properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON", ln.Addr())
	got := psqlAs(t, s.DSN(), "", sql)
	if !strings.Contains(got, "is not allowed by the server's --allow-connect list") {
		t.Fatalf("source outside the allow-list: %q", got)
	}
	select {
	case <-contacted:
		t.Fatal("the refused broker was contacted")
	case <-time.After(200 * time.Millisecond):
	}
}

// TestAuthLibPQ: lib/pq with sslmode=require and verify-full against a
// TLS-only, SCRAM-only server; a wrong password is 28P01.
func TestAuthLibPQ(t *testing.T) {
	c := harness.WriteCerts(t, t.TempDir())
	s := harness.StartEddy(t, harness.WithArgs("--tls-cert", c.Cert, "--tls-key", c.Key, "--tls-required",
		"--auth", "scram-sha-256"), harness.WithEnv("EDDY_PASSWORD=pqpw"))
	for _, tc := range []struct{ password, opts, want string }{
		{"pqpw", "sslmode=require", ""},
		{"pqpw", "sslmode=verify-full&sslrootcert=" + c.CA, ""},
		{"bad", "sslmode=require", "28P01"},
		{"pqpw", "sslmode=disable", "28000"},
	} {
		db, err := gosql.Open("postgres", fmt.Sprintf("postgres://eddy:%s@localhost:%d/eddy?%s", tc.password, s.Port(), tc.opts))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = db.QueryRow("SELECT 5").Scan(&n)
		db.Close()
		got := ""
		var pe *pq.Error
		if errors.As(err, &pe) {
			got = string(pe.Code)
		} else if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s with %s: got %q, want %q", tc.password, tc.opts, got, tc.want)
		}
	}
}
