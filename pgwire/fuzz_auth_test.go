package pgwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// FuzzStartup feeds arbitrary bytes as a client's first packets to a
// server that authenticates (SCRAM for alice, md5 for bob, cleartext for
// the rest). The server must not panic or hang, and must close the
// connection by the authentication timeout at the latest.
func FuzzStartup(f *testing.F) {
	for _, seed := range startupSeeds() {
		f.Add(seed)
	}
	roles := testRoles(f)
	hba, err := ParseHBA("host all alice all scram-sha-256\nhost all bob all md5\nhost all all all password")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		logs := &syncBuffer{}
		srv := NewServer(newFakeHandler(), slog.New(slog.NewTextHandler(logs, nil)))
		srv.Auth = Auth{Rules: hba, Roles: roles, FailureDelay: time.Nanosecond}
		srv.AuthTimeout, srv.MaxMessageSize = 500*time.Millisecond, 1<<16
		client, server := net.Pipe()
		if !srv.startConn(server) {
			t.Fatal("startConn refused")
		}
		go io.Copy(io.Discard, client)
		go func() {
			client.Write(data)
			client.Close() // the server reads EOF after the input
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		waitClosed(t, srv)
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		if strings.Contains(logs.String(), "recovered panic") {
			t.Fatalf("panic: %s", logs.String())
		}
	})
}

// waitClosed waits until the server has no connection left or the
// authentication timeout (plus slack) has passed; a connection that got
// through startup is fine too (the fuzz input logged in).
func waitClosed(t *testing.T, srv *Server) {
	deadline := time.Now().Add(srv.authTimeout() + 3*time.Second)
	for time.Now().Before(deadline) {
		srv.mu.Lock()
		n, in := len(srv.conns), len(srv.byPID)
		srv.mu.Unlock()
		if n == 0 || n == in {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("a connection outlived the authentication timeout")
}

// startupSeeds are valid and nearly valid first packets: plain, TLS and
// GSS requests, cancel requests, and each authentication exchange.
func startupSeeds() [][]byte {
	startup := func(user string) []byte {
		b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
			Parameters: map[string]string{"user": user, "database": "db"}}).Encode(nil)
		return b
	}
	enc := func(msgs ...interface{ Encode([]byte) ([]byte, error) }) []byte {
		var out []byte
		for _, m := range msgs {
			out, _ = m.Encode(out)
		}
		return out
	}
	ssl, _ := (&pgproto3.SSLRequest{}).Encode(nil)
	gss, _ := (&pgproto3.GSSEncRequest{}).Encode(nil)
	cancel, _ := (&pgproto3.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}}).Encode(nil)
	return [][]byte{
		startup("carol"),
		append(startup("carol"), enc(&pgproto3.PasswordMessage{Password: "x"})...),
		append(startup("bob"), enc(&pgproto3.PasswordMessage{Password: "md5abc"})...),
		append(startup("alice"), enc(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256",
			Data: []byte("n,,n=,r=rOprNGfwEbeRWgbNEkqO")}, &pgproto3.SASLResponse{Data: []byte("c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHJ1ZQ==")})...),
		append(startup("alice"), enc(&pgproto3.SASLInitialResponse{AuthMechanism: "PLAIN", Data: []byte("x")})...),
		append(append(ssl, gss...), startup("root")...),
		cancel,
		binary.BigEndian.AppendUint32(nil, 3),
	}
}

// FuzzFrontendMessage decodes one arbitrary message of each type in every
// state pgwire reads messages in (query phase and each authentication
// step): decoding may fail but must not panic.
func FuzzFrontendMessage(f *testing.F) {
	for _, m := range []pgproto3.FrontendMessage{
		&pgproto3.Query{String: "SELECT 1"},
		&pgproto3.Parse{Name: "s", Query: "SELECT $1", ParameterOIDs: []uint32{23}},
		&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 1}}, ResultFormatCodes: []int16{0}},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Close{ObjectType: 'P'}, &pgproto3.Sync{}, &pgproto3.Flush{}, &pgproto3.Terminate{},
		&pgproto3.CopyData{Data: []byte("1\n")}, &pgproto3.CopyDone{}, &pgproto3.CopyFail{Message: "x"},
		&pgproto3.FunctionCall{Function: 1, Arguments: [][]byte{{1}}, ResultFormatCode: 1},
		&pgproto3.PasswordMessage{Password: "pw"},
		&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=abc")},
		&pgproto3.SASLResponse{Data: []byte("c=biws,r=abc,p=AAAA")},
	} {
		b, err := m.Encode(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, authType := range []uint32{0, pgproto3.AuthTypeCleartextPassword, pgproto3.AuthTypeMD5Password,
			pgproto3.AuthTypeSASL, pgproto3.AuthTypeSASLContinue} {
			be := pgproto3.NewBackend(bytes.NewReader(msg), io.Discard)
			be.SetMaxBodyLen(1 << 16)
			if authType != 0 {
				if err := be.SetAuthType(authType); err != nil {
					t.Fatal(err)
				}
			}
			for range 4 {
				if _, err := be.Receive(); err != nil {
					break
				}
			}
		}
		be := pgproto3.NewBackend(bytes.NewReader(msg), io.Discard)
		_, _ = be.ReceiveStartupMessage()
	})
}

// FuzzHBA parses arbitrary rule files: no panic, and trust checks run on
// whatever parses.
func FuzzHBA(f *testing.F) {
	f.Add("host all all 127.0.0.1/32 trust\nhostssl db1,db2 alice,bob 10.0.0.0/8 scram-sha-256 # c\n")
	f.Add("hostnossl all all ::1 md5\nhost all all all password")
	f.Fuzz(func(t *testing.T, text string) {
		rules, err := ParseHBA(text)
		if err != nil {
			return
		}
		_ = CheckTrustLoopback(rules)
		matchHBA(rules, net.ParseIP("127.0.0.1"), false, "alice", "db1")
	})
}
