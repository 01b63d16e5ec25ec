package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// startAuth starts a server on a loopback port with cfg's auth settings.
func startAuth(t *testing.T, dir string, cfg Config) *Server {
	t.Helper()
	cfg.Listen, cfg.DataDir, cfg.Version = "127.0.0.1:0", dir, "test"
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { _ = s.Shutdown(context.Background()) }) }
	t.Cleanup(stop)
	stops[s] = stop
	return s
}

// stops are the started servers' idempotent shutdowns.
var stops = map[*Server]func(){}

// connect returns a connection as user, or the failure's SQLSTATE.
func connect(t *testing.T, s *Server, user, password, db string) (*pgx.Conn, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", user, password, s.Addr(), db))
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, pe.Code
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, ""
}

// code runs sql and returns its SQLSTATE ("" on success).
func code(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	_, err := c.Exec(context.Background(), sql)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		t.Fatal(err)
	}
	return ""
}

// TestBootstrapAndDatabases: the bootstrap superuser's password comes from
// the configuration, roles survive a restart, and only the known
// databases exist.
func TestBootstrapAndDatabases(t *testing.T) {
	dir := t.TempDir()
	s := startAuth(t, dir, Config{Auth: AuthConfig{Superuser: "admin", Password: "s3cret", Method: "scram-sha-256"}})
	if _, got := connect(t, s, "admin", "wrong", "eddy"); got != "28P01" {
		t.Fatalf("wrong password: %q", got)
	}
	c, got := connect(t, s, "admin", "s3cret", "postgres")
	if got != "" {
		t.Fatalf("admin: %q", got)
	}
	if got := code(t, c, "CREATE ROLE app LOGIN PASSWORD 'apppw'"); got != "" {
		t.Fatalf("create role: %q", got)
	}
	if _, got := connect(t, s, "app", "apppw", "nosuchdb"); got != "3D000" {
		t.Fatalf("unknown database: %q", got)
	}
	c.Close(context.Background())
	stops[s]()
	s = startAuth(t, dir, Config{Auth: AuthConfig{Method: "scram-sha-256"}})
	if _, got := connect(t, s, "app", "apppw", "eddy"); got != "" {
		t.Fatalf("role after restart: %q", got)
	}
	if !strings.HasPrefix(s.ConnString(), "postgres://admin@") {
		t.Fatalf("conn string %s does not name the bootstrap superuser", s.ConnString())
	}
}

// TestRefuseTrustOffLoopback: a non-loopback address without any password
// and trust rules for non-loopback addresses keep the server from starting.
func TestRefuseTrustOffLoopback(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, err := Start(Config{Listen: "0.0.0.0:0", DataDir: t.TempDir(), Logger: log})
	if err == nil || !strings.Contains(err.Error(), "no role has a password") {
		t.Fatalf("started on 0.0.0.0 without passwords: %v", err)
	}
	hba := t.TempDir() + "/hba"
	if err := writeFile(hba, "host all all 0.0.0.0/0 trust\n"); err != nil {
		t.Fatal(err)
	}
	_, err = Start(Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Logger: log, Auth: AuthConfig{HBAFile: hba}})
	if err == nil || !strings.Contains(err.Error(), "only for loopback") {
		t.Fatalf("trust for all addresses accepted: %v", err)
	}
	s, err := Start(Config{Listen: "0.0.0.0:0", DataDir: t.TempDir(), Logger: log, Auth: AuthConfig{Password: "pw"}})
	if err != nil {
		t.Fatalf("with a password: %v", err)
	}
	_ = s.Shutdown(context.Background())
}

// TestAllowConnect: a Kafka source or sink to an address outside
// --allow-connect fails with 42501 before anything connects to it, and
// creating connectors needs superuser or pg_create_connector.
func TestAllowConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dialed atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialed.Add(1)
			c.Close()
		}
	}()
	s := startAuth(t, t.TempDir(), Config{AllowConnect: []string{"kafka-*.internal:9092", "10.0.0.0/8"}})
	c, _ := connect(t, s, "eddy", "", "eddy")
	kafka := func(kind, broker string) string {
		if kind == "SINK" {
			return fmt.Sprintf("CREATE SINK k FROM t WITH (connector = 'kafka', topic = 'x', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON", broker)
		}
		return fmt.Sprintf("CREATE SOURCE k (a int) WITH (connector = 'kafka', topic = 'x', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON", broker)
	}
	if got := code(t, c, "CREATE TABLE t (a int)"); got != "" {
		t.Fatal(got)
	}
	for _, kind := range []string{"SOURCE", "SINK"} {
		if got := code(t, c, kafka(kind, ln.Addr().String())); got != "42501" {
			t.Fatalf("%s to a listed-out broker: %q", kind, got)
		}
	}
	if got := code(t, c, kafka("SOURCE", "kafka-1.internal:9092,10.1.2.3:9092")); got != "" {
		t.Fatalf("allowed brokers: %q", got)
	}
	time.Sleep(100 * time.Millisecond)
	if n := dialed.Load(); n != 0 {
		t.Fatalf("the refused broker was connected to %d times", n)
	}
	for _, sql := range []string{"CREATE ROLE app LOGIN", "GRANT pg_create_connector TO app", "GRANT CREATE ON SCHEMA public TO app"} {
		if got := code(t, c, sql); got != "" {
			t.Fatal(got)
		}
	}
	app, _ := connect(t, s, "app", "", "eddy")
	datagen := "CREATE SOURCE g (a int) WITH (connector = 'datagen', fields.a.kind = 'sequence', fields.a.start = '1', fields.a.end = '3')"
	if got := code(t, c, "REVOKE pg_create_connector FROM app"); got != "" {
		t.Fatal(got)
	}
	if got := code(t, app, datagen); got != "42501" {
		t.Fatalf("source without the privilege: %q", got)
	}
	if got := code(t, c, "GRANT pg_create_connector TO app"); got != "" {
		t.Fatal(got)
	}
	if _, err := app.Exec(context.Background(), datagen); err != nil {
		t.Fatalf("source with the privilege: %v", err)
	}
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o600) }

// TestAllowList matches addresses against patterns and CIDRs.
func TestAllowList(t *testing.T) {
	a, err := parseAllowList([]string{"kafka-*.internal:9092", "broker:*", "10.0.0.0/8", "[::1]:9092"})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"kafka-1.internal:9092": true, "KAFKA-2.internal:9092": true, "kafka-1.internal:9093": false,
		"broker:1": true, "broker2:1": false, "10.9.8.7:1234": true, "11.0.0.1:9092": false,
		"[::1]:9092": true, "no-port": false,
	} {
		if got := a.allows(addr); got != want {
			t.Errorf("%s: got %v, want %v", addr, got, want)
		}
	}
	if _, err := parseAllowList([]string{"nohostport"}); err == nil {
		t.Error("a bare name was accepted")
	}
	var none *allowList
	if !none.allows("anything:1") || none.dialer() != nil {
		t.Error("no list must allow everything")
	}
	// The dialer holds advertised brokers to the list: refused before dialing.
	if _, err := a.dialer()(context.Background(), "tcp", "127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "--allow-connect") {
		t.Errorf("dialer let 127.0.0.1:1 through: %v", err)
	}
}
