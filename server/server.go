package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"

	"github.com/eddydb/eddy/pgwire"
	"github.com/eddydb/eddy/sql"
)

// Config is the server's configuration.
type Config struct {
	// Listen is the TCP address for the PostgreSQL wire protocol.
	Listen string
	// DataDir is the directory of the durable store.
	DataDir string
	// Version is the build's version string.
	Version string
	Logger  *slog.Logger
	// Auth is who may connect and how (auth.go).
	Auth AuthConfig
	// AllowConnect lists the addresses sources and sinks may connect to
	// (connect.go); nil allows any.
	AllowConnect []string
	// MemoryLimit is the memory budget in bytes (--memory-limit): past
	// it, the engine keeps the largest tables and views in the store
	// instead of memory (sql.Options.MemoryLimit). 0: no budget.
	MemoryLimit int64
	// SubscribeBuffer bounds, in bytes, the commits queued for one
	// SUBSCRIBE client that does not read (--subscribe-buffer;
	// sql.Options.SubscribeBufferBytes). 0: the engine's default.
	SubscribeBuffer int64
	// DiskReserve is the free disk space, in bytes, below which writes
	// fail with 53100 (--disk-reserve; sql.Options.DiskReserve). 0: the
	// store's default.
	DiskReserve int64
	// Workers is the number of workers each view's dataflow runs on
	// (--workers; sql.Options.Workers). 0: DefaultWorkers, one per core
	// and per WorkerMemory of MemoryLimit.
	Workers int
}

// Server is a running Eddy: the engine plus the wire listener.
type Server struct {
	cfg    Config
	engine *sql.Engine
	wire   *pgwire.Server
	conns  *connectors
	ticks  *ticker
	ln     net.Listener
	done   chan error
}

// Start opens the data directory, restores the engine and starts listening.
func Start(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	allow, err := parseAllowList(cfg.AllowConnect)
	if err != nil {
		return nil, err
	}
	engine, err := sql.OpenWith(cfg.DataDir, cfg.Logger, sql.Options{Replayer: replayer{}, Superuser: cfg.Auth.Superuser,
		MemoryLimit: cfg.MemoryLimit, SubscribeBufferBytes: cfg.SubscribeBuffer, DiskReserve: cfg.DiskReserve,
		Workers: cmp.Or(cfg.Workers, DefaultWorkers(cfg.MemoryLimit))})
	if err != nil {
		return nil, fmt.Errorf("opening data directory %s: %w", cfg.DataDir, err)
	}
	engine.Version = cfg.Version
	wire := pgwire.NewServer(handler{engine}, cfg.Logger)
	if err := configureWire(wire, engine, cfg.Auth, cfg.Listen); err != nil {
		_ = engine.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		_ = engine.Close()
		return nil, fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	s := &Server{cfg: cfg, engine: engine, wire: wire, ln: ln, done: make(chan error, 1)}
	s.conns = newConnectors(engine, cfg.Logger)
	s.conns.allow = allow
	engine.SetConnectors(s.conns)
	s.ticks = startTicker(engine, tickInterval, cfg.MemoryLimit, cfg.Logger)
	go func() { s.done <- s.wire.Serve(ln) }()
	return s, nil
}

// Engine is the server's statement engine (for in-process benchmarks).
func (s *Server) Engine() *sql.Engine { return s.engine }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// ConnString is a psql connection string for the server.
func (s *Server) ConnString() string {
	return fmt.Sprintf("postgres://%s@%s/eddy", s.engine.BootstrapUser(), s.ln.Addr())
}

// WorkerMemory is the memory budget the default gives each worker: a
// sharded Step keeps per-shard input partitions, row chunks and state
// logs, so a budget of a few MiB per worker leaves sources refused
// (TestSourceTinyBudget runs q8 under 24 MiB).
const WorkerMemory = 64 << 20

// DefaultWorkers is the workers of a server whose Config leaves them
// unset: runtime.GOMAXPROCS(0), the cores this process may run on (the
// CPU affinity mask, and since Go 1.25 the cgroup's CPU quota), but no
// more than one per WorkerMemory of memoryLimit (when positive) and at
// least 1.
func DefaultWorkers(memoryLimit int64) int {
	n := runtime.GOMAXPROCS(0)
	if memoryLimit > 0 {
		n = min(n, int(memoryLimit/WorkerMemory))
	}
	return max(n, 1)
}

// Workers returns the number of workers the views' dataflows run on.
func (s *Server) Workers() int { return s.engine.Workers() }

// Done is closed with the serve loop's error when it stops.
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting connections, ends the sessions and closes the
// store.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.wire.Shutdown(ctx)
	s.ticks.close()
	s.conns.Close()
	if cerr := s.engine.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) {
		err = errors.Join(err, cerr)
	}
	return err
}
