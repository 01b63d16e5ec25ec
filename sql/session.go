package sql

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Column describes one result column as the wire protocol reports it.
type Column struct {
	Name       string
	TableOID   uint32
	ColumnAttr int16
	TypeOID    uint32
	TypeSize   int16
	TypeMod    int32
	Format     int16
}

// RowWriter receives result rows already encoded in the portal's formats
// (nil is NULL).
type RowWriter interface {
	WriteRow(values [][]byte) error
}

// txState is a session's transaction state.
type txState uint8

const (
	txIdle   txState = iota // autocommit
	txBlock                 // inside BEGIN ... COMMIT
	txFailed                // an error occurred in the block; only ROLLBACK/COMMIT are accepted
)

// Session is one client's connection state: settings, the open
// transaction, and prepared statements (the wire layer names them).
type Session struct {
	e        *Engine
	settings *settings
	tx       txState
	ws       *writeSet
	closed   atomic.Bool
	// xactEnded notes that the running statement ended a block (and
	// counted its transaction: statcounters.go).
	xactEnded bool
	// cursors are the open cursors by name (cursor.go).
	cursors map[string]*cursor
	// info is what session-information functions report, built once.
	info *expr.SessionInfo
	// plDepth is the nesting of the running PL/pgSQL calls (plcall.go).
	plDepth int
	// plTxnControl marks a CALL or DO that started outside a transaction
	// block: its routine may COMMIT and ROLLBACK (plpgsql_txn.go).
	plTxnControl bool
	// seqCurr and lastSeq are the values this session obtained from
	// sequences (currval, lastval); restartSeqs are the sequences a
	// TRUNCATE ... RESTART IDENTITY in the open block resets at COMMIT.
	seqCurr     map[uint64]int64
	lastSeq     *seqState
	restartSeqs []uint64
	// blk is the open block's savepoints, settings snapshot and modes
	// (txn.go); notices are the warnings for the client from the last
	// statement.
	blk     block
	notices []Notice
	// cursorSeq numbers declared cursors, so that ROLLBACK TO closes the
	// ones declared after its savepoint.
	cursorSeq uint64
	// backend is the session's connection (backends.go); act is what
	// pg_stat_activity shows of it.
	backend Backend
	act     activity
	// stmtCtx is the running statement's context (nil between
	// statements): session functions that wait (pg_sleep) end when it is
	// cancelled.
	stmtCtx context.Context
	// mem is the running statement's memory account (memory.go; nil
	// between statements or without a budget), expr.Ctx.Memory of its
	// evaluation contexts.
	mem *memAccount
	// lmu guards listening, the channels the session listens on in LISTEN
	// order (read by other sessions' NOTIFY); notes are the open block's
	// NOTIFYs and LISTEN/UNLISTENs, applied at COMMIT (listen.go).
	lmu       sync.Mutex
	listening []string
	notes     pendingNotes
	// prepared are the named prepared statements, of the protocol (Parse)
	// and of SQL (PREPARE), which share one namespace (prepare.go).
	prepared map[string]*prepared
	// role is the SET ROLE role ("" none): current_user, and whose
	// privileges the session has.
	role string
	// authUser is the user who logged in; settings.user is the session
	// user, which SET SESSION AUTHORIZATION changes (roles_ddl.go).
	authUser string
	// gateDepth counts the nested entries of the running statement into
	// the engine's txGate; gateShared says they hold a shared slot
	// (ddltxn.go).
	gateDepth  int
	gateShared bool
	// lockWait is set while the session waits in the txGate, which
	// pg_stat_activity shows as a wait for a lock.
	lockWait atomic.Bool
	// tempNum is N of the session's temporary schema pg_temp_N (0: none
	// taken yet); onCommit are its temporary tables' ON COMMIT actions,
	// inOnCommit set while they run (temp.go).
	tempNum    int
	onCommit   []onCommitAction
	inOnCommit bool
}

// NewSession starts a session with the client's startup parameters.
func (e *Engine) NewSession(startup map[string]string) *Session {
	s := &Session{e: e, settings: newSettings(e.Version)}
	for k, v := range startup {
		switch strings.ToLower(k) {
		case "application_name", "timezone", "datestyle", "client_encoding", "search_path", "extra_float_digits", "intervalstyle":
			_ = s.settings.set(k, v)
		case "user":
			s.settings.user, s.authUser = v, v
		case "database":
			s.settings.database = v
		}
	}
	s.identityChanged()
	s.settings.changed = map[string]string{}
	s.settings.initial = maps.Clone(s.settings.vals)
	return s
}

