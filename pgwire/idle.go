package pgwire

import (
	"errors"
	"net"
	"time"
)

// Idle timeouts. After a ReadyForQuery the connection waits for the next
// query; a session that limits that wait (IdleLimiter:
// idle_in_transaction_session_timeout, idle_session_timeout) gets a read
// deadline for it, and a client that stays idle past it receives the
// session's FATAL error and is disconnected, as in PostgreSQL. The
// deadline costs two system calls per query, paid only while a timeout is
// set.

// armIdleTimeout sets the read deadline of the wait for the next message
// when a ReadyForQuery was just sent and the session limits idleness; it
// returns the FATAL error for when the deadline passes (nil: no deadline
// was set).
func (c *conn) armIdleTimeout() error {
	ready := c.ready
	c.ready = false
	il, ok := c.sess.(IdleLimiter)
	if !ready || !ok {
		return nil
	}
	d, err := il.IdleTimeout()
	if d <= 0 || err == nil {
		return nil
	}
	c.nc.SetReadDeadline(time.Now().Add(d))
	return err
}

// disarmIdleTimeout removes the idle read deadline (clearReadDeadline).
func (c *conn) disarmIdleTimeout() { c.clearReadDeadline() }

// clearReadDeadline removes the read deadline, except the one shutdown
// sets: a shutdown that raced with the clearing gets its deadline back,
// so the connection still notices it.
func (c *conn) clearReadDeadline() {
	c.nc.SetReadDeadline(time.Time{})
	if c.shuttingDown.Load() {
		c.nc.SetReadDeadline(time.Now()) // shutdown's deadline was just cleared
	}
}

// receiveIdleFailed is receiveFailed, except that a read that timed out
// at the idle deadline ends the connection with the session's FATAL
// error (idleErr).
func (c *conn) receiveIdleFailed(err, idleErr error) {
	var ne net.Error
	if idleErr != nil && !c.shuttingDown.Load() && errors.As(err, &ne) && ne.Timeout() {
		c.sendFatal(idleErr)
		return
	}
	c.receiveFailed(err)
}
