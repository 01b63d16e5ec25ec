package server

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strings"

	"github.com/eddydb/eddy/pgwire"
	"github.com/eddydb/eddy/sql"
)

// handler adapts the sql engine to pgwire.Handler. The adapters below only
// convert types: pgwire owns its interfaces and cannot import sql (imports
// flow downward), and sql cannot import pgwire.
type handler struct{ e *sql.Engine }

// Connect starts a session once pgwire has authenticated the client; an
// unknown database fails with 3D000 as in PostgreSQL (after
// authentication, so it reveals nothing to an unauthenticated client),
// and a role without CONNECT on the database with 42501.
func (h handler) Connect(_ context.Context, startup map[string]string) (pgwire.Session, error) {
	if err := sql.DatabaseExists(startup["database"]); err != nil {
		return nil, err
	}
	if err := h.e.CheckConnect(startup["user"], startup["database"]); err != nil {
		return nil, err
	}
	return session{h.e.NewSession(startup)}, nil
}

type session struct{ *sql.Session }

func (s session) Prepare(ctx context.Context, text string, paramOIDs []uint32) ([]pgwire.Statement, error) {
	stmts, err := s.Session.Prepare(ctx, text, paramOIDs)
	if err != nil {
		return nil, err
	}
	out := make([]pgwire.Statement, len(stmts))
	for i, st := range stmts {
		out[i] = statement{st}
	}
	return out, nil
}

// Notices converts the session's notices.
func (s session) Notices() []pgwire.Notice {
	ns := s.Session.Notices()
	if len(ns) == 0 {
		return nil
	}
	out := make([]pgwire.Notice, len(ns))
	for i, n := range ns {
		out[i] = pgwire.Notice(n)
	}
	return out
}

// DefineStatement unwraps st (nil for an empty query).
func (s session) DefineStatement(name, text string, st pgwire.Statement) error {
	var inner *sql.Statement
	if st != nil {
		inner = st.(statement).Statement
	}
	return s.Session.DefineStatement(name, text, inner)
}

// LookupStatement wraps the statement (a nil Statement for an empty query).
func (s session) LookupStatement(name string) (pgwire.Statement, bool) {
	st, ok := s.Session.LookupStatement(name)
	if !ok || st == nil {
		return nil, ok
	}
	return statement{st}, true
}

// LookupCursor wraps the portal of an open SQL cursor.
func (s session) LookupCursor(name string) (pgwire.Portal, bool) {
	p, ok := s.Session.CursorPortal(name)
	if !ok {
		return nil, false
	}
	return portal{p}, true
}

type statement struct{ *sql.Statement }

func (st statement) Columns() []pgwire.Column { return wireColumns(st.Statement.Columns()) }

func (st statement) Bind(ctx context.Context, params [][]byte, paramFormats, resultFormats []int16) (pgwire.Portal, error) {
	p, err := st.Statement.Bind(ctx, params, paramFormats, resultFormats)
	if err != nil {
		return nil, err
	}
	if p.IsCopyIn() {
		return copyPortal{portal{p}}, nil
	}
	if p.IsCopyOut() {
		return copyOutPortal{portal{p}}, nil
	}
	return portal{p}, nil
}

// portal forwards only the Portal methods (not embedding, so that a
// non-COPY portal does not look like a pgwire.CopyInPortal).
type portal struct{ p *sql.Portal }

func (p portal) Columns() []pgwire.Column { return wireColumns(p.p.Columns()) }

func (p portal) Execute(ctx context.Context, w pgwire.RowWriter, maxRows int) (string, bool, error) {
	return p.p.Execute(ctx, w, maxRows)
}

func (p portal) Close() { p.p.Close() }

// sqlPortal is the sql.Portal behind a portal Bind returned.
func sqlPortal(p pgwire.Portal) (*sql.Portal, bool) {
	switch p := p.(type) {
	case portal:
		return p.p, true
	case copyPortal:
		return p.p, true
	case copyOutPortal:
		return p.p, true
	}
	return nil, false
}

// copyPortal is a portal of COPY FROM STDIN.
type copyPortal struct{ portal }

func (p copyPortal) CopyInFormat() (int16, []int16) { return p.p.CopyInFormat() }

func (p copyPortal) CopyIn(ctx context.Context, r io.Reader) (string, error) {
	return p.p.CopyIn(ctx, r)
}

func wireColumns(cs []sql.Column) []pgwire.Column {
	if cs == nil {
		return nil
	}
	out := make([]pgwire.Column, len(cs))
	for i, c := range cs {
		out[i] = pgwire.Column(c)
	}
	return out
}

// copyOutPortal is a portal of COPY (SUBSCRIBE ...) TO STDOUT.
type copyOutPortal struct{ portal }

func (p copyOutPortal) CopyOutFormat() (int16, []int16) { return p.p.CopyOutFormat() }

func (p copyOutPortal) CopyOut(ctx context.Context, w io.Writer) (string, error) {
	return p.p.CopyOut(ctx, w)
}

var (
	_ pgwire.CopyInPortal  = copyPortal{}
	_ pgwire.CopyOutPortal = copyOutPortal{}
)

// SetBackend converts the connection's identity and controls.
func (s session) SetBackend(b pgwire.Backend) {
	sb := sql.Backend{PID: int32(b.PID), ClientPort: -1, Cancel: b.Cancel, Terminate: b.Terminate,
		HasPortal: b.HasPortal, ClosePortal: b.ClosePortal}
	if b.Portal != nil {
		sb.Portal = func(name string) (*sql.Portal, bool) {
			p, ok := b.Portal(name)
			if !ok {
				return nil, false
			}
			return sqlPortal(p)
		}
	}
	if b.TLS != nil {
		sb.TLS = tlsInfo(b.TLS)
	}
	if a, ok := b.ClientAddr.(*net.TCPAddr); ok {
		sb.ClientAddr, sb.ClientPort = a.IP.String(), int32(a.Port)
	}
	if b.Notice != nil {
		sb.Notice = func(n sql.Notice) { b.Notice(pgwire.Notice(n)) }
	}
	if b.Notify != nil {
		sb.Notify = func(n sql.Notification) {
			b.Notify(pgwire.Notification{PID: uint32(n.PID), Channel: n.Channel, Payload: n.Payload})
		}
	}
	s.Session.SetBackend(sb)
}

// tlsInfo is pg_stat_ssl's view of a connection's TLS: the version as
// OpenSSL (so PostgreSQL) spells it ("TLSv1.3"), the cipher suite's IANA
// name (for TLS 1.3 also OpenSSL's) and its key bits.
func tlsInfo(st *tls.ConnectionState) sql.TLSInfo {
	version := strings.Replace(tls.VersionName(st.Version), "TLS 1.", "TLSv1.", 1)
	bits := 128
	name := tls.CipherSuiteName(st.CipherSuite)
	if strings.Contains(name, "AES_256") || strings.Contains(name, "CHACHA20") {
		bits = 256
	}
	return sql.TLSInfo{Version: version, Cipher: name, Bits: bits}
}
