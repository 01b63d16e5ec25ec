package harness

import (
	"cmp"
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// Option configures StartEddy.
type Option func(*options)

// options is the accumulated configuration of an Eddy server.
type options struct {
	logLevel string
	args     []string
	env      []string
	// ready bounds each start's wait for the ready line (0:
	// readyTimeout).
	ready time.Duration
	list  []Option // the options themselves, to start a sibling server
}

// WithReadyTimeout bounds how long each start (and restart) may take to
// print its ready line, instead of readyTimeout: for servers that restore
// gigabytes of state.
func WithReadyTimeout(d time.Duration) Option {
	return func(o *options) { o.ready = d }
}

// WithLogLevel sets --log-level (debug, info, warn or error).
func WithLogLevel(level string) Option {
	return func(o *options) { o.logLevel = level }
}

// WithArgs appends extra command-line flags.
func WithArgs(args ...string) Option {
	return func(o *options) { o.args = append(o.args, args...) }
}

// WithEnv adds KEY=VALUE entries to the server's environment.
func WithEnv(kv ...string) Option {
	return func(o *options) { o.env = append(o.env, kv...) }
}

// StartEddy builds ./cmd/eddy (once per test process), starts it on a free
// loopback port with a fresh data directory, waits for its ready line and
// registers its shutdown with t.Cleanup.
func StartEddy(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin := EddyBinary(t)
	o := options{logLevel: "info", list: opts}
	for _, opt := range opts {
		opt(&o)
	}
	s := &Server{
		t:         t,
		kind:      Eddy,
		port:      freePort(t),
		dataDir:   t.TempDir(),
		db:        "eddy",
		opts:      o,
		logs:      &logBuffer{},
		waitReady: func(p *process) error { return waitReadyLine(p, cmp.Or(o.ready, readyTimeout)) },
	}
	s.spawn = func() *exec.Cmd {
		args := []string{
			"--listen", fmt.Sprintf("127.0.0.1:%d", s.port),
			"--data-dir", s.dataDir,
			"--log-level", o.logLevel,
		}
		cmd := exec.Command(bin, append(args, o.args...)...)
		cmd.Env = append(cmd.Environ(), o.env...)
		return cmd
	}
	t.Cleanup(s.cleanup)
	s.start()
	return s
}
