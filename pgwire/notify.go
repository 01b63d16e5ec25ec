package pgwire

import (
	"github.com/jackc/pgx/v5/pgproto3"
)

// Asynchronous messages: NotificationResponse.
//
// A NOTIFY committed by any session reaches a listening connection through
// Backend.Notify, on the notifier's goroutine. The connection's goroutine
// owns the Backend and is blocked in Receive while the client is idle, so
// a notification for an idle connection is written straight to the
// network connection by a small per-connection writer goroutine, under
// nmu; the connection's goroutine takes nmu (clearing idle) before it
// writes anything after a Receive, so the two never write at once. While
// the connection is busy, or idle inside a transaction block, notifications
// wait in the queue and go out just before the next ReadyForQuery with
// status idle, as PostgreSQL sends them.

// backend returns the Backend handed to the session.
func (c *conn) backend() Backend {
	return Backend{
		PID:        c.pid,
		ClientAddr: c.nc.RemoteAddr(),
		TLS:        c.tlsState,
		Cancel:     c.cancelStatement,
		Terminate:  c.shutdown,
		Notify:     c.queueNotification,
		Notice:     c.sendNoticeNow,
		HasPortal: func(name string) bool {
			_, ok := c.portals[name]
			return ok
		},
		Portal: func(name string) (Portal, bool) {
			pe, ok := c.portals[name]
			return pe.p, ok && pe.p != nil
		},
		ClosePortal: func(name string) bool {
			_, ok := c.portals[name]
			c.closePortal(name)
			return ok
		},
	}
}

// sendNoticeNow sends n and flushes, from the connection's goroutine
// while it runs a statement (so nothing else writes meanwhile).
func (c *conn) sendNoticeNow(n Notice) {
	e := n.Err
	c.be.Send(&pgproto3.NoticeResponse{Severity: n.Severity, SeverityUnlocalized: n.Severity,
		Code: e.Code, Message: e.Message, Detail: e.Detail, Hint: e.Hint})
	_ = c.flush()
}

// queueNotification queues n and, if the connection is idle, has the
// writer send it now. Any goroutine.
func (c *conn) queueNotification(n Notification) {
	c.nmu.Lock()
	defer c.nmu.Unlock()
	c.notes = append(c.notes, pgproto3.NotificationResponse{PID: n.PID, Channel: n.Channel, Payload: n.Payload})
	if c.idle {
		c.kickWriter()
	}
}

// kickWriter wakes the idle writer, starting it on first use. nmu held.
func (c *conn) kickWriter() {
	if c.kick == nil {
		c.kick = make(chan struct{}, 1)
		go c.idleWriter(c.kick)
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// idleWriter writes queued notifications while the connection is idle,
// until the connection ends.
func (c *conn) idleWriter(kick <-chan struct{}) {
	for {
		select {
		case <-c.baseCtx.Done():
			return
		case <-kick:
		}
		c.nmu.Lock()
		if c.idle && len(c.notes) > 0 {
			var buf []byte
			for i := range c.notes {
				buf, _ = c.notes[i].Encode(buf)
			}
			c.notes = c.notes[:0]
			if _, err := c.nc.Write(buf); err != nil {
				c.idle = false // the client is gone; Receive will notice
			}
		}
		c.nmu.Unlock()
	}
}

// busy marks the connection as handling a message: notifications queue
// until the next ReadyForQuery. Called after every Receive.
func (c *conn) busy() {
	c.nmu.Lock()
	c.idle = false
	c.nmu.Unlock()
}

// sendQueuedNotifications buffers the queued notifications in the
// Backend; sendReady calls it before a ReadyForQuery with status idle.
func (c *conn) sendQueuedNotifications() {
	c.nmu.Lock()
	defer c.nmu.Unlock()
	for i := range c.notes {
		c.be.Send(&c.notes[i])
	}
	c.notes = c.notes[:0]
}

// becomeIdle marks the connection idle after a ReadyForQuery with status
// idle was flushed, sending what was queued in between.
func (c *conn) becomeIdle() {
	c.nmu.Lock()
	c.idle = true
	if len(c.notes) > 0 {
		c.kickWriter()
	}
	c.nmu.Unlock()
}
