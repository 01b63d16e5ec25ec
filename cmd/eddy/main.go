// Command eddy runs the Eddy streaming SQL server.
//
//	eddy [--listen 127.0.0.1:6875] [--data-dir ./eddy-data] [--log-level info]
//	     [--debug-listen 127.0.0.1:6060]
//	     [--user eddy] [--password-file FILE] [--auth METHOD | --hba-file FILE]
//	     [--tls-cert FILE --tls-key FILE [--tls-required]]
//	     [--max-connections 100] [--superuser-reserved-connections 3]
//	     [--authentication-timeout 60s] [--allow-connect host:port,CIDR,...]
//
// The bootstrap superuser (--user, created with a new data directory)
// gets its password from EDDY_PASSWORD or --password-file (first line).
// Without --auth or --hba-file, loopback clients are trusted and others
// must use SCRAM-SHA-256; on a non-loopback --listen address the server
// refuses to start until some role has a password.
//
// It runs the garbage collector at GOGC=200 with a soft memory limit of
// 75% of physical memory unless GOGC or GOMEMLIMIT say otherwise (gc.go).
// It prints a ready line with a psql connection string once it accepts
// connections, and shuts down cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
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
	auth, allow := authFlags()
	flag.Parse()
	server.TuneGC()
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
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
	srv, err := server.Start(server.Config{Listen: *listen, DataDir: *dataDir, Version: version, Logger: logger,
		Auth: a, AllowConnect: allow.list})
	if err != nil {
		return err
	}
	fmt.Printf("eddy ready: psql %q\n", srv.ConnString())
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
