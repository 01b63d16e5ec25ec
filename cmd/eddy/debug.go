package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// serveDebug serves Go's profiling endpoints (/debug/pprof/) on addr, for
// operators and benchmarks to profile a running server. It is off unless
// --debug-listen is given; bind it to loopback.
func serveDebug(addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.Serve(ln, mux); err != nil && !errors.Is(err, net.ErrClosed) {
			log.Error("debug listener stopped", "err", err)
		}
	}()
	log.Info("debug endpoints", "addr", ln.Addr().String())
	return nil
}
