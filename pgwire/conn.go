package pgwire

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// flushThreshold is how many bytes of DataRows may be buffered before they
// are written out mid-result. Small enough to bound memory per connection,
// large enough that a typical result is one write.
const flushThreshold = 32 << 10

// conn is the state of one client connection. Everything except mu's fields
// and shuttingDown is owned by the connection's goroutine.
type conn struct {
	srv *Server
	nc  net.Conn
	be  *pgproto3.Backend

	pid    uint32
	secret [4]byte

	// tls is set once the connection switched to TLS; user is the
	// startup packet's user; slot and role say what the connection counts
	// against (limits.go, under srv.mu).
	tls bool
	// tlsState is the TLS handshake's result (nil: plaintext).
	tlsState *tls.ConnectionState
	user     string
	slot     bool
	role     string

	sess Session

	// baseCtx lives as long as the connection; Shutdown cancels it.
	baseCtx    context.Context
	baseCancel context.CancelFunc

	// mu guards the statement context. A statement runs under stmtCtx, which
	// is reused across statements until a CancelRequest cancels it, so the
	// hot path allocates no context; running says whether a cancel may hit.
	mu         sync.Mutex
	stmtCtx    context.Context
	stmtCancel context.CancelFunc
	running    bool
	// seq numbers the statements begun; watchedSeq is the one the
	// liveness watcher saw at its last look (liveness.go).
	seq, watchedSeq uint64

	shuttingDown atomic.Bool

	// nmu guards the notification queue and idle (notify.go): idle means
	// a ReadyForQuery with status idle was flushed and no message has
	// been received since.
	nmu   sync.Mutex
	idle  bool
	notes []pgproto3.NotificationResponse
	kick  chan struct{} // wakes the idle writer; nil until first needed

	// Protocol state.
	stmts          map[string]stmtEntry
	portals        map[string]portalEntry
	ignoreTillSync bool // an extended-protocol message failed: discard until Sync
	fatal          bool // the connection must be closed after this message
	pending        int  // bytes of DataRows buffered since the last flush
	ready          bool // a ReadyForQuery went out and no message came since

	// Reused outgoing messages, so sending does not allocate.
	rows     rowWriter
	rowDesc  pgproto3.RowDescription
	nameBuf  []byte
	paramDsc pgproto3.ParameterDescription
	errResp  pgproto3.ErrorResponse
	complete pgproto3.CommandComplete
	rfq      pgproto3.ReadyForQuery
	status   pgproto3.ParameterStatus
}

// stmtEntry is a prepared statement; st is nil for an empty query string.
type stmtEntry struct {
	st Statement
}

// portalEntry is a bound portal; p is nil for an empty query string.
type portalEntry struct {
	p Portal
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		srv:     s,
		nc:      nc,
		be:      pgproto3.NewBackend(nc, nc),
		stmts:   make(map[string]stmtEntry),
		portals: make(map[string]portalEntry),
	}
	c.be.SetMaxBodyLen(s.MaxMessageSize)
	c.baseCtx, c.baseCancel = context.WithCancel(context.Background())
	c.stmtCtx, c.stmtCancel = context.WithCancel(c.baseCtx)
	c.rows.c = c
	return c
}

// serve runs the connection to completion: startup, then one message at a
// time until Terminate, EOF, a fatal error or shutdown. It never panics.
func (c *conn) serve() {
	defer c.nc.Close()
	defer c.baseCancel()
	defer func() {
		if c.sess != nil {
			c.closeSession()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("connection", r)
			c.trySendFatal(repr.Errorf(repr.CodeInternal, "internal error: %v", r))
		}
	}()
	if !c.startup() {
		return
	}
	for {
		idleErr := c.armIdleTimeout()
		msg, err := c.be.Receive()
		c.busy()
		if idleErr != nil {
			c.disarmIdleTimeout()
		}
		if err != nil {
			c.receiveIdleFailed(err, idleErr)
			return
		}
		if c.dispatch(msg) {
			c.flush()
			return
		}
	}
}

