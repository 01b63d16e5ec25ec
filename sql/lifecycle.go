package sql

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/repr"
)

// Statement lifecycle: how a running statement is stopped. Every
// statement runs under a context that a CancelRequest, pg_cancel_backend,
// pg_terminate_backend, a client that went away (pgwire) and
// statement_timeout (here) cancel. The context's Done channel reaches the
// dataflow of an ad hoc query, a DML's query and a view's backfill as
// expr.Ctx.Interrupt, which exec polls at batch granularity; the Step then
// rolls back, so nothing is half-applied, and the statement fails with
// 57014 in PostgreSQL's words for the reason.

// errStatementTimeout is the cause of a context cancelled by
// statement_timeout.
var errStatementTimeout = errors.New("statement timeout")

// errLockTimeout is the cause of a gate wait's context that lock_timeout
// ended.
var errLockTimeout = errors.New("lock timeout")

// canceled is the 57014 error of a statement stopped because ctx was
// cancelled: "due to statement timeout" when statement_timeout fired,
// else "due to user request" (CancelRequest, pg_cancel_backend). A nil
// ctx is a user request.
func canceled(ctx context.Context) error {
	if ctx != nil && context.Cause(ctx) == errStatementTimeout {
		return repr.Errorf(repr.CodeQueryCanceled, "canceling statement due to statement timeout")
	}
	if ctx != nil && context.Cause(ctx) == errLockTimeout {
		return repr.Errorf("55P03", "canceling statement due to lock timeout")
	}
	return repr.Errorf(repr.CodeQueryCanceled, "canceling statement due to user request")
}

// asCanceled turns exec's ErrCanceled, and any error of a statement whose
// context ended, into canceled(ctx); other errors pass unchanged.
func asCanceled(ctx context.Context, err error) error {
	if err != nil && (errors.Is(err, exec.ErrCanceled) || ctx != nil && ctx.Err() != nil && repr.ErrorCode(err) == repr.CodeInternal) {
		return canceled(ctx)
	}
	return err
}

// statementContext returns ctx bounded by the session's
// statement_timeout (none when 0), and the function releasing its timer.
func (s *Session) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := s.settings.stmtTimeout
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, errStatementTimeout)
}

// lockContext returns ctx bounded by the session's lock_timeout (none
// when 0), for a wait in the txGate, PostgreSQL's lock waits: a
// statement waiting for a block with DDL, or DDL waiting for the gate.
func (s *Session) lockContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := s.settings.lockTimeout
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, errLockTimeout)
}

// interrupt is the Done channel of the running statement (nil between
// statements, or with no session, as for a decoder under test), handed to
// expression contexts as expr.Ctx.Interrupt.
func (s *Session) interrupt() <-chan struct{} {
	if s == nil || s.stmtCtx == nil {
		return nil
	}
	return s.stmtCtx.Done()
}

// timeoutUnits are the timeout settings' units and range: milliseconds
// (a bare number), 0 (off) to 2147483647, as in PostgreSQL.
var timeoutUnits = unitSetting{base: "ms", min: 0, max: math.MaxInt32}

// checkTimeoutSetting validates a timeout setting as PostgreSQL does (an
// integer of milliseconds, or a number with a unit us, ms, s, min, h or d;
// 0 disables it) and returns the value as SHOW prints it and its duration.
func checkTimeoutSetting(name, value string) (string, time.Duration, error) {
	ms, err := timeoutUnits.parse(name, value)
	if err != nil {
		return "", 0, err
	}
	return timeoutUnits.show(ms), time.Duration(ms) * time.Millisecond, nil
}

// isClosed reports whether done (an interrupt channel; nil: never) is
// closed, without waiting.
func isClosed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// Errors ending a connection that stayed idle too long (PostgreSQL's).
var (
	errIdleInTransaction = repr.Errorf("25P03", "terminating connection due to idle-in-transaction timeout")
	errIdleSession       = repr.Errorf("57P05", "terminating connection due to idle-session timeout")
)

// IdleTimeout is how long the client may stay idle before its next query
// (0: no limit) and the FATAL error ending the connection when it does:
// idle_in_transaction_session_timeout inside a block (25P03), else
// idle_session_timeout (57P05).
func (s *Session) IdleTimeout() (time.Duration, error) {
	d, err := s.settings.idleTimeout, errIdleSession
	if s.tx != txIdle {
		d, err = s.settings.idleTxTimeout, errIdleInTransaction
	}
	if d <= 0 {
		return 0, nil
	}
	return d, err
}
