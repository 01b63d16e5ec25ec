package pgwire

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Protocol-level errors pgwire raises itself.
var (
	errAdminShutdown = repr.Errorf("57P01", "terminating connection due to administrator command")
	errQueryCanceled = repr.Errorf(repr.CodeQueryCanceled, "canceling statement due to user request")
	errFunctionCall  = repr.Unsupported("the fast-path function call interface")
)

// protocolViolation is an 08P01 error.
func protocolViolation(format string, args ...any) *repr.Error {
	return repr.Errorf(repr.CodeProtocolViolation, format, args...)
}

// toPG converts err to a user error: a *repr.Error (or one wrapped) as is,
// a context cancellation as 57014, anything else as XX000.
func toPG(err error) *repr.Error {
	var e *repr.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) {
		return errQueryCanceled
	}
	return &repr.Error{Code: repr.CodeInternal, Message: err.Error()}
}

// sendError sends err as an ERROR. A statement cancelled because the server
// is shutting down ends the connection with FATAL 57P01 instead, as
// PostgreSQL does.
func (c *conn) sendError(err error) {
	e := toPG(err)
	if c.shuttingDown.Load() && (e.Code == repr.CodeQueryCanceled || e == errAdminShutdown) {
		c.sendFatal(errAdminShutdown)
		return
	}
	c.sendPGError(e, "ERROR")
	c.sessionFailed()
}

// sessionFailed tells the session an error was sent (it fails an open
// transaction block), surviving a panic in it.
func (c *conn) sessionFailed() {
	if c.sess == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("Session.Failed", r)
		}
	}()
	c.sess.Failed()
}

// sendNotices sends the last statement's notices as NoticeResponse.
func (c *conn) sendNotices() {
	for _, n := range c.sess.Notices() {
		e := n.Err
		c.be.Send(&pgproto3.NoticeResponse{Severity: n.Severity, SeverityUnlocalized: n.Severity,
			Code: e.Code, Message: e.Message, Detail: e.Detail, Hint: e.Hint})
	}
}

// sendFatal sends err as a FATAL error, flushes it (bounded by a deadline,
// since the client may not be reading) and marks the connection for closing.
func (c *conn) sendFatal(err error) {
	c.sendPGError(toPG(err), "FATAL")
	c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	c.flush()
	c.fatal = true
}

// sendPGError sends e with the given severity.
func (c *conn) sendPGError(e *repr.Error, severity string) {
	c.errResp = pgproto3.ErrorResponse{
		Severity:            severity,
		SeverityUnlocalized: severity,
		Code:                e.Code,
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Position:            e.Position,
	}
	c.sendErrorResponse(&c.errResp)
}

// sendErrorResponse sends a prepared ErrorResponse.
func (c *conn) sendErrorResponse(msg *pgproto3.ErrorResponse) {
	c.be.Send(msg)
}

// extError reports an error in an extended-protocol message and starts
// discarding messages until the next Sync.
func (c *conn) extError(err error) {
	c.sendError(err)
	c.ignoreTillSync = true
}

// isDisconnect reports whether err means the client went away.
func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}