// dispatch handles one message and reports whether the connection must be
// closed. A panic is recovered into an XX000 ErrorResponse.
func (c *conn) dispatch(msg pgproto3.FrontendMessage) (closeConn bool) {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic(fmt.Sprintf("%T", msg), r)
			closeConn = c.afterPanic(msg, r)
		}
	}()
	if c.ignoreTillSync {
		switch msg.(type) {
		case *pgproto3.Sync, *pgproto3.Terminate:
		default:
			return false
		}
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.handleQuery(m.String)
	case *pgproto3.Parse:
		c.handleParse(m)
	case *pgproto3.Bind:
		c.handleBind(m)
	case *pgproto3.Describe:
		c.handleDescribe(m)
	case *pgproto3.Execute:
		c.handleExecute(m)
	case *pgproto3.Close:
		c.handleClose(m)
	case *pgproto3.Sync:
		c.handleSync()
	case *pgproto3.Flush:
		c.flush()
	case *pgproto3.Terminate:
		return true
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Leftovers of a COPY that already failed: dropped, as PostgreSQL does.
	case *pgproto3.FunctionCall:
		c.sendError(errFunctionCall)
		c.readyForQuery()
	default:
		c.sendFatal(protocolViolation("unexpected message type %T", msg))
		return true
	}
	return c.fatal
}

// trySendFatal sends a FATAL error from a deferred recovery, where a second
// panic would crash the process.
func (c *conn) trySendFatal(err error) {
	defer func() { _ = recover() }()
	c.fatal = false
	c.sendFatal(err)
}

// afterPanic restores a consistent protocol state after a recovered panic:
// the client gets XX000 and, for a message that ends with ReadyForQuery, its
// ReadyForQuery; extended-protocol messages then skip to the next Sync.
func (c *conn) afterPanic(msg pgproto3.FrontendMessage, r any) bool {
	c.sendErrorResponse(&pgproto3.ErrorResponse{
		Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "XX000",
		Message: fmt.Sprintf("internal error: %v", r),
	})
	c.sessionFailed()
	switch msg.(type) {
	case *pgproto3.Query, *pgproto3.Sync, *pgproto3.FunctionCall:
		c.ignoreTillSync = false
		c.readyForQuery()
	default:
		c.ignoreTillSync = true
	}
	return c.fatal
}

// logPanic logs a recovered panic with the goroutine's stack.
func (c *conn) logPanic(where string, r any) {
	c.srv.logger.Error("pgwire: recovered panic",
		"pid", c.pid, "while", where, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
}

// receiveFailed reports why reading the next message failed: nothing for a
// vanished client, FATAL 57P01 on shutdown, FATAL 08P01 for garbage.
func (c *conn) receiveFailed(err error) {
	switch {
	case c.shuttingDown.Load():
		c.sendFatal(errAdminShutdown)
	case isDisconnect(err):
		return
	default:
		c.sendFatal(protocolViolation("invalid frontend message: %v", err))
	}
}

// shutdown asks the connection to end: running statements are cancelled
// and a blocked read returns, after which the client gets FATAL 57P01.
// Safe to call from any goroutine.
func (c *conn) shutdown() {
	c.shuttingDown.Store(true)
	c.baseCancel()
	c.nc.SetReadDeadline(time.Now())
}

// closeSession closes the session exactly once, surviving a panic in it.
func (c *conn) closeSession() {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("Session.Close", r)
		}
	}()
	for _, pe := range c.portals {
		if pe.p != nil {
			pe.p.Close()
		}
	}
	clear(c.portals)
	c.sess.Close()
}

// beginStatement marks a statement as running and returns its context, which
// a CancelRequest for this connection cancels until endStatement.
func (c *conn) beginStatement() context.Context {
	c.mu.Lock()
	if c.stmtCtx.Err() != nil {
		c.stmtCtx, c.stmtCancel = context.WithCancel(c.baseCtx)
	}
	c.running = true
	c.seq++
	ctx := c.stmtCtx
	c.mu.Unlock()
	return ctx
}

// endStatement marks that no statement is running; a later CancelRequest is
// ignored.
func (c *conn) endStatement() {
	c.mu.Lock()
	c.running = false
	c.mu.Unlock()
}

// cancelStatement cancels the running statement, if any. Any goroutine.
func (c *conn) cancelStatement() {
	c.mu.Lock()
	if c.running {
		c.stmtCancel()
	}
	c.mu.Unlock()
}

