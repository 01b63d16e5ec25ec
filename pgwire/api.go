package pgwire

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"time"

	"github.com/eddydb/eddy/repr"
)

// Handler creates sessions; implemented by the sql layer.
type Handler interface {
	// Connect starts a session for a client's startup parameters (user,
	// database, application_name, options, ...).
	Connect(ctx context.Context, startup map[string]string) (Session, error)
}

// Session is the statement layer's state for one client connection. pgwire
// calls it from a single goroutine, never concurrently.
type Session interface {
	// Parameters returns the ParameterStatus values to send after
	// authentication (server_version, server_encoding, client_encoding,
	// DateStyle, integer_datetimes, standard_conforming_strings, TimeZone,
	// application_name, IntervalStyle, is_superuser, session_authorization).
	Parameters() map[string]string
	// Prepare parses sql into zero or more statements (zero for an empty or
	// comment-only string). paramOIDs are the client's declared parameter
	// types (0 = unspecified).
	Prepare(ctx context.Context, sql string, paramOIDs []uint32) ([]Statement, error)
	// ChangedParameters returns ParameterStatus updates caused by the last
	// statement (e.g. SET TimeZone) and clears them.
	ChangedParameters() map[string]string
	// TxStatus is 'I' (idle), 'T' (in transaction) or 'E' (failed transaction).
	TxStatus() byte
	// Notices returns and clears the warnings and notices of the last
	// statement; pgwire sends them as NoticeResponse before its
	// CommandComplete (or ErrorResponse).
	Notices() []Notice
	// Failed tells the session that an ErrorResponse was sent: PostgreSQL
	// fails an open transaction block on any error, including those pgwire
	// raises itself (an unknown portal, a bad Bind).
	Failed()
	// DefineStatement names a prepared statement (Parse with a name; st
	// is nil for an empty query), 42P05 if the name is taken;
	// LookupStatement finds one and CloseStatement forgets one. The
	// session keeps them because SQL PREPARE, EXECUTE, DEALLOCATE and
	// DISCARD share their namespace. The unnamed statement stays in pgwire.
	DefineStatement(name, sql string, st Statement) error
	LookupStatement(name string) (Statement, bool)
	CloseStatement(name string)
	// LookupCursor returns a portal reading the open SQL cursor (DECLARE)
	// of that name, and CloseCursor closes one: in PostgreSQL a cursor is
	// a portal, so Describe, Execute and Close of a portal name pgwire
	// did not bind reach the session's cursors. The returned portal is
	// not kept; closing it is not needed.
	LookupCursor(name string) (Portal, bool)
	CloseCursor(name string)
	// SetBackend tells the session its connection's identity and controls,
	// once, right after Connect and before any statement.
	SetBackend(b Backend)
	// Close ends the session (rolls back an open transaction). pgwire calls it
	// exactly once.
	Close()
}

// IdleLimiter is implemented by sessions with idle timeouts
// (idle_in_transaction_session_timeout, idle_session_timeout).
type IdleLimiter interface {
	// IdleTimeout is how long the client may now stay idle after a
	// ReadyForQuery (0: as long as it likes) and the FATAL error that
	// ends the connection when it stays longer. pgwire calls it from the
	// session's goroutine, before each wait for a new query.
	IdleTimeout() (time.Duration, error)
}

// Backend is what pgwire tells a session about its connection: the pid
// sent in BackendKeyData, the client's address, and the controls other
// sessions use on it. The functions are safe to call from any goroutine
// at any time, also after the connection has ended (they then do nothing).
type Backend struct {
	PID        uint32
	ClientAddr net.Addr
	// TLS is the connection's TLS state after its handshake, nil for a
	// plaintext connection (pg_stat_ssl shows it).
	TLS *tls.ConnectionState
	// Cancel cancels the statement the connection is running, if any, as
	// a CancelRequest does (57014).
	Cancel func()
	// Terminate ends the connection: its running statement is cancelled
	// and the client gets FATAL 57P01.
	Terminate func()
	// Notify queues a NotificationResponse. It is sent at once if the
	// connection is idle outside a transaction block, else just before
	// its next ReadyForQuery with status idle.
	Notify func(n Notification)
	// Notice sends a NoticeResponse at once, in the middle of a statement
	// (PostgreSQL sends a RAISE NOTICE as it happens; Eddy, a long
	// backfill's progress). Like HasPortal, only from the session's
	// goroutine during a statement.
	Notice func(n Notice)
	// HasPortal reports whether the connection has bound a portal of that
	// name (SQL cursors share portals' namespace). Unlike the others it
	// may only be called from the session's own goroutine, while it runs
	// a statement.
	HasPortal func(name string) bool
	// Portal returns the portal the connection bound under that name (SQL
	// FETCH, MOVE and CLOSE reach protocol portals, as in PostgreSQL);
	// ClosePortal closes and forgets it, reporting whether it existed.
	// Like HasPortal, only from the session's goroutine during a statement.
	Portal      func(name string) (Portal, bool)
	ClosePortal func(name string) bool
}

