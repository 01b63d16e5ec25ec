package pgwire

import (
	"time"
)

// Client liveness. While a statement runs, the connection's goroutine does
// not read the socket, so a client that goes away is noticed only when a
// result is written, which a runaway join or a long aggregate may never
// do: the statement would run on, holding its CPU and memory, for nobody.
// PostgreSQL 14 added client_connection_check_interval for this; Eddy
// always checks. One watcher goroutine per server looks, every
// livenessInterval, at the connections whose statement was already running
// at its previous look, and peeks at their sockets without consuming
// anything (peekClosed): end of stream, a reset, or a lone Terminate
// message means the client is gone, and the statement is cancelled. The
// statements' hot path pays nothing for this beyond a counter.

// livenessInterval is how often the watcher looks: a statement of a
// vanished client stops within about two intervals.
const livenessInterval = 100 * time.Millisecond

// startWatcher starts the server's liveness watcher once.
func (s *Server) startWatcher() {
	s.watchOnce.Do(func() { go s.watchClients() })
}

// watchClients runs the liveness checks until Shutdown.
func (s *Server) watchClients() {
	t := time.NewTicker(livenessInterval)
	defer t.Stop()
	for {
		select {
		case <-s.watchStop:
			return
		case <-t.C:
		}
		for _, c := range s.longRunning() {
			if peekClosed(c.nc) {
				s.logger.Debug("pgwire: client went away during a statement; cancelling it", "pid", c.pid)
				c.cancelStatement()
			}
		}
	}
}

// longRunning returns the connections running the same statement as at
// the previous call.
func (s *Server) longRunning() []*conn {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	out := conns[:0]
	for _, c := range conns {
		c.mu.Lock()
		long := c.running && c.seq == c.watchedSeq
		c.watchedSeq = c.seq
		c.mu.Unlock()
		if long {
			out = append(out, c)
		}
	}
	return out
}
