package pgwire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/xdg-go/scram"
)

// fakeRoles is a RoleLookup over a map.
type fakeRoles map[string]Role

func (f fakeRoles) LookupRole(name string) (Role, bool) {
	r, ok := f[name]
	return r, ok
}

// testRoles: alice has a SCRAM verifier, bob an md5 one, carol none,
// dave cannot log in, erin's password expired, root is a superuser.
func testRoles(t testing.TB) fakeRoles {
	return fakeRoles{
		"alice": {Name: "alice", Login: true, ConnLimit: -1, Password: scramFor(t, "wonderland")},
		"bob":   {Name: "bob", Login: true, ConnLimit: 1, Password: md5For("bob", "builder")},
		"carol": {Name: "carol", Login: true, ConnLimit: -1},
		"dave":  {Name: "dave", ConnLimit: -1, Password: scramFor(t, "dave")},
		"erin":  {Name: "erin", Login: true, ConnLimit: -1, Password: scramFor(t, "erin"), ValidUntil: time.Now().Add(-time.Hour)},
		"root":  {Name: "root", Super: true, Login: true, ConnLimit: -1, Password: scramFor(t, "root")},
	}
}

// scramFor builds a SCRAM-SHA-256 verifier as the statement layer stores it.
func scramFor(t testing.TB, password string) string {
	c, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		t.Fatal(err)
	}
	salt := "0123456789abcdef"
	creds, err := c.GetStoredCredentialsWithError(scram.KeyFactors{Salt: salt, Iters: 4096})
	if err != nil {
		t.Fatal(err)
	}
	b := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$4096:%s$%s:%s", b([]byte(salt)), b(creds.StoredKey), b(creds.ServerKey))
}

func md5For(user, password string) string {
	sum := md5.Sum([]byte(password + user))
	return "md5" + hex.EncodeToString(sum[:])
}

// startConfigured starts a test server after configure has set it up.
func startConfigured(t testing.TB, configure func(*Server)) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{h: newFakeHandler(), addr: ln.Addr().String(), logs: &syncBuffer{}, done: make(chan error, 1)}
	ts.srv = NewServer(ts.h, slog.New(slog.NewTextHandler(ts.logs, nil)))
	configure(ts.srv)
	go func() { ts.done <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-ts.done
	})
	return ts
}

// rules parses HBA text or fails the test.
func rules(t testing.TB, text string) []HBARule {
	r, err := ParseHBA(text)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// dial connects pgx with a connection string's extra options and returns
// the connection or the SQLSTATE of the failure.
func dial(t testing.TB, ts *testServer, user, password, db, opts string) (*pgx.Conn, string) {
	t.Helper()
	url := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%s/%s?connect_timeout=10&%s", user, password, ts.port(), db, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, pe.Code
		}
		return nil, "error: " + err.Error()
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, ""
}

