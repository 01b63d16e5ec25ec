package pgwire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// testServer is a Server with a fakeHandler listening on loopback.
type testServer struct {
	srv  *Server
	h    *fakeHandler
	addr string
	logs *syncBuffer
	done chan error
}

// startServer starts a server on 127.0.0.1 and shuts it down at test end.
func startServer(t testing.TB) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{h: newFakeHandler(), addr: ln.Addr().String(), logs: &syncBuffer{}, done: make(chan error, 1)}
	ts.srv = NewServer(ts.h, slog.New(slog.NewTextHandler(ts.logs, nil)))
	go func() { ts.done <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-ts.done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ts
}

// port returns the listening port.
func (ts *testServer) port() string {
	_, p, _ := net.SplitHostPort(ts.addr)
	return p
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// rawClient drives the protocol message by message with pgproto3.Frontend.
type rawClient struct {
	nc net.Conn
	fe *pgproto3.Frontend
}

// dialRaw connects without sending anything.
func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// send sends and flushes messages.
func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) error {
	for _, m := range msgs {
		c.fe.Send(m)
	}
	return c.fe.Flush()
}

// sendStartup sends a startup-phase message (StartupMessage, SSLRequest, ...).
func (c *rawClient) sendStartup(m interface {
	Encode([]byte) ([]byte, error)
}) error {
	buf, err := m.Encode(nil)
	if err != nil {
		return err
	}
	_, err = c.nc.Write(buf)
	return err
}

// recv receives one message, or fails after a timeout so tests never hang.
func (c *rawClient) recv() (pgproto3.BackendMessage, error) {
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	return c.fe.Receive()
}

// recvUntil receives and formats messages until stop returns true for one
// (included) or the connection ends ("EOF").
func (c *rawClient) recvUntil(stop func(pgproto3.BackendMessage) bool) string {
	var b strings.Builder
	for {
		m, err := c.recv()
		if err != nil {
			if isDisconnect(err) || strings.Contains(err.Error(), "EOF") {
				b.WriteString("EOF\n")
			} else {
				fmt.Fprintf(&b, "error: %v\n", err)
			}
			return b.String()
		}
		b.WriteString(formatMsg(m))
		b.WriteByte('\n')
		if stop(m) {
			return b.String()
		}
	}
}

// formatMsg prints a message as "Type {non-empty fields}" using pgproto3's
// JSON form. BackendKeyData is random, so only its name is printed.
func formatMsg(m pgproto3.BackendMessage) string {
	name := strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
	if _, ok := m.(*pgproto3.BackendKeyData); ok {
		return name
	}
	js, err := json.Marshal(m)
	if err != nil {
		return name + " <" + err.Error() + ">"
	}
	var fields map[string]any
	if err := json.Unmarshal(js, &fields); err != nil {
		return name + " " + string(js)
	}
	delete(fields, "Type")
	for k, v := range fields {
		switch v := v.(type) {
		case nil:
			delete(fields, k)
		case string:
			if v == "" {
				delete(fields, k)
			}
		case float64:
			if v == 0 {
				delete(fields, k)
			}
		}
	}
	if len(fields) == 0 {
		return name
	}
	out, _ := json.Marshal(fields)
	return name + " " + string(out)
}

// frontendMessages are the messages a test script may send, by name.
var frontendMessages = map[string]func() pgproto3.FrontendMessage{
	"Query":        func() pgproto3.FrontendMessage { return &pgproto3.Query{} },
	"Parse":        func() pgproto3.FrontendMessage { return &pgproto3.Parse{} },
	"Bind":         func() pgproto3.FrontendMessage { return &pgproto3.Bind{} },
	"Describe":     func() pgproto3.FrontendMessage { return &pgproto3.Describe{} },
	"Execute":      func() pgproto3.FrontendMessage { return &pgproto3.Execute{} },
	"Close":        func() pgproto3.FrontendMessage { return &pgproto3.Close{} },
	"Sync":         func() pgproto3.FrontendMessage { return &pgproto3.Sync{} },
	"Flush":        func() pgproto3.FrontendMessage { return &pgproto3.Flush{} },
	"Terminate":    func() pgproto3.FrontendMessage { return &pgproto3.Terminate{} },
	"CopyDone":     func() pgproto3.FrontendMessage { return &pgproto3.CopyDone{} },
	"CopyFail":     func() pgproto3.FrontendMessage { return &pgproto3.CopyFail{} },
	"FunctionCall": func() pgproto3.FrontendMessage { return &pgproto3.FunctionCall{} },
}

// parseScriptLine parses "Type {json}" or "CopyData "go-quoted"" into a message.
func parseScriptLine(line string) (pgproto3.FrontendMessage, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	if name == "CopyData" {
		s, err := strconv.Unquote(rest)
		if err != nil {
			return nil, fmt.Errorf("CopyData wants a Go-quoted string: %w", err)
		}
		return &pgproto3.CopyData{Data: []byte(s)}, nil
	}
	mk, ok := frontendMessages[name]
	if !ok {
		return nil, fmt.Errorf("unknown message %q", name)
	}
	m := mk()
	if rest != "" {
		if err := json.Unmarshal([]byte(rest), m); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return m, nil
}

var _ = io.EOF