// Notification is a NotificationResponse: a NOTIFY on Channel with
// Payload by the session with pid PID.
type Notification struct {
	PID              uint32
	Channel, Payload string
}

// Notice is a NoticeResponse: Severity is WARNING, NOTICE, INFO, ...; Err
// carries the SQLSTATE, message, detail and hint.
type Notice struct {
	Severity string
	Err      *repr.Error
}

// Statement is a prepared statement.
type Statement interface {
	// ParamOIDs are the inferred parameter types.
	ParamOIDs() []uint32
	// Columns describes the result rows; nil when the statement returns no
	// rows (NoData). Format fields are 0 here.
	Columns() []Column
	// Bind supplies parameter values (nil = NULL) with their format codes (PG
	// rules: 0 codes = all text, 1 code = applies to all, else one per param)
	// and the result format codes (same rules).
	//
	// pgwire has already checked that len(params) equals len(ParamOIDs()),
	// that the format code counts follow those rules and that every code is
	// 0 or 1. The params slices alias the connection's read buffer: they are
	// valid only during the call, so an implementation that keeps them must
	// copy them.
	Bind(ctx context.Context, params [][]byte, paramFormats []int16, resultFormats []int16) (Portal, error)
}

// Portal is a bound statement ready to run.
type Portal interface {
	// Columns as Statement.Columns but with Format set per the Bind's result
	// formats.
	Columns() []Column
	// Execute runs the portal or resumes it, writing at most maxRows rows (0
	// = no limit). It returns the CommandComplete tag ("SELECT 3", "INSERT 0
	// 1", "CREATE TABLE", ...), or suspended=true (and no tag) when rows
	// remain. ctx is cancelled by a CancelRequest.
	Execute(ctx context.Context, w RowWriter, maxRows int) (tag string, suspended bool, err error)
	// Close releases the portal.
	Close()
}

// CopyInPortal is implemented by portals of COPY ... FROM STDIN.
type CopyInPortal interface {
	Portal
	// CopyInFormat is the overall format (0 text, 1 binary) and per-column
	// formats for CopyInResponse.
	CopyInFormat() (format int16, columnFormats []int16)
	// CopyIn consumes the client's data stream (the concatenated CopyData
	// payloads; io.EOF at CopyDone) and returns the tag ("COPY 42"). If the
	// client sends CopyFail, r returns an error and CopyIn must fail with it.
	CopyIn(ctx context.Context, r io.Reader) (tag string, err error)
}

// RowWriter receives a portal's result rows.
type RowWriter interface {
	// WriteRow sends one DataRow; values are already encoded in the portal's
	// formats; nil is NULL. The values are copied before WriteRow returns,
	// so the caller may reuse them.
	WriteRow(values [][]byte) error
}

// Flusher is implemented by the RowWriter and CopyWriter pgwire hands to
// portals: a portal that streams results as they happen (SUBSCRIBE) flushes
// after each batch so the client sees it at once.
type Flusher interface {
	Flush() error
}

// Aborter is implemented by the RowWriter and CopyWriter pgwire hands to
// portals. Abort may be called from any goroutine: it makes a write that
// blocks because the client stopped reading fail at once, and the
// connection is then closed (its stream is cut, possibly mid-message, so
// nothing more can be sent). A streaming portal (SUBSCRIBE) calls it when
// its subscription was ended for falling behind and its writes stay
// blocked: a client that never reads is disconnected.
type Aborter interface {
	Abort()
}

// CopyOutPortal is implemented by portals of COPY ... TO STDOUT.
type CopyOutPortal interface {
	Portal
	// CopyOutFormat is the overall format (0 text, 1 binary) and per-column
	// formats for CopyOutResponse.
	CopyOutFormat() (format int16, columnFormats []int16)
	// CopyOut writes the data, one CopyData message per Write (a whole row
	// in text format, newline included), and returns the tag ("COPY 42").
	// The writer is also a Flusher. ctx is cancelled by a CancelRequest.
	CopyOut(ctx context.Context, w io.Writer) (tag string, err error)
}

// Column describes one result column, as in a RowDescription field.
type Column struct {
	Name       string
	TableOID   uint32
	ColumnAttr int16
	TypeOID    uint32
	TypeSize   int16
	TypeMod    int32
	Format     int16
}