// TestAuthMethods connects with each method as each kind of role.
func TestAuthMethods(t *testing.T) {
	roles := testRoles(t)
	cases := []struct {
		method, user, password, want string
	}{
		{"scram-sha-256", "alice", "wonderland", ""},
		{"scram-sha-256", "alice", "wrong", "28P01"},
		{"scram-sha-256", "nobody", "x", "28P01"},
		{"scram-sha-256", "bob", "builder", "28P01"}, // an md5 verifier cannot serve SCRAM
		{"scram-sha-256", "carol", "", "28P01"},
		{"scram-sha-256", "dave", "dave", "28000"},
		{"scram-sha-256", "erin", "erin", "28P01"},
		{"md5", "bob", "builder", ""},
		{"md5", "bob", "wrong", "28P01"},
		{"md5", "alice", "wonderland", ""}, // SCRAM instead, as in PostgreSQL
		{"md5", "nobody", "x", "28P01"},
		{"password", "alice", "wonderland", ""},
		{"password", "bob", "builder", ""},
		{"password", "bob", "wrong", "28P01"},
		{"trust", "carol", "", ""},
		{"trust", "nobody", "", "28000"},
		{"reject", "alice", "wonderland", "28000"},
	}
	servers := map[string]*testServer{}
	for _, c := range cases {
		ts := servers[c.method]
		if ts == nil {
			ts = startConfigured(t, func(s *Server) {
				s.Auth = Auth{Rules: rules(t, "host all all 127.0.0.1/32 "+c.method), Roles: roles, FailureDelay: time.Millisecond}
			})
			servers[c.method] = ts
		}
		t.Run(c.method+"/"+c.user+"/"+c.password, func(t *testing.T) {
			conn, code := dial(t, ts, c.user, c.password, "db", "sslmode=disable")
			if code != c.want {
				t.Fatalf("got %q, want %q", code, c.want)
			}
			if conn != nil {
				var n int
				if err := conn.QueryRow(context.Background(), "SELECT generate(1)").Scan(&n); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestAuthNoRule: a connection no rule admits gets 28000.
func TestAuthNoRule(t *testing.T) {
	ts := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "host other all all trust\nhost all root 127.0.0.1 password"), Roles: testRoles(t)}
	})
	if _, code := dial(t, ts, "alice", "wonderland", "db", "sslmode=disable"); code != "28000" {
		t.Fatalf("got %q, want 28000", code)
	}
	if _, code := dial(t, ts, "carol", "", "other", "sslmode=disable"); code != "" {
		t.Fatalf("trusted database: got %q", code)
	}
	if _, code := dial(t, ts, "root", "root", "db", "sslmode=disable"); code != "" {
		t.Fatalf("root: got %q", code)
	}
}

// TestAuthFailureDelay: repeated failures from one address earn a growing
// delay, while another client connects at once.
func TestAuthFailureDelay(t *testing.T) {
	const base = 150 * time.Millisecond
	ts := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "host all all all password"), Roles: testRoles(t), FailureDelay: base}
	})
	var took []time.Duration
	for range 3 {
		start := time.Now()
		if _, code := dial(t, ts, "alice", "wrong", "db", "sslmode=disable"); code != "28P01" {
			t.Fatalf("got %q", code)
		}
		took = append(took, time.Since(start))
	}
	if took[1] < base || took[2] < 2*base {
		t.Fatalf("failures were not slowed down: %v", took)
	}
	// A delayed failure does not hold up a good login, and resets the count.
	done := make(chan time.Duration)
	go func() {
		start := time.Now()
		dial(t, ts, "alice", "wrong", "db", "sslmode=disable")
		done <- time.Since(start)
	}()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	if _, code := dial(t, ts, "alice", "wonderland", "db", "sslmode=disable"); code != "" {
		t.Fatalf("good login: %q", code)
	}
	if d := time.Since(start); d > 4*base {
		t.Fatalf("a good login waited %v behind a failing one", d)
	}
	<-done
}

// TestTLS: with a certificate, verify-full and require work; without one,
// require fails and prefer falls back; --tls-required refuses plaintext.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	ca := writeTestCerts(t, dir)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	withTLS := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "hostssl all all all scram-sha-256\nhostnossl all all all reject"), Roles: testRoles(t)}
		s.TLSConfig = cfg
	})
	required := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "host all all all scram-sha-256"), Roles: testRoles(t)}
		s.TLSConfig, s.TLSRequired = cfg, true
	})
	plain := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "host all all all scram-sha-256"), Roles: testRoles(t)}
	})
	verify := "sslmode=verify-full&sslrootcert=" + ca
	for _, c := range []struct {
		name string
		ts   *testServer
		opts string
		want string
	}{
		{"verify-full", withTLS, verify, ""},
		{"require", withTLS, "sslmode=require", ""},
		{"disable-rejected", withTLS, "sslmode=disable", "28000"},
		{"required-verify-full", required, verify, ""},
		{"required-plaintext", required, "sslmode=disable", "28000"},
		{"plain-prefer", plain, "sslmode=prefer", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, code := dial(t, c.ts, "alice", "wonderland", "db", c.opts)
			if code != c.want {
				t.Fatalf("got %q, want %q", code, c.want)
			}
			if conn != nil && (conn.PgConn().Conn() == nil) {
				t.Fatal("no connection")
			}
			if conn != nil && c.opts != "sslmode=prefer" {
				if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
					t.Fatal("connection is not TLS")
				}
			}
		})
	}
	if _, code := dial(t, plain, "alice", "wonderland", "db", "sslmode=require"); code == "" {
		t.Fatal("sslmode=require succeeded without a server certificate")
	}
}

