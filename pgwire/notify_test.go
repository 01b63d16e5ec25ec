package pgwire

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// backendOf returns the Backend the server handed to the session with pid.
func (h *fakeHandler) backendOf(t *testing.T, pid uint32) Backend {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.backends[pid]
	if !ok || b.PID != pid {
		t.Fatalf("no Backend for pid %d", pid)
	}
	return b
}

// expectSilence requires that nothing arrives for a short while.
func expectSilence(t *testing.T, c *rawClient) {
	t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	m, err := c.fe.Receive()
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("expected nothing, got %v %v", formatMsgOrNil(m), err)
	}
}

func formatMsgOrNil(m pgproto3.BackendMessage) string {
	if m == nil {
		return "nothing"
	}
	return formatMsg(m)
}

// TestNotifications checks when a NotificationResponse reaches the client:
// at once when idle, after the running statement (before its
// ReadyForQuery), and only after a transaction block ends.
func TestNotifications(t *testing.T) {
	ts := startServer(t)
	c := dialRaw(t, ts.addr)
	key := startupRaw(t, c)
	b := ts.h.backendOf(t, key.ProcessID)
	if a, ok := b.ClientAddr.(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		t.Errorf("ClientAddr %v", b.ClientAddr)
	}

	b.Notify(Notification{PID: 7, Channel: "idle", Payload: "now"})
	if out := c.recvUntil(isType("NotificationResponse")); !strings.Contains(out, `"Channel":"idle"`) {
		t.Fatalf("idle notification: %s", out)
	}

	if err := c.send(&pgproto3.Query{String: "SLEEP"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ts.h.running.Load() == 1 })
	b.Notify(Notification{PID: 7, Channel: "busy"})
	b.Cancel()
	out := c.recvUntil(isType("ReadyForQuery"))
	errAt, noteAt := strings.Index(out, `"Code":"57014"`), strings.Index(out, `"Channel":"busy"`)
	if errAt < 0 || noteAt < errAt {
		t.Fatalf("notification during a statement, cancelled by Backend.Cancel: %s", out)
	}

	if err := c.send(&pgproto3.Query{String: "BEGIN"}); err != nil {
		t.Fatal(err)
	}
	c.recvUntil(isType("ReadyForQuery"))
	b.Notify(Notification{PID: 7, Channel: "block"})
	expectSilence(t, c)
	if err := c.send(&pgproto3.Query{String: "COMMIT"}); err != nil {
		t.Fatal(err)
	}
	if out := c.recvUntil(isType("ReadyForQuery")); !strings.Contains(out, `"Channel":"block"`) {
		t.Fatalf("notification held during a block: %s", out)
	}

	b.Terminate()
	if out := c.recvUntil(func(pgproto3.BackendMessage) bool { return false }); !strings.Contains(out, `"Code":"57P01"`) {
		t.Fatalf("terminated: %s", out)
	}
}
