package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/eddydb/eddy/server"
)

// Target is a running server to benchmark: its DSN and how to stop it.
type Target struct {
	Name string
	DSN  string
	Stop func() error
	// ServerCPU, when set, returns the CPU time the server's processes have
	// used so far (for a server outside this process).
	ServerCPU func() time.Duration
}

// StartEddy starts Eddy in this process on a fresh data directory under
// dir, listening on a free loopback port, with one worker.
func StartEddy(dir string) (*Target, error) { return StartEddyWorkers(dir, 1) }

// StartEddyWorkers is StartEddy with the views' dataflows on workers
// workers (the server's --workers; 0 or 1: one).
func StartEddyWorkers(dir string, workers int) (*Target, error) {
	data, err := os.MkdirTemp(dir, "eddy-")
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.Start(server.Config{Listen: "127.0.0.1:0", DataDir: data, Version: "bench", Logger: log, Workers: workers})
	if err != nil {
		return nil, err
	}
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := s.Shutdown(ctx)
		return errors.Join(err, os.RemoveAll(data))
	}
	return &Target{Name: "eddy", DSN: s.ConnString() + "?sslmode=disable", Stop: stop}, nil
}

// PostgresBinDir is where StartPostgres looks for initdb and pg_ctl.
var PostgresBinDir = "/usr/local/bin"

// StartPostgres initializes and starts a throwaway PostgreSQL cluster
// under dir on a free loopback port. PostgreSQL refuses to run as root, so
// when this process is root the cluster runs as the "postgres" user. It
// returns an error when PostgreSQL is not installed.
func StartPostgres(dir string) (*Target, error) {
	initdb := filepath.Join(PostgresBinDir, "initdb")
	if _, err := os.Stat(initdb); err != nil {
		return nil, fmt.Errorf("postgres not available: %w", err)
	}
	data, err := os.MkdirTemp(dir, "pg-")
	if err != nil {
		return nil, err
	}
	// The postgres user must reach data through dir (MkdirTemp makes 0700).
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	cred, err := pgCredential(data)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pgdata := filepath.Join(data, "data")
	if err := runAs(cred, initdb, "-D", pgdata, "-U", "postgres", "-A", "trust", "--no-sync"); err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=50", port, data)
	pgctl := filepath.Join(PostgresBinDir, "pg_ctl")
	if err := runAs(cred, pgctl, "-D", pgdata, "-w", "-l", filepath.Join(data, "log"), "-o", opts, "start"); err != nil {
		return nil, err
	}
	stop := func() error {
		err := runAs(cred, pgctl, "-D", pgdata, "-w", "-m", "fast", "stop")
		return errors.Join(err, os.RemoveAll(data))
	}
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	cpu := func() time.Duration { return postmasterCPU(filepath.Join(pgdata, "postmaster.pid")) }
	return &Target{Name: "postgres", DSN: dsn, Stop: stop, ServerCPU: cpu}, nil
}

// pgCredential returns the credential to run PostgreSQL with (nil when
// not root) and hands dir to that user.
func pgCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and no postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// runAs runs a command as cred (nil: this user), returning its output in
// the error when it fails.
func runAs(cred *syscall.Credential, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", filepath.Base(name), err, out)
	}
	return nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// postmasterCPU returns the CPU time (user+system) of a PostgreSQL
// postmaster and its live children, plus that of its children that have
// exited (backends of closed connections, reaped by the postmaster), read
// from /proc; 0 when unavailable.
func postmasterCPU(pidFile string) time.Duration {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0
	}
	pm, _, _ := strings.Cut(string(b), "\n")
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, p := range procs {
		f := procStat(p)
		if len(f) < 17 || (f[1] != pm && f[3] != pm) {
			continue
		}
		for _, i := range []int{13, 14, 15, 16} { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// procStat returns the fields of a /proc/<pid>/stat file, with the
// command name (which may contain blanks) as one field: f[1] is the pid
// instead, so that f[i] is field i+1 of proc(5) (f[3] = ppid).
func procStat(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return nil
	}
	pid := strings.TrimSpace(s[:open])
	rest := strings.Fields(s[close+1:])
	return append([]string{pid, pid}, rest...)
}
