package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// dbCounter numbers the databases created by NewDatabase.
var dbCounter atomic.Int64

// PostgresBinDir returns the directory holding initdb and postgres:
// $EDDY_PG_BIN, else the directory of initdb on $PATH, else the newest
// /usr/lib/postgresql/*/bin (Debian's layout). It returns "" if none has
// both programs.
func PostgresBinDir() string {
	var dirs []string
	if d := os.Getenv("EDDY_PG_BIN"); d != "" {
		dirs = append(dirs, d)
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(debian)))
	dirs = append(dirs, debian...)
	for _, d := range dirs {
		if isFile(filepath.Join(d, "initdb")) && isFile(filepath.Join(d, "postgres")) {
			return d
		}
	}
	return ""
}

// isFile reports whether path names an existing regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// StartPostgres initializes a PostgreSQL cluster in a temporary directory
// (trust authentication, user eddy, UTF8, C locale, TimeZone UTC) and starts
// it on a free loopback port. The test is skipped when PostgreSQL is not
// installed, or fails when EDDY_REQUIRE_PG=1. Run as root, the server runs
// as the "postgres" (else "nobody") user, since PostgreSQL refuses root.
func StartPostgres(t testing.TB) *Server {
	t.Helper()
	bin := PostgresBinDir()
	if bin == "" {
		msg := "harness: PostgreSQL binaries (initdb, postgres) not found on PATH, in $EDDY_PG_BIN or /usr/lib/postgresql/*/bin; install postgresql-15"
		if os.Getenv("EDDY_REQUIRE_PG") == "1" {
			t.Fatal(msg + " (EDDY_REQUIRE_PG=1)")
		}
		t.Skip(msg + " (set EDDY_REQUIRE_PG=1 to make this a failure)")
	}
	base, cred := pgBaseDir(t)
	s := &Server{
		t:       t,
		kind:    Postgres,
		port:    freePort(t),
		dataDir: filepath.Join(base, "data"),
		db:      "postgres",
		logs:    &logBuffer{},
	}
	initdb(t, bin, s.dataDir, cred, s.logs)
	s.spawn = func() *exec.Cmd {
		// jit=off: JIT compiling a test's small queries (whose costs
		// are estimated over unanalyzed tables) takes longer than
		// running them, and the slt runner refreshes every view before
		// each query.
		cmd := exec.Command(filepath.Join(bin, "postgres"),
			"-D", s.dataDir, "-p", strconv.Itoa(s.port), "-k", base,
			"-c", "listen_addresses=127.0.0.1",
			"-c", "fsync=off", "-c", "full_page_writes=off",
			"-c", "TimeZone=UTC", "-c", "lc_messages=C", "-c", "max_connections=60",
			"-c", "jit=off")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cmd
	}
	s.waitReady = func(p *process) error {
		ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
		defer cancel()
		return pollConnect(ctx, p, func(ctx context.Context) error {
			c, err := pgconn.Connect(ctx, s.DSN())
			if err == nil {
				c.Close(ctx)
			}
			return err
		})
	}
	t.Cleanup(s.cleanup)
	s.start()
	return s
}

// pgBaseDir makes the directory holding the cluster and its unix socket,
// owned by the user the server will run as. t.TempDir is not used because
// its parent is private to root.
func pgBaseDir(t testing.TB) (string, *syscall.Credential) {
	t.Helper()
	base, err := os.MkdirTemp("", "eddy-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if os.Geteuid() != 0 {
		return base, nil
	}
	cred := unprivilegedUser(t)
	if err := os.Chown(base, int(cred.Uid), int(cred.Gid)); err != nil {
		t.Fatal(err)
	}
	return base, cred
}

// unprivilegedUser returns the credentials of the "postgres" user, or of
// "nobody" if there is none.
func unprivilegedUser(t testing.TB) *syscall.Credential {
	t.Helper()
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	t.Fatal("harness: running as root and found neither a postgres nor a nobody user to run PostgreSQL as")
	return nil
}

// initdb creates a cluster in dir.
func initdb(t testing.TB, bin, dir string, cred *syscall.Credential, logs *logBuffer) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", dir, "-U", "eddy",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Stdout, cmd.Stderr = logs, logs
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness: initdb: %v\n%s", err, logs.Tail(40))
	}
	t.Logf("harness: initdb took %v", time.Since(start).Round(time.Millisecond))
}

// createDatabase creates a fresh database on a PostgreSQL server.
func (s *Server) createDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	defer c.Close(ctx)
	name := fmt.Sprintf("eddy_test_%d", dbCounter.Add(1))
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name).ReadAll(); err != nil {
		t.Fatalf("harness: creating database: %v", err)
	}
	return s.dsnFor(name)
}