// Parameters returns the ParameterStatus values reported at startup.
func (s *Session) Parameters() map[string]string { return s.settings.reported() }

// ChangedParameters returns and clears the reported settings changed by
// the last statement.
func (s *Session) ChangedParameters() map[string]string {
	c := s.settings.changed
	if len(c) == 0 {
		return nil
	}
	s.settings.changed = map[string]string{}
	return c
}

// TxStatus returns 'I', 'T' or 'E' for ReadyForQuery.
func (s *Session) TxStatus() byte {
	switch s.tx {
	case txBlock:
		return 'T'
	case txFailed:
		return 'E'
	}
	return 'I'
}

// Close ends the session, discarding an open transaction.
func (s *Session) Close() {
	s.closed.Store(true)
	s.unregister()
	s.endDDL()
	s.releaseSnapshot()
	s.e.rowLocks.release(s)
	s.tx, s.ws, s.blk = txIdle, nil, block{}
	s.closeCursors()
	s.dropTemps()
}

// Prepare parses sql into statements. A single statement is analyzed at
// once (so a bad query fails at Parse, as drivers expect); the statements of
// a multi-statement string are analyzed when bound, since earlier ones may
// create what later ones use.
func (s *Session) Prepare(ctx context.Context, sql string, paramOIDs []uint32) ([]*Statement, error) {
	stmts, err := parse.Parse(sql)
	if err != nil {
		s.Failed()
		return nil, err
	}
	var ptypes []repr.T
	for _, oid := range paramOIDs {
		t, _ := repr.FromOID(oid)
		ptypes = append(ptypes, t)
	}
	out := make([]*Statement, len(stmts))
	for i, st := range stmts {
		st.AST = selectIntoTable(st.AST)
		var writeTag string
		st.AST, writeTag = returningAsWith(st.AST)
		out[i] = &Statement{s: s, src: sql, stmt: st, paramTypes: ptypes, part: i, parts: len(stmts), writeTag: writeTag}
	}
	if len(out) != 1 {
		return out, nil
	}
	ctx, stop := s.statementContext(ctx) // a Parse is bounded too, as in PostgreSQL
	defer stop()
	if err := s.enterGateToDescribe(ctx, &out[0].stmt); err != nil {
		return nil, err
	}
	defer s.leaveGate()
	if s.tx == txFailed {
		if !isTxEnd(out[0].stmt.AST) {
			return nil, errInFailedTx
		}
	} else if err := out[0].describe(); err != nil {
		s.Failed()
		return nil, err
	}
	return out, nil
}

// evalCtx returns the evaluation context of a statement starting now.
func (s *Session) evalCtx() *expr.Ctx {
	if s.info == nil {
		s.info = &expr.SessionInfo{User: s.settings.user, CurrentUser: s.currentUser(), Database: s.settings.database, Version: s.e.Version,
			Setting: s.settings.get, Sequences: sessionSeqs{s}, Routines: sessionRoutines{s}, Catalog: catalogSession(s), Channels: s.channels,
			Schema: s.currentSchema, Settings: s.settingRows}
	}
	stmt := repr.TimeToTimestamp(time.Now())
	st := s.settings.textStyle()
	now := stmt
	if s.tx != txIdle && s.blk.start != 0 {
		now = s.blk.start // PostgreSQL's now() is the transaction's start
	}
	return &expr.Ctx{StmtTimestamp: now, StatementStart: stmt, TimeZone: s.settings.timeZone, Session: s.info,
		FloatDigits: st.FloatDigits, IntervalStyle: st.Interval,
		Interrupt: s.interrupt(), Memory: s.mem.memory()}
}

// location is the session time zone.
func (s *Session) location() *time.Location { return s.settings.loc }

// withPosition converts an AST byte location into the error's position.
func withPosition(err error, src string, byteLoc int32) error {
	e, ok := err.(*repr.Error)
	if !ok || e.Position != 0 || byteLoc < 0 {
		return err
	}
	return e.WithPosition(parse.CharPosition(src, int(byteLoc)))
}

func unsupportedStmt(kind string) error {
	return repr.Unsupported("%s", kind)
}

var _ = fmt.Sprintf
