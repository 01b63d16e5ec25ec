package sql

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
)

// Backend is what the wire layer tells a session about its connection:
// the pid it sent the client in BackendKeyData, the client's address, and
// the controls other sessions use on it (pg_cancel_backend,
// pg_terminate_backend, NOTIFY). The functions may be called from any
// goroutine; a session without a connection (tests) has nil ones.
type Backend struct {
	PID int32
	// ClientAddr is the client's IP address (pg_stat_activity's inet is
	// text in Eddy's catalog); "" for a Unix socket, where
	// ClientPort is -1.
	ClientAddr string
	ClientPort int32
	// TLS is the connection's TLS state (pg_stat_ssl); Version is ""
	// for a plaintext connection.
	TLS       TLSInfo
	Cancel    func()
	Terminate func()
	Notify    func(Notification)
	// Notice sends a NoticeResponse at once, in the middle of a statement
	// (a long backfill's progress). Only the session's own goroutine
	// calls it, while it runs a statement; nil means none.
	Notice func(Notice)
	// HasPortal reports whether the connection has bound a protocol
	// portal of that name (DECLARE may not reuse it). Only the session's
	// own goroutine calls it; nil means none.
	HasPortal func(name string) bool
	// Portal finds the protocol portal of that name and ClosePortal
	// closes it (SQL FETCH, MOVE and CLOSE reach protocol portals,
	// protoportal.go); same rules as HasPortal.
	Portal      func(name string) (*Portal, bool)
	ClosePortal func(name string) bool
}

// TLSInfo is what pg_stat_ssl shows of a connection's TLS: the protocol
// version ("TLSv1.3"), the cipher suite and its key bits.
type TLSInfo struct {
	Version, Cipher string
	Bits            int
}

// Notification is a NOTIFY delivered to a listening session.
type Notification struct {
	PID              int32
	Channel, Payload string
}

// backends is the engine's registry of live sessions that have a
// connection, by pid: pg_stat_activity lists them, pg_cancel_backend and
// pg_terminate_backend find them, NOTIFY reaches their listeners. Its lock
// is never held while taking the engine's catalog lock.
type backends struct {
	mu    sync.Mutex
	byPID map[int32]*Session
}

// add registers s under its pid.
func (b *backends) add(s *Session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byPID == nil {
		b.byPID = map[int32]*Session{}
	}
	b.byPID[s.backend.PID] = s
}

// remove forgets s.
func (b *backends) remove(s *Session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byPID[s.backend.PID] == s {
		delete(b.byPID, s.backend.PID)
	}
}

// get returns the session with pid, or nil.
func (b *backends) get(pid int32) *Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byPID[pid]
}

// list returns the registered sessions in pid order.
func (b *backends) list() []*Session {
	b.mu.Lock()
	out := make([]*Session, 0, len(b.byPID))
	for _, s := range b.byPID {
		out = append(out, s)
	}
	b.mu.Unlock()
	slices.SortFunc(out, func(x, y *Session) int { return int(x.backend.PID - y.backend.PID) })
	return out
}

// activity is what pg_stat_activity shows of a session. The session's
// goroutine writes it, any session reads it, under mu.
type activity struct {
	mu          sync.Mutex
	start       time.Time // backend_start
	state       string    // active, idle, idle in transaction, idle in transaction (aborted)
	query       string    // the current or last statement's text
	queryStart  time.Time
	stateChange time.Time
	xactStart   time.Time // zero outside a transaction
}

// SetBackend records the session's connection and makes it visible to
// other sessions. The wire layer calls it once, before any statement.
func (s *Session) SetBackend(b Backend) {
	s.backend = b
	now := time.Now()
	s.act.mu.Lock()
	s.act.start, s.act.state, s.act.stateChange = now, "idle", now
	s.act.mu.Unlock()
	if b.PID != 0 {
		s.e.backends.add(s)
	}
}

// unregister removes a closing session from the registry and from every
// channel it listens on.
func (s *Session) unregister() {
	if s.backend.PID != 0 {
		s.e.backends.remove(s)
	}
	s.lmu.Lock()
	s.listening = nil
	s.lmu.Unlock()
}

