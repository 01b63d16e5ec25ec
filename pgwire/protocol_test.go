package pgwire

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestProtocol runs the message-level scripts in testdata/protocol against a
// server backed by fakeHandler. Commands:
//
//	connect [ssl] [gss] [proto=3.2] [user=u] [database=d] [pqopt]
//	    open a new connection and print the startup answer
//	send [until=Type] [rfq=N]
//	    send one message per input line ("Type {json}", or CopyData "go-quoted")
//	    and print what comes back until the N-th ReadyForQuery (default: one
//	    per Query/Sync/FunctionCall sent) or until a message of Type
//	raw
//	    send the Go-quoted input bytes verbatim, then print until
//	    ReadyForQuery or EOF
//	recv [until=Type]
//	    print messages until ReadyForQuery (or Type) or EOF
//	copied table=t
//	    print what COPY stored under t
//	sessions open=N
//	    wait until N sessions are open and print the open/close counters
//	logs
//	    print the messages of recovered panics that were logged with a stack
func TestProtocol(t *testing.T) {
	datadriven.Walk(t, "testdata/protocol", func(t *testing.T, path string) {
		ts := startServer(t)
		var c *rawClient
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "connect":
				c = dialRaw(t, ts.addr)
				return runConnect(t, c, d)
			case "send":
				return runSend(t, c, d)
			case "raw":
				s, err := strconv.Unquote(strings.TrimSpace(d.Input))
				if err != nil {
					d.Fatalf(t, "raw wants a Go-quoted string: %v", err)
				}
				if _, err := c.nc.Write([]byte(s)); err != nil {
					return fmt.Sprintf("write error: %v\n", err)
				}
				return c.recvUntil(isType("ReadyForQuery"))
			case "recv":
				until := "ReadyForQuery"
				d.MaybeScanArgs(t, "until", &until)
				return c.recvUntil(isType(until))
			case "copied":
				var table string
				d.ScanArgs(t, "table", &table)
				return strings.Join(ts.h.lines(table), "\n") + "\n"
			case "sessions":
				var open int
				d.ScanArgs(t, "open", &open)
				return waitSessions(ts.h, open)
			case "logs":
				return panicLogs(ts.logs.String())
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
				return ""
			}
		})
	})
}

// runConnect performs the startup phase as the connect command's args say.
func runConnect(t *testing.T, c *rawClient, d *datadriven.TestData) string {
	var b strings.Builder
	for _, req := range []string{"ssl", "gss"} {
		if !d.HasArg(req) {
			continue
		}
		var m interface{ Encode([]byte) ([]byte, error) } = &pgproto3.SSLRequest{}
		if req == "gss" {
			m = &pgproto3.GSSEncRequest{}
		}
		if err := c.sendStartup(m); err != nil {
			d.Fatalf(t, "%v", err)
		}
		var resp [1]byte
		c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.nc.Read(resp[:]); err != nil {
			d.Fatalf(t, "%v", err)
		}
		fmt.Fprintf(&b, "%s response: %c\n", req, resp[0])
	}
	params := map[string]string{"user": "test", "application_name": "raw"}
	if d.HasArg("user") {
		var u string
		d.ScanArgs(t, "user", &u)
		params["user"] = u
	}
	if d.HasArg("database") {
		var db string
		d.ScanArgs(t, "database", &db)
		params["database"] = db
	}
	if d.HasArg("pqopt") {
		params["_pq_.fancy"] = "on"
	}
	version := uint32(pgproto3.ProtocolVersion30)
	if d.HasArg("proto") {
		version = pgproto3.ProtocolVersion32
	}
	if err := c.sendStartup(&pgproto3.StartupMessage{ProtocolVersion: version, Parameters: params}); err != nil {
		d.Fatalf(t, "%v", err)
	}
	b.WriteString(c.recvUntil(isType("ReadyForQuery")))
	return b.String()
}

// runSend sends the script lines and prints the answer.
func runSend(t *testing.T, c *rawClient, d *datadriven.TestData) string {
	rfq := 0
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		m, err := parseScriptLine(line)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		switch m.(type) {
		case *pgproto3.Query, *pgproto3.Sync, *pgproto3.FunctionCall:
			rfq++
		}
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		return fmt.Sprintf("write error: %v\n", err)
	}
	d.MaybeScanArgs(t, "rfq", &rfq)
	if d.HasArg("until") {
		var until string
		d.ScanArgs(t, "until", &until)
		return c.recvUntil(isType(until))
	}
	if rfq == 0 {
		return ""
	}
	seen := 0
	return c.recvUntil(func(m pgproto3.BackendMessage) bool {
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			seen++
		}
		return seen == rfq
	})
}

// isType matches messages by pgproto3 type name.
func isType(name string) func(pgproto3.BackendMessage) bool {
	return func(m pgproto3.BackendMessage) bool {
		return fmt.Sprintf("%T", m) == "*pgproto3."+name
	}
}

// waitSessions waits (up to 10s) until open sessions are open and prints the
// counters.
func waitSessions(h *fakeHandler, open int) string {
	deadline := time.Now().Add(10 * time.Second)
	for int(h.opened.Load()-h.closed.Load()) != open && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Sprintf("opened=%d closed=%d\n", h.opened.Load(), h.closed.Load())
}

// panicLogs extracts the panic values of logged recovered panics, noting
// whether each record carries a stack.
func panicLogs(logs string) string {
	var b strings.Builder
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "recovered panic") {
			continue
		}
		_, after, _ := strings.Cut(line, "panic=")
		val, _, _ := strings.Cut(strings.TrimPrefix(after, `"`), `"`)
		fmt.Fprintf(&b, "panic %q stack=%t\n", val, strings.Contains(line, "goroutine ") && strings.Contains(line, "pgwire"))
	}
	return b.String()
}
