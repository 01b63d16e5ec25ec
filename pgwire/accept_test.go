package pgwire

import (
	"context"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// emfileListener fails its first failures Accepts with EMFILE, as a
// listener does when the process is out of descriptors.
type emfileListener struct {
	net.Listener
	failures atomic.Int32
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAcceptErrorsDoNotStopServe: accept errors that are not timeouts
// (running out of descriptors) are logged and retried; the server keeps
// serving, and Serve returns only when the listener closes.
func TestAcceptErrorsDoNotStopServe(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &emfileListener{Listener: inner}
	ln.failures.Store(5)
	logs := &syncBuffer{}
	srv := NewServer(newFakeHandler(), slog.New(slog.NewTextHandler(logs, nil)))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	// The client stays connected: Shutdown right after startup must
	// still end its connection (startup's clearing of its deadline once
	// raced with Shutdown's).
	startupRaw(t, dialRaw(t, inner.Addr().String()))
	if n := ln.failures.Load(); n >= 0 {
		t.Fatalf("%d accept failures left; the client was served before them?", n+1)
	}
	if got := logs.String(); strings.Count(got, "accept failed") != 1 || !strings.Contains(got, "too many open files") {
		t.Errorf("want one log line for the streak of EMFILE errors, got:\n%s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