// beginActivity marks the session active running query (its text) under
// ctx, which a cancel or terminate of the session cancels.
func (s *Session) beginActivity(ctx context.Context, query string) {
	s.stmtCtx = ctx
	now := time.Now()
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	s.act.state, s.act.query, s.act.queryStart, s.act.stateChange = "active", query, now, now
	if s.tx == txIdle || s.act.xactStart.IsZero() {
		s.act.xactStart = now
	}
}

// endActivity marks the session idle, in or out of a transaction.
func (s *Session) endActivity() {
	s.stmtCtx = nil
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	s.act.stateChange = time.Now()
	switch s.tx {
	case txIdle:
		s.act.state, s.act.xactStart = "idle", time.Time{}
	case txFailed:
		s.act.state = "idle in transaction (aborted)"
	default:
		s.act.state = "idle in transaction"
	}
}

// activityRow returns s's pg_stat_activity values by column name.
func (s *Session) activityRow() map[string]repr.Datum {
	s.act.mu.Lock()
	a := activity{start: s.act.start, state: s.act.state, query: s.act.query, queryStart: s.act.queryStart,
		stateChange: s.act.stateChange, xactStart: s.act.xactStart}
	s.act.mu.Unlock()
	app, _ := s.settings.get("application_name")
	row := map[string]repr.Datum{
		"pid": repr.NewInt(int64(s.backend.PID)), "usename": nameD(s.settings.user),
		"datname": nameD(s.settings.database), "application_name": repr.NewText(app),
		"backend_start": tsOrNull(a.start), "xact_start": tsOrNull(a.xactStart),
		"query_start": tsOrNull(a.queryStart), "state_change": tsOrNull(a.stateChange),
		"state": repr.NewText(a.state), "query": repr.NewText(a.query),
		"client_port": repr.NewInt(int64(s.backend.ClientPort)), "client_addr": repr.Null,
	}
	if s.backend.ClientAddr != "" {
		row["client_addr"] = repr.NewText(s.backend.ClientAddr)
	}
	return row
}

// blockingPIDs is pg_blocking_pids(pid): the sessions that hold what the
// session with pid waits for. The txGate is the only lock a statement
// waits on (ddltxn.go): a session waiting there is blocked by the gate's
// owner or, waiting to own it, by every session running a statement
// without waiting itself (they hold its shared slots). Empty when pid
// waits for nothing or is no session's.
func (e *Engine) blockingPIDs(pid int32) repr.Datum {
	t := e.backends.get(pid)
	var out []repr.Datum
	if t == nil || !t.lockWait.Load() {
		return repr.NewArray(out)
	}
	e.gate.mu.Lock()
	owner := e.gate.owner
	e.gate.mu.Unlock()
	for _, s := range e.backends.list() {
		switch {
		case s == t || s.backend.PID == 0:
		case owner != nil && owner != t:
			if s == owner {
				out = append(out, repr.NewInt(int64(s.backend.PID)))
			}
		case !s.lockWait.Load() && s.running():
			out = append(out, repr.NewInt(int64(s.backend.PID)))
		}
	}
	return repr.NewArray(out)
}

// running reports whether the session is running a statement; any
// goroutine may ask.
func (s *Session) running() bool {
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	return s.act.state == "active"
}

// tsOrNull is a timestamptz, NULL for the zero time.
func tsOrNull(t time.Time) repr.Datum {
	if t.IsZero() {
		return repr.Null
	}
	return repr.NewTimestampTZ(repr.TimeToTimestamp(t))
}

// signalBackend finds the session with pid for pg_cancel_backend or
// pg_terminate_backend; like PostgreSQL it warns (01000) and reports
// false when no session has that pid.
func (s *Session) signalBackend(pid int64, signal func(*Session) func()) repr.Datum {
	t := s.e.backends.get(int32(pid))
	if t == nil || int64(int32(pid)) != pid {
		s.notify(repr.Errorf("01000", "PID %d is not a PostgreSQL backend process", pid))
		return repr.NewBool(false)
	}
	if f := signal(t); f != nil {
		f()
	}
	return repr.NewBool(true)
}

// sleep waits d (pg_sleep), or until the running statement is cancelled
// (57014).
func (s *Session) sleep(d time.Duration) error {
	done := context.Background().Done()
	if s.stmtCtx != nil {
		done = s.stmtCtx.Done()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-done:
		return canceled(s.stmtCtx)
	}
}