// writeTestCerts writes a CA (ca.crt) and a server certificate for
// localhost and 127.0.0.1 signed by it (server.crt, server.key) into dir
// and returns the CA file's path.
func writeTestCerts(t testing.TB, dir string) string {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "eddy test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.crt", "CERTIFICATE", caDER)
	write("server.crt", "CERTIFICATE", der)
	write("server.key", "EC PRIVATE KEY", keyDER)
	return filepath.Join(dir, "ca.crt")
}

// TestMaxConnections: past MaxConnections the next client gets 53300
// while the others keep working; superusers keep the reserved slots; a
// role's CONNECTION LIMIT holds; a closed connection frees its slot.
func TestMaxConnections(t *testing.T) {
	const max = 5
	ts := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "host all all all password"), Roles: testRoles(t)}
		s.MaxConnections, s.ReservedConnections = max, 2
	})
	var conns []*pgx.Conn
	for range max - 2 {
		c, code := dial(t, ts, "alice", "wonderland", "db", "sslmode=disable")
		if code != "" {
			t.Fatalf("connection %d: %q", len(conns)+1, code)
		}
		conns = append(conns, c)
	}
	if _, code := dial(t, ts, "alice", "wonderland", "db", "sslmode=disable"); code != "53300" {
		t.Fatalf("reserved slot: got %q, want 53300", code)
	}
	for range 2 {
		c, code := dial(t, ts, "root", "root", "db", "sslmode=disable")
		if code != "" {
			t.Fatalf("superuser: %q", code)
		}
		conns = append(conns, c)
	}
	if _, code := dial(t, ts, "root", "root", "db", "sslmode=disable"); code != "53300" {
		t.Fatalf("past max: got %q, want 53300", code)
	}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			var n int
			if err := c.QueryRow(context.Background(), "SELECT generate(1)").Scan(&n); err != nil {
				t.Errorf("open connection stopped working: %v", err)
			}
		})
	}
	wg.Wait()
	for _, c := range conns[:max-2] {
		c.Close(context.Background())
	}
	waitFor(t, func() bool {
		_, code := dial(t, ts, "bob", "builder", "db", "sslmode=disable")
		return code == ""
	})
	if _, code := dial(t, ts, "bob", "builder", "db", "sslmode=disable"); code != "53300" {
		t.Fatalf("role limit: got %q, want 53300", code)
	}
}

// TestAuthTimeout: a client that never finishes startup is closed at the
// timeout and holds no slot meanwhile.
func TestAuthTimeout(t *testing.T) {
	ts := startConfigured(t, func(s *Server) {
		s.Auth = Auth{Rules: rules(t, "host all all all password"), Roles: testRoles(t)}
		s.MaxConnections, s.AuthTimeout = 1, 300*time.Millisecond
	})
	idle, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if _, code := dial(t, ts, "alice", "wonderland", "db", "sslmode=disable"); code != "" {
		t.Fatalf("an idle half-open connection took the only slot: %q", code)
	}
	// A client that stops in the middle of authentication is cut off too.
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := idle.Read(make([]byte, 1)); err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("idle connection not closed at the timeout: %v after %v", err, time.Since(start))
	}
}
