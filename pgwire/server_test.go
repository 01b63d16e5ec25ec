package pgwire

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// startupRaw performs a plain startup and returns the BackendKeyData.
func startupRaw(t *testing.T, c *rawClient) *pgproto3.BackendKeyData {
	t.Helper()
	err := c.sendStartup(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters:      map[string]string{"user": "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var key pgproto3.BackendKeyData
	for {
		m, err := c.recv()
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.BackendKeyData:
			key.ProcessID, key.SecretKey = m.ProcessID, append([]byte(nil), m.SecretKey...)
		case *pgproto3.ReadyForQuery:
			return &key
		}
	}
}

// sendCancel sends a CancelRequest on a new connection.
func sendCancel(t *testing.T, addr string, pid uint32, secret []byte) {
	t.Helper()
	c := dialRaw(t, addr)
	if err := c.sendStartup(&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret}); err != nil {
		t.Fatal(err)
	}
	// The server closes the connection without answering.
	var b [1]byte
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.nc.Read(b[:]); n != 0 || err == nil {
		t.Fatalf("cancel connection: read %d bytes, %v", n, err)
	}
}

// TestCancelRequest checks that only the right pid and secret cancel, and
// only the statement that is running.
func TestCancelRequest(t *testing.T) {
	ts := startServer(t)
	c := dialRaw(t, ts.addr)
	key := startupRaw(t, c)
	other := startupRaw(t, dialRaw(t, ts.addr))
	if key.ProcessID == other.ProcessID || len(key.SecretKey) != 4 {
		t.Fatalf("keys: %+v %+v", key, other)
	}

	// Idle: a cancel is ignored, the next statement runs normally.
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	if err := c.send(&pgproto3.Query{String: "SELECT generate(1)"}); err != nil {
		t.Fatal(err)
	}
	if out := c.recvUntil(isType("ReadyForQuery")); !strings.Contains(out, `CommandComplete {"CommandTag":"SELECT 1"}`) {
		t.Fatalf("after idle cancel: %s", out)
	}

	if err := c.send(&pgproto3.Query{String: "SLEEP"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ts.h.running.Load() == 1 })
	wrong := append([]byte(nil), key.SecretKey...)
	wrong[0] ^= 1
	sendCancel(t, ts.addr, key.ProcessID, wrong)
	sendCancel(t, ts.addr, other.ProcessID, other.SecretKey)
	sendCancel(t, ts.addr, key.ProcessID+1, key.SecretKey)
	time.Sleep(50 * time.Millisecond)
	if ts.h.running.Load() != 1 {
		t.Fatal("a wrong cancel request cancelled the statement")
	}
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	out := c.recvUntil(isType("ReadyForQuery"))
	if !strings.Contains(out, `"Code":"57014"`) || !strings.Contains(out, "canceling statement due to user request") {
		t.Fatalf("cancelled statement: %s", out)
	}
}

// TestShutdown checks that Shutdown ends idle and busy connections with
// FATAL 57P01, closes every session and makes Serve return.
func TestShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := newFakeHandler()
	srv := NewServer(h, slog.New(slog.DiscardHandler))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	idle := dialRaw(t, ln.Addr().String())
	startupRaw(t, idle)
	busy := dialRaw(t, ln.Addr().String())
	startupRaw(t, busy)
	if err := busy.send(&pgproto3.Query{String: "SLEEP"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return h.running.Load() == 1 })
	copying := dialRaw(t, ln.Addr().String())
	startupRaw(t, copying)
	if err := copying.send(&pgproto3.Query{String: "COPY t FROM STDIN"}); err != nil {
		t.Fatal(err)
	}
	if out := copying.recvUntil(isType("CopyInResponse")); !strings.Contains(out, "CopyInResponse") {
		t.Fatal(out)
	}
	pending := dialRaw(t, ln.Addr().String()) // connected, no startup yet
	waitFor(t, func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return len(srv.conns) == 4
	})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	want := `ErrorResponse {"Code":"57P01","Message":"terminating connection due to administrator command","Severity":"FATAL","SeverityUnlocalized":"FATAL"}` + "\nEOF\n"
	for name, c := range map[string]*rawClient{"idle": idle, "busy": busy, "copying": copying, "pending": pending} {
		if out := c.recvUntil(func(pgproto3.BackendMessage) bool { return false }); out != want {
			t.Errorf("%s connection got:\n%s", name, out)
		}
	}
	if h.opened.Load() != 3 || h.closed.Load() != 3 {
		t.Errorf("sessions opened=%d closed=%d", h.opened.Load(), h.closed.Load())
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("listener still accepting")
	}
	// Serve after Shutdown returns at once.
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	if err := srv.Serve(ln2); err != nil {
		t.Fatal(err)
	}
}

// TestFlushMidResult checks that a large result is written while the
// statement is still running (the buffer is flushed past flushThreshold).
func TestFlushMidResult(t *testing.T) {
	ts := startServer(t)
	c := dialRaw(t, ts.addr)
	key := startupRaw(t, c)
	if err := c.send(&pgproto3.Query{String: "STREAM"}); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rows < 100 {
		m, err := c.recv()
		if err != nil {
			t.Fatalf("after %d rows: %v", rows, err)
		}
		if _, ok := m.(*pgproto3.DataRow); ok {
			rows++
		}
	}
	if ts.h.running.Load() != 1 {
		t.Fatal("the statement finished before the rows arrived")
	}
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	if out := c.recvUntil(isType("ReadyForQuery")); !strings.Contains(out, `"Code":"57014"`) {
		t.Fatalf("cancel: %s", out[max(0, len(out)-300):])
	}
}
