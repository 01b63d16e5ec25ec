package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// defaultMaxMessageSize bounds the body of one client message, so a bogus
// length cannot make the server allocate gigabytes. PostgreSQL's own limit is
// 1 GiB; clients split COPY data into small CopyData messages, so 256 MiB
// only limits single huge parameter values.
const defaultMaxMessageSize = 256 << 20

// Server accepts client connections and serves each on its own goroutine.
// The zero value is not usable; create one with NewServer.
type Server struct {
	handler Handler
	logger  *slog.Logger

	// MaxMessageSize bounds the body of one client message (bytes). Set it
	// before Serve; a larger message ends the connection with 08P01.
	MaxMessageSize int

	// Auth configures client authentication (auth.go); TLSConfig, when
	// set, lets clients switch to TLS with SSLRequest, and TLSRequired
	// refuses clients that do not. Set them before Serve.
	Auth        Auth
	TLSConfig   *tls.Config
	TLSRequired bool
	// MaxConnections bounds the clients (0: no bound); the last
	// ReservedConnections of them are for superusers. AuthTimeout bounds
	// the startup phase (0: 60 s). See limits.go.
	MaxConnections      int
	ReservedConnections int
	AuthTimeout         time.Duration

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	byPID     map[uint32]*conn // connections that finished startup, by BackendKeyData pid
	wg        sync.WaitGroup   // one per connection goroutine
	// clients counts the connections holding a slot, perRole the
	// authenticated ones by role (limits.go).
	clients int
	perRole map[string]int

	failures   failureTable
	mockSecret [32]byte

	// watchOnce starts the liveness watcher (liveness.go), which runs
	// until watchStop is closed by Shutdown.
	watchOnce sync.Once
	watchStop chan struct{}
}

// NewServer returns a server that creates sessions with h and logs to logger
// (slog.Default() if nil).
func NewServer(h Handler, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{
		handler:        h,
		logger:         logger,
		MaxMessageSize: defaultMaxMessageSize,
		listeners:      make(map[net.Listener]struct{}),
		conns:          make(map[*conn]struct{}),
		byPID:          make(map[uint32]*conn),
		watchStop:      make(chan struct{}),
	}
	rand.Read(s.mockSecret[:])
	return s
}

// Serve accepts connections on ln until ln is closed (by the caller or by
// Shutdown) and then returns nil. No other accept error stops it: running
// out of descriptors (EMFILE, ENFILE) or buffers is what an overloaded
// server sees, and stopping would turn a flood of connections into an
// outage, so every error is logged (once per streak) and retried after a
// backoff doubling from 5 ms to 1 s, while the connections already
// admitted keep being served and free descriptors as they end.
func (s *Server) Serve(ln net.Listener) error {
	if !s.addListener(ln) {
		ln.Close()
		return nil
	}
	s.startWatcher()
	defer s.removeListener(ln)
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.isClosing() {
				return nil
			}
			if backoff == 0 {
				s.logger.Warn("pgwire: accept failed; retrying", "err", err)
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if !s.startConn(nc) {
			nc.Close()
		}
	}
}

// Shutdown stops accepting connections, ends every connection (a client that
// is idle or running a statement receives FATAL 57P01 admin_shutdown; running
// statements see their context cancelled) and waits for the connection
// goroutines to finish. If ctx ends first, the remaining network connections
// are closed forcibly and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		close(s.watchStop)
	}
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.shutdown()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, c := range conns {
			c.nc.Close()
		}
		return ctx.Err()
	}
}

// addListener registers ln; false if the server is shutting down.
func (s *Server) addListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

func (s *Server) removeListener(ln net.Listener) {
	s.mu.Lock()
	delete(s.listeners, ln)
	s.mu.Unlock()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// startConn registers a connection and starts its goroutine; false if the
// server is shutting down.
func (s *Server) startConn(nc net.Conn) bool {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer s.forget(c)
		c.serve()
	}()
	return true
}

// forget removes c from the registries once its goroutine is done.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	s.releaseSlot(c)
	delete(s.conns, c)
	if s.byPID[c.pid] == c {
		delete(s.byPID, c.pid)
	}
	s.mu.Unlock()
}

// register assigns c a random, unused, positive pid and a random secret and
// makes it reachable by CancelRequest.
func (s *Server) register(c *conn) {
	var b [8]byte
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		rand.Read(b[:])
		pid := binary.BigEndian.Uint32(b[:4]) & 0x7fffffff // clients treat the pid as int32
		if _, taken := s.byPID[pid]; pid == 0 || taken {
			continue
		}
		c.pid = pid
		copy(c.secret[:], b[4:])
		s.byPID[pid] = c
		return
	}
}

// cancel cancels the running statement of the connection with pid if secret
// matches; anything else is silently ignored, as in PostgreSQL.
func (s *Server) cancel(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.byPID[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(c.secret[:], secret) != 1 {
		return
	}
	c.cancelStatement()
}