// flush writes the buffered messages. A write error means the client is
// gone: the connection is marked fatal.
func (c *conn) flush() error {
	c.pending = 0
	if err := c.be.Flush(); err != nil {
		c.fatal = true
		return err
	}
	return nil
}

// readyForQuery sends ReadyForQuery with the session's transaction status
// and flushes.
func (c *conn) readyForQuery() {
	c.sendReady(c.txStatus())
}

// sendReady sends ReadyForQuery with status and flushes; nothing after a
// FATAL error.
func (c *conn) sendReady(status byte) {
	if c.fatal {
		return
	}
	if status == 'I' {
		c.sendQueuedNotifications()
		c.closePortals()
	}
	c.rfq.TxStatus = status
	c.be.Send(&c.rfq)
	c.ready = true
	if c.flush() == nil && status == 'I' {
		c.becomeIdle()
	}
}

// closePortals closes every portal: as in PostgreSQL, where a portal lives
// no longer than its transaction, none is left once the connection is idle
// outside a transaction block (after the Sync of an implicit transaction,
// after COMMIT or ROLLBACK). A DECLAREd cursor WITH HOLD is the session's.
func (c *conn) closePortals() {
	for name := range c.portals {
		c.closePortal(name)
	}
}

// txStatus is the session's TxStatus, or 'E' if it panics.
func (c *conn) txStatus() (s byte) {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("Session.TxStatus", r)
			s = 'E'
		}
	}()
	return c.sess.TxStatus()
}

// sendParameters sends one ParameterStatus per entry, in name order.
func (c *conn) sendParameters(params map[string]string) {
	if len(params) == 0 {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		c.status.Name, c.status.Value = name, params[name]
		c.be.Send(&c.status)
	}
}

// sendChangedParameters reports the last statement's parameter changes.
func (c *conn) sendChangedParameters() {
	c.sendParameters(c.sess.ChangedParameters())
}

// sendCommandComplete sends CommandComplete with tag.
func (c *conn) sendCommandComplete(tag string) {
	c.complete.CommandTag = append(c.complete.CommandTag[:0], tag...)
	c.be.Send(&c.complete)
}

// sendRowDescription sends a RowDescription for cols without allocating once
// warmed up: names are copied into a reused buffer.
func (c *conn) sendRowDescription(cols []Column) {
	c.nameBuf = c.nameBuf[:0]
	for _, col := range cols {
		c.nameBuf = append(c.nameBuf, col.Name...)
	}
	fields := c.rowDesc.Fields[:0]
	off := 0
	for _, col := range cols {
		end := off + len(col.Name)
		fields = append(fields, pgproto3.FieldDescription{
			Name:                 c.nameBuf[off:end:end],
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.ColumnAttr),
			DataTypeOID:          col.TypeOID,
			DataTypeSize:         col.TypeSize,
			TypeModifier:         col.TypeMod,
			Format:               col.Format,
		})
		off = end
	}
	c.rowDesc.Fields = fields
	c.be.Send(&c.rowDesc)
}

// rowWriter is the RowWriter handed to portals: it buffers DataRows in the
// Backend and flushes when flushThreshold bytes are pending.
type rowWriter struct {
	c   *conn
	msg pgproto3.DataRow
}

// Flush sends the buffered rows now: portals that stream results as they
// happen (SUBSCRIBE) call it after each batch (see Flusher).
func (w *rowWriter) Flush() error { return w.c.flush() }

// Abort implements Aborter.
func (w *rowWriter) Abort() { w.c.abortWrites() }

// abortWrites makes a blocked write to the client fail now; the failed
// flush marks the connection fatal, so it is closed. Any goroutine.
func (c *conn) abortWrites() {
	c.srv.logger.Warn("pgwire: aborting a connection whose client stopped reading", "pid", c.pid)
	c.nc.SetWriteDeadline(time.Now())
}

// WriteRow implements RowWriter.
func (w *rowWriter) WriteRow(values [][]byte) error {
	w.msg.Values = values
	w.c.be.Send(&w.msg)
	w.msg.Values = nil
	n := 7
	for _, v := range values {
		n += 4 + len(v)
	}
	w.c.pending += n
	if w.c.pending >= flushThreshold {
		return w.c.flush()
	}
	return nil
}
