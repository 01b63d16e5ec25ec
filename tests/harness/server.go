package harness

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Kind names the engine behind a Server.
type Kind string

// The engines the harness can start.
const (
	Eddy     Kind = "eddy"
	Postgres Kind = "postgres"
)

// readyTimeout bounds how long a server may take to accept connections.
const readyTimeout = 60 * time.Second

// stopTimeout bounds a clean shutdown before the harness kills the process.
const stopTimeout = 15 * time.Second

// Server is one running (or stopped) server process. Its port and data
// directory stay fixed for its whole life, across Kill and Restart.
type Server struct {
	t       testing.TB
	kind    Kind
	port    int
	dataDir string
	db      string
	opts    options
	// spawn builds the command for one run of the server.
	spawn func() *exec.Cmd
	// waitReady blocks until a freshly started process accepts connections.
	waitReady func(p *process) error

	mu   sync.Mutex
	proc *process // nil when not running
	logs *logBuffer
}

// process is one run of a server's OS process.
type process struct {
	cmd      *exec.Cmd
	ready    chan struct{} // closed when the ready line is printed
	done     chan struct{} // closed when the process has exited
	err      error         // the exit status; valid after done
	expected bool          // the harness itself stopped or killed it
}

// Kind reports which engine s runs.
func (s *Server) Kind() Kind { return s.kind }

// Port returns the TCP port s listens on.
func (s *Server) Port() int { return s.port }

// DataDir returns the directory holding s's durable state.
func (s *Server) DataDir() string { return s.dataDir }

// DSN returns a libpq-style URL for connecting to s.
func (s *Server) DSN() string { return s.dsnFor(s.db) }

// dsnFor returns the DSN of database db on s.
func (s *Server) dsnFor(db string) string {
	return fmt.Sprintf("postgres://eddy@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// Pid returns the process ID of the running server, or 0 when it is not
// running; tests read its memory use from /proc/<pid>/status.
func (s *Server) Pid() int {
	if p := s.current(); p != nil {
		return p.cmd.Process.Pid
	}
	return 0
}

// Logs returns everything the server printed so far, across restarts.
func (s *Server) Logs() string { return s.logs.String() }

// start launches the process and waits until it is ready; it fails the
// test if the server does not come up.
func (s *Server) start() {
	s.t.Helper()
	cmd := s.spawn()
	p := &process{cmd: cmd, ready: make(chan struct{}), done: make(chan struct{})}
	var once sync.Once
	out := &lineWriter{buf: s.logs, onLine: func(line string) {
		if strings.HasPrefix(line, "eddy ready:") {
			once.Do(func() { close(p.ready) })
		}
	}}
	cmd.Stdout = out
	cmd.Stderr = s.logs
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("harness: starting %s: %v", s.kind, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	if err := s.waitReady(p); err != nil {
		s.Kill()
		s.t.Fatalf("harness: %s did not become ready: %v\n--- server output ---\n%s", s.kind, err, s.logs.Tail(80))
	}
}

// waitReadyLine waits up to timeout for the "eddy ready:" line on stdout.
func waitReadyLine(p *process, timeout time.Duration) error {
	select {
	case <-p.ready:
		return nil
	case <-p.done:
		return fmt.Errorf("process exited before printing the ready line: %v", p.err)
	case <-time.After(timeout):
		return fmt.Errorf("no ready line after %v", timeout)
	}
}

// current returns the running process, or nil.
func (s *Server) current() *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Kill sends SIGKILL to the server's process group and waits for it to
// exit: a crash, with no chance to flush anything.
func (s *Server) Kill() {
	p := s.current()
	if p == nil {
		return
	}
	p.expected = true
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
}

// Stop shuts the server down cleanly (SIGTERM; SIGINT for PostgreSQL's
// fast shutdown) and fails the test if it does not exit in time or exits
// with an error.
func (s *Server) Stop() {
	p := s.current()
	if p == nil {
		return
	}
	p.expected = true
	sig := syscall.SIGTERM
	if s.kind == Postgres {
		sig = syscall.SIGINT
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		if p.err != nil && s.kind == Eddy {
			s.t.Errorf("harness: eddy exited with %v after SIGTERM\n--- server output ---\n%s", p.err, s.logs.Tail(40))
		}
	case <-time.After(stopTimeout):
		s.t.Errorf("harness: %s did not stop within %v of %v; killing it", s.kind, stopTimeout, sig)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
}

// Restart starts the server again on the same port and data directory,
// stopping it cleanly first if it is still running.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// cleanup stops the server at the end of the test and reports a process
// that died on its own, which is always a bug.
func (s *Server) cleanup() {
	p := s.current()
	if p != nil {
		select {
		case <-p.done:
			if !p.expected {
				s.t.Errorf("harness: %s exited unexpectedly: %v", s.kind, p.err)
			}
		default:
		}
	}
	s.Stop()
	if s.t.Failed() {
		s.t.Logf("--- %s output (tail) ---\n%s", s.kind, s.logs.Tail(60))
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("harness: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartTarget starts the engine the generic end-to-end tests run against:
// Eddy by default, PostgreSQL when EDDY_TEST_TARGET=postgres.
func StartTarget(t testing.TB, opts ...Option) *Server {
	t.Helper()
	switch target := os.Getenv("EDDY_TEST_TARGET"); target {
	case "", "eddy":
		return StartEddy(t, opts...)
	case "postgres", "postgresql", "pg":
		return StartPostgres(t)
	default:
		t.Fatalf("harness: EDDY_TEST_TARGET=%q: want eddy or postgres", target)
		return nil
	}
}

// NewDatabase returns the DSN of an empty database for one isolated run
// (one sqllogictest file, say). On PostgreSQL it creates a new database on
// s; Eddy keeps one catalog per server, so there it starts a new server
// with s's options.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	if s.kind == Eddy {
		return StartEddy(t, s.opts.list...).DSN()
	}
	return s.createDatabase(t)
}

// logBuffer is a goroutine-safe buffer of process output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns all output.
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Tail returns the last n lines of output.
func (b *logBuffer) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lineWriter copies output into buf and calls onLine for every complete
// line.
type lineWriter struct {
	buf     *logBuffer
	onLine  func(string)
	partial []byte
}

// Write implements io.Writer.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.onLine(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
}

// pollConnect waits until a TCP connection to port succeeds or the
// process exits.
func pollConnect(ctx context.Context, p *process, dial func(context.Context) error) error {
	var last error
	for {
		select {
		case <-p.done:
			return fmt.Errorf("process exited: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("%v (last error: %v)", ctx.Err(), last)
		default:
		}
		if last = dial(ctx); last == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
