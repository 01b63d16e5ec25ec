package pgwire

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// FuzzServer feeds arbitrary bytes as the client stream after a valid
// startup. The server must not panic (outside the fake's own PANIC
// statements, which it recovers), must not hang, and Shutdown must finish.
func FuzzServer(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newFakeHandler()
		logs := &syncBuffer{}
		srv := NewServer(h, slog.New(slog.NewTextHandler(logs, nil)))
		srv.MaxMessageSize = 1 << 20
		client, server := net.Pipe()
		if !srv.startConn(server) {
			t.Fatal("startConn refused")
		}
		go io.Copy(io.Discard, client)
		startup, _ := (&pgproto3.StartupMessage{
			ProtocolVersion: pgproto3.ProtocolVersion30,
			Parameters:      map[string]string{"user": "fuzz"},
		}).Encode(nil)
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			if _, err := client.Write(startup); err == nil {
				client.Write(data)
			}
		}()
		select {
		case <-wrote:
		case <-time.After(10 * time.Second):
			t.Fatal("server stopped reading without closing the connection")
		}
		client.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		if h.opened.Load() != h.closed.Load() {
			t.Fatalf("sessions opened=%d closed=%d", h.opened.Load(), h.closed.Load())
		}
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "recovered panic") && !strings.Contains(line, "fake panic") {
				t.Fatalf("unexpected panic: %s", line)
			}
		}
	})
}

// fuzzSeeds are valid client streams covering every message type.
func fuzzSeeds() [][]byte {
	scripts := [][]pgproto3.FrontendMessage{
		{&pgproto3.Query{String: "SELECT generate(3); FAIL"}},
		{&pgproto3.Query{String: ""}, &pgproto3.Query{String: "PANIC"}, &pgproto3.Terminate{}},
		{
			&pgproto3.Parse{Name: "s", Query: "SELECT generate($1)", ParameterOIDs: []uint32{20}},
			&pgproto3.Describe{ObjectType: 'S', Name: "s"},
			&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", Parameters: [][]byte{[]byte("5")}, ResultFormatCodes: []int16{1}},
			&pgproto3.Describe{ObjectType: 'P', Name: "p"},
			&pgproto3.Execute{Portal: "p", MaxRows: 2},
			&pgproto3.Flush{},
			&pgproto3.Execute{Portal: "p"},
			&pgproto3.Close{ObjectType: 'P', Name: "p"},
			&pgproto3.Close{ObjectType: 'S', Name: "s"},
			&pgproto3.Sync{},
		},
		{
			&pgproto3.Query{String: "COPY t FROM STDIN"},
			&pgproto3.CopyData{Data: []byte("a\nb\n")},
			&pgproto3.CopyDone{},
			&pgproto3.Query{String: "COPY t FROM STDIN"},
			&pgproto3.CopyFail{Message: "no"},
		},
		{&pgproto3.Query{String: "SLEEP"}},
		{&pgproto3.FunctionCall{Function: 1}, &pgproto3.Sync{}},
	}
	var seeds [][]byte
	for _, script := range scripts {
		var buf []byte
		for _, m := range script {
			buf, _ = m.Encode(buf)
		}
		seeds = append(seeds, buf)
	}
	return seeds
}
