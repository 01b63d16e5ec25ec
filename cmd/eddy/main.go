// Command eddy runs the Eddy streaming SQL server.
//
//	eddy [--listen 127.0.0.1:6875] [--data-dir ./eddy-data] [--log-level info]
//	     [--debug-listen 127.0.0.1:6060]
//	     [--user eddy] [--password-file FILE] [--auth METHOD | --hba-file FILE]
//	     [--tls-cert FILE --tls-key FILE [--tls-required]]
//	     [--max-connections 100] [--superuser-reserved-connections 3]
//	     [--startup-timeout 10s] [--allow-connect host:port,CIDR,...]
//	     [--memory-limit 8GiB] [--subscribe-buffer 64MiB] [--disk-reserve 256MiB]
//
// The bootstrap superuser (--user, created with a new data directory)
// gets its password from EDDY_PASSWORD or --password-file (first line).
// Without --auth or --hba-file, loopback clients are trusted and others
// must use SCRAM-SHA-256; on a non-loopback --listen address the server
// refuses to start until some role has a password.
//
// It runs the garbage collector at GOGC=200 (unless GOGC says otherwise)
// with the soft memory limit --memory-limit, which defaults to half of the
// cgroup's memory limit or of physical memory (GOMEMLIMIT, when set and no
// --memory-limit is given, is kept as both limit and budget). The engine
// spills its largest tables and views to the store past half of it.
// Writes fail with 53100 while the data directory's file system has less
// free space than --disk-reserve; reads go on, and writes resume once
// space is freed.
// Each materialized view's dataflow runs on --workers workers, by default
// one per core it may use (runtime.GOMAXPROCS: the affinity mask and the
// cgroup's CPU quota) but at most one per 64 MiB of --memory-limit
// (server.DefaultWorkers).
// It prints a ready line with a psql connection string and the workers
// once it accepts connections, and shuts down cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/eddydb/eddy/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "eddy:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:6875", "address for PostgreSQL wire connections")
	dataDir := flag.String("data-dir", "./eddy-data", "directory of the durable store")
	level := flag.String("log-level", "info", "log level: debug, info, warn, error")
	debugListen := flag.String("debug-listen", "", "address for Go profiling endpoints (/debug/pprof/); off when empty")
	memLimit := flag.String("memory-limit", "", "memory budget, e.g. 8GiB: Go's soft memory limit, past which tables and views spill to disk (default: half of the cgroup limit or of physical memory)")
	subBuffer := flag.String("subscribe-buffer", "64MiB", "memory of the commits queued for one SUBSCRIBE client that does not read, past which it is cut off (54000)")
	diskReserve := flag.String("disk-reserve", "", "free disk space below which writes fail with 53100 (disk full) while reads go on (default: twice the memtable size plus 64MiB)")
	auth, allow := authFlags()
	workers := flag.Int("workers", 0, "workers each materialized view's dataflow runs on: its grouping, join and top-k operators run as that many shards by key hash, concurrently (default 0: the cores this process may use, runtime.GOMAXPROCS, which follows the CPU affinity and the cgroup's CPU quota, but at most one per 64 MiB of --memory-limit; 1: one thread per dataflow)")
	flag.Parse()
	server.TuneGC()
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
	limit, err := memoryLimit(*memLimit)
	if err != nil {
		return err
	}
	logger.Info("starting", "version", version, "data_dir", *dataDir, "memory_limit", limit.bytes, "memory_limit_from", limit.from)
	if *debugListen != "" {
		if err := serveDebug(*debugListen, logger); err != nil {
			return fmt.Errorf("--debug-listen: %w", err)
		}
	}
	// The handler is installed before the ready line: a supervisor that
	// signals as soon as it sees the line must get a clean shutdown, not
	// the default action that kills the process.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	a, err := auth()
	if err != nil {
		return err
	}
	subBytes, err := server.ParseByteSize(*subBuffer)
	if err != nil {
		return fmt.Errorf("--subscribe-buffer: invalid size %q", *subBuffer)
	}
	var reserve int64
	if *diskReserve != "" {
		if reserve, err = server.ParseByteSize(*diskReserve); err != nil || reserve <= 0 {
			return fmt.Errorf("--disk-reserve: invalid size %q", *diskReserve)
		}
	}
	if *workers < 0 {
		return fmt.Errorf("--workers: %d is negative", *workers)
	}
	srv, err := server.Start(server.Config{Listen: *listen, DataDir: *dataDir, Version: version, Logger: logger,
		Auth: a, AllowConnect: allow.list, MemoryLimit: limit.bytes, SubscribeBuffer: subBytes, DiskReserve: reserve,
		Workers: *workers})
	if err != nil {
		return err
	}
	logger.Info("dataflow workers", "workers", srv.Workers(), "cores", runtime.NumCPU(), "gomaxprocs", runtime.GOMAXPROCS(0))
	fmt.Printf("eddy ready: psql %q (workers: %d)\n", srv.ConnString(), srv.Workers())
	select {
	case s := <-sig:
		logger.Info("shutting down", "signal", s.String())
	case err := <-srv.Done():
		logger.Error("listener stopped", "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// memBudget is the resolved --memory-limit and where it came from.
type memBudget struct {
	bytes int64
	from  string
}

// memoryLimit resolves --memory-limit (flag "" : the default) and applies
// it as the soft memory limit. GOMEMLIMIT, when set and the flag is not,
// stays the soft limit and becomes the budget.
func memoryLimit(flagValue string) (memBudget, error) {
	if flagValue != "" {
		n, err := server.ParseByteSize(flagValue)
		if err != nil || n == 0 {
			return memBudget{}, fmt.Errorf("--memory-limit: invalid size %q", flagValue)
		}
		server.ApplyMemoryLimit(n)
		return memBudget{n, "--memory-limit"}, nil
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return memBudget{debug.SetMemoryLimit(-1), "GOMEMLIMIT"}, nil
	}
	n, from := server.DefaultMemoryLimit()
	server.ApplyMemoryLimit(n)
	return memBudget{n, from}, nil
}
