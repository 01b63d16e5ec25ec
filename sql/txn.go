package sql

import (
	"errors"
	"maps"
	"strings"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Transaction blocks, savepoints and transaction modes.
//
// A block (BEGIN ... COMMIT) buffers its writes in the session's write
// set; a savepoint is a mark in that write set together with what else
// the block may undo: the sequences a TRUNCATE ... RESTART IDENTITY resets
// at COMMIT, the session's settings (a SET inside a block is undone by a
// rollback, a SET LOCAL lasts until the block ends), and the cursors
// declared since. ROLLBACK TO cuts all of them back to the savepoint and
// recovers a failed block; RELEASE forgets savepoints and keeps their
// work. As in PostgreSQL, nextval and setval are never rolled back. DDL
// inside a block is transactional (ddltxn.go), and a multi-statement
// Query is an implicit block (implicit.go).
//
// Isolation: at READ UNCOMMITTED and READ COMMITTED every statement
// reads one consistent snapshot, the latest committed state plus the
// block's own writes; a block's writes commit atomically at one logical
// time, and a commit whose UPDATE or DELETE finds its row changed by a
// concurrent commit fails with 40001 (PostgreSQL's READ COMMITTED,
// stronger against lost updates). REPEATABLE READ and SERIALIZABLE pin
// one snapshot for the whole block at its first query (isolation.go).

// block is the state of an open transaction block beyond its write set.
type block struct {
	savepoints []savepoint
	// committed are the settings when the block began; sessionSets are
	// the session-level SETs made in it (kept at COMMIT, dropped at
	// ROLLBACK); SET LOCAL only changes the current values.
	committed   map[string]string
	sessionSets map[string]string
	// who is the session's identity when the block began (SET ROLE and
	// SET SESSION AUTHORIZATION are settings in PostgreSQL, undone by a
	// rollback too).
	who identity
	// queried says a query or write ran in the block: the isolation level
	// can no longer change.
	queried bool
	// start is the block's start time (timestamptz microseconds): now()
	// within the block, as PostgreSQL's transaction_timestamp().
	start int64
	// holdCursors are the WITH HOLD cursors declared in the block, dropped
	// if it rolls back.
	holdCursors []string
	// implicit marks the implicit block of a multi-statement Query
	// (implicit.go).
	implicit bool
}

// savepoint is a point a block can roll back to.
type savepoint struct {
	name        string
	mark        wsMark
	seqs        int
	vals        map[string]string
	sessionSets map[string]string
	who         identity
	// cursorSeq is the session's cursor counter: cursors numbered above it
	// were declared after the savepoint.
	cursorSeq uint64
	// notes is the position in the block's NOTIFYs and LISTENs.
	notes notesMark
	// ddls is the number of DDL statements the block had run (ddltxn.go).
	ddls int
}

// Transaction errors with PostgreSQL's codes and messages.
var (
	errNoSavepoint    = repr.ErrorKind{Code: "3B001", Format: "savepoint \"%s\" does not exist"}
	errOnlyInBlock    = repr.ErrorKind{Code: repr.CodeNoActiveTransaction, Format: "%s can only be used in transaction blocks"}
	errNotInBlock     = repr.ErrorKind{Code: repr.CodeActiveTransaction, Format: "%s cannot run inside a transaction block"}
	errReadOnlyTx     = repr.ErrorKind{Code: "25006", Format: "cannot execute %s in a read-only transaction"}
	errIsolationLate  = repr.Errorf(repr.CodeActiveTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	errReadWriteLate  = repr.Errorf(repr.CodeActiveTransaction, "transaction read-write mode must be set before any query")
	warnNoTransaction = repr.Errorf(repr.CodeNoActiveTransaction, "there is no transaction in progress")
	warnInTransaction = repr.Errorf(repr.CodeActiveTransaction, "there is already a transaction in progress")
)

// execTransaction handles BEGIN/START TRANSACTION, COMMIT, ROLLBACK,
// SAVEPOINT, RELEASE and ROLLBACK TO. COMMIT makes the block's writes
// visible to every view atomically at one logical time; a failed block's
// COMMIT rolls back, reporting ROLLBACK as PostgreSQL does.
func (p *Portal) execTransaction(ts *pg.TransactionStmt) error {
	s := p.st.s
	if ts.Chain {
		return repr.Unsupported("%s AND CHAIN", strings.TrimPrefix(ts.Kind.String(), "TRANS_STMT_"))
	}
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		p.tag = "BEGIN"
		return s.begin(ts.Options)
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		p.tag = "COMMIT"
		if s.tx == txFailed {
			p.tag = "ROLLBACK"
		}
		return s.commitBlock()
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		p.tag = "ROLLBACK"
		s.rollbackBlock()
		return nil
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		p.tag = "SAVEPOINT"
		return s.savepoint(ts.SavepointName)
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		p.tag = "RELEASE"
		return s.release(ts.SavepointName)
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		p.tag = "ROLLBACK"
		return s.rollbackTo(ts.SavepointName)
	}
	return repr.Unsupported("transaction statement %s", strings.TrimPrefix(ts.Kind.String(), "TRANS_STMT_"))
}

// begin opens a block with the given transaction modes; inside a block it
// only warns, as PostgreSQL does (the modes are then ignored).
func (s *Session) begin(opts []*pg.Node) error {
	if s.tx != txIdle && !s.blk.implicit {
		s.notify(warnInTransaction)
		return nil
	}
	modes, err := parseTxModes(opts)
	if err != nil {
		return err
	}
	if modes.isolation != "" {
		if err := checkIsolation(modes.isolation); err != nil {
			return err
		}
	}
	if s.blk.implicit {
		s.blk.implicit = false // the Query's implicit block becomes explicit
	} else {
		s.beginBlock()
	}
	s.applyTxModes(modes)
	return nil
}

// commitBlock ends the block, committing its writes unless it failed.
// Outside a block it warns.
func (s *Session) commitBlock() error {
	if s.tx == txIdle {
		s.notify(warnNoTransaction)
		return nil
	}
	if s.blk.implicit {
		s.notify(warnNoTransaction)
	}
	if s.tx == txFailed {
		s.endRollback()
		return nil
	}
	return s.endTx()
}

// endTx commits the open block: its writes, and its DDL with them
// (commitDDLBlock) if it ran any.
func (s *Session) endTx() error {
	ws, seqs := s.ws, s.restartSeqs
	ddl := s.ownsDDL()
	s.endBlock(true)
	var err error
	if ddl {
		if err = s.commitDDLBlock(ws); err == nil {
			s.e.stats.countCommitted(ws)
		}
	} else if ws != nil && ws.empty() {
		err = s.e.commitReadOnlySerializable(ws.snap)
	} else {
		err = s.e.commit(ws)
	}
	if ws != nil {
		s.e.releaseSnapshot(ws.snap) // after SERIALIZABLE's check
	}
	s.endDDL()
	s.countXactEnd(err == nil)
	if err != nil {
		s.notes = pendingNotes{}
		return err
	}
	s.commitNotes()
	return s.e.restartSequences(seqs)
}

// rollbackBlock ends the block and drops its writes; outside a block it
// warns.
func (s *Session) rollbackBlock() {
	if s.tx == txIdle {
		s.notify(warnNoTransaction)
		return
	}
	if s.blk.implicit {
		s.notify(warnNoTransaction)
	}
	s.endRollback()
}

// endRollback ends the open block, dropping its writes and undoing its
// DDL.
func (s *Session) endRollback() {
	for _, name := range s.blk.holdCursors {
		s.dropCursor(name)
	}
	s.endBlock(false)
	s.endDDL()
	s.countXactEnd(false)
}

// countXactEnd counts the end of the session's block, which the statement
// running (if any) then does not count as its own transaction.
func (s *Session) countXactEnd(commit bool) {
	s.e.stats.countXact(commit)
	s.xactEnded = true
}

// endBlock leaves the block: cursors without HOLD close, settings become
// the committed ones (plus the block's session-level SETs if it commits)
// and the transaction modes return to the session defaults.
func (s *Session) endBlock(commit bool) {
	s.closeTxCursors()
	if !commit {
		s.releaseSnapshot() // else endTx, once the commit is validated
	}
	vals, who := s.blk.committed, s.blk.who
	if commit {
		maps.Copy(vals, s.blk.sessionSets)
		who = s.who()
	}
	s.e.rowLocks.release(s)
	s.tx, s.ws, s.restartSeqs, s.blk = txIdle, nil, nil, block{}
	if !commit {
		s.notes = pendingNotes{}
	}
	s.settings.restore(vals)
	s.settings.resetTxModes()
	s.restoreIdentity(who)
}

// savepoint pushes a savepoint named name.
func (s *Session) savepoint(name string) error {
	if s.tx == txIdle || s.blk.implicit {
		return errOnlyInBlock.New("SAVEPOINT")
	}
	s.blk.savepoints = append(s.blk.savepoints, savepoint{
		name: name, mark: s.ws.mark(), seqs: len(s.restartSeqs),
		vals: maps.Clone(s.settings.vals), sessionSets: maps.Clone(s.blk.sessionSets), who: s.who(), cursorSeq: s.cursorSeq,
		notes: s.notes.mark(), ddls: s.ddlCount(),
	})
	return nil
}

// findSavepoint returns the index of the most recent savepoint named name.
func (s *Session) findSavepoint(name string) (int, error) {
	for i := len(s.blk.savepoints) - 1; i >= 0; i-- {
		if s.blk.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, errNoSavepoint.New(name)
}

// release forgets the most recent savepoint named name and every later
// one, keeping their work.
func (s *Session) release(name string) error {
	if s.tx == txIdle || s.blk.implicit {
		return errOnlyInBlock.New("RELEASE SAVEPOINT")
	}
	i, err := s.findSavepoint(name)
	if err != nil {
		return err
	}
	s.blk.savepoints = s.blk.savepoints[:i]
	return nil
}

// rollbackTo undoes everything since the most recent savepoint named
// name, which stays defined, and recovers a failed block.
func (s *Session) rollbackTo(name string) error {
	if s.tx == txIdle || s.blk.implicit {
		return errOnlyInBlock.New("ROLLBACK TO SAVEPOINT")
	}
	i, err := s.findSavepoint(name)
	if err != nil {
		return err
	}
	sp := s.blk.savepoints[i]
	s.blk.savepoints = s.blk.savepoints[:i+1]
	s.ws.rollbackTo(sp.mark)
	s.rollbackDDLTo(sp.ddls)
	s.restartSeqs = s.restartSeqs[:sp.seqs]
	s.closeCursorsAfter(sp.cursorSeq)
	s.notes.rollbackTo(sp.notes)
	s.settings.restore(sp.vals)
	s.restoreIdentity(sp.who)
	s.blk.sessionSets = maps.Clone(sp.sessionSets)
	s.tx = txBlock
	return nil
}

// notify queues a WARNING for the client (NoticeResponse).
func (s *Session) notify(e *repr.Error) {
	s.notices = append(s.notices, Notice{Severity: "WARNING", Err: e})
}

// skipNotice is what DDL returns when IF EXISTS or IF NOT EXISTS made it
// a no-op: not a failure; the statement succeeds and the client gets the
// message as a NOTICE (noticeSkipped).
type skipNotice struct{ e *repr.Error }

func (s skipNotice) Error() string { return s.e.Message }

// skipped wraps the NOTICE of a skipped DDL statement.
func skipped(e *repr.Error) error { return skipNotice{e} }

// noticeSkipped turns a skipNotice into a NOTICE for the client and nil;
// any other error is returned as is.
func (s *Session) noticeSkipped(err error) error {
	if err == nil {
		return nil // errors.As would move sk to the heap for nothing
	}
	var sk skipNotice
	if !errors.As(err, &sk) {
		return err
	}
	s.addNotice(sk.e)
	return nil
}

// addNotice queues a NOTICE for the client.
func (s *Session) addNotice(e *repr.Error) {
	s.notices = append(s.notices, Notice{Severity: "NOTICE", Err: e})
}

// Notice is a message for the client that is not an error.
type Notice struct {
	// Severity is WARNING, NOTICE or INFO.
	Severity string
	Err      *repr.Error
}

// Notices returns and clears the notices of the last statement.
func (s *Session) Notices() []Notice {
	n := s.notices
	s.notices = nil
	return n
}

// Failed is told that an error was reported to the client: as in
// PostgreSQL, any error inside a block fails the block, whatever raised it
// (parsing, binding, the protocol layer or execution). An implicit block
// (implicit.go) rolls back at once.
func (s *Session) Failed() {
	if s.blk.implicit {
		s.abortImplicit()
		return
	}
	if s.tx == txBlock {
		s.tx = txFailed
	}
}

// markQueried notes that the block ran a query or a write.
func (s *Session) markQueried() {
	if s.tx != txIdle {
		s.blk.queried = true
		s.pinSnapshot()
	}
}

// txModes are the modes of BEGIN or SET TRANSACTION; "" or nil when not
// given.
type txModes struct {
	isolation string
	readOnly  *bool
}

// parseTxModes reads the DefElems of a transaction mode list.
func parseTxModes(opts []*pg.Node) (txModes, error) {
	var m txModes
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		c := d.Arg.GetAConst()
		switch d.Defname {
		case "transaction_isolation":
			if c != nil && c.GetSval() != nil {
				m.isolation = c.GetSval().Sval
			}
		case "transaction_read_only":
			ro := c != nil && c.GetIval() != nil && c.GetIval().Ival != 0
			m.readOnly = &ro
		case "transaction_deferrable":
			// Only meaningful for SERIALIZABLE READ ONLY; accepted.
		default:
			return m, repr.Unsupported("transaction mode %s", d.Defname)
		}
	}
	return m, nil
}

// checkIsolation accepts PostgreSQL's isolation levels, all of which
// Eddy gives (see above).
func checkIsolation(level string) error {
	switch strings.ToLower(level) {
	case "read uncommitted", "read committed", "repeatable read", "serializable":
		return nil
	}
	return repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"transaction_isolation\": \"%s\"", level)
}

// applyTxModes sets the open block's modes.
func (s *Session) applyTxModes(m txModes) {
	if m.isolation != "" {
		s.settings.vals["transaction_isolation"] = strings.ToLower(m.isolation)
	}
	if m.readOnly != nil {
		s.settings.vals["transaction_read_only"] = onOff(*m.readOnly)
	}
}

// setTransaction executes SET TRANSACTION (for the open block) and SET
// SESSION CHARACTERISTICS AS TRANSACTION (the session's defaults).
func (s *Session) setTransaction(name string, args []*pg.Node) error {
	m, err := parseTxModes(args)
	if err != nil {
		return err
	}
	if m.isolation != "" {
		if err := checkIsolation(m.isolation); err != nil {
			return err
		}
	}
	if name == "session characteristics" {
		if m.isolation != "" {
			s.setting("default_transaction_isolation", strings.ToLower(m.isolation), false)
		}
		if m.readOnly != nil {
			s.setting("default_transaction_read_only", onOff(*m.readOnly), false)
		}
		return nil
	}
	if s.tx == txIdle {
		s.notify(errOnlyInBlock.New("SET TRANSACTION"))
		return nil
	}
	return s.setTxModesInBlock(m)
}

// setTxModesInBlock changes the open block's modes, which PostgreSQL
// allows only before its first query (except switching to READ ONLY).
func (s *Session) setTxModesInBlock(m txModes) error {
	if s.blk.queried {
		if m.isolation != "" && strings.ToLower(m.isolation) != s.settings.vals["transaction_isolation"] {
			return errIsolationLate
		}
		if m.readOnly != nil && !*m.readOnly && s.readOnly() {
			return errReadWriteLate
		}
	}
	s.applyTxModes(m)
	return nil
}

// readOnly reports whether the current (or next autocommit) transaction
// is read-only.
func (s *Session) readOnly() bool {
	if s.tx == txIdle {
		return s.settings.vals["default_transaction_read_only"] == "on"
	}
	return s.settings.vals["transaction_read_only"] == "on"
}

// checkWritable refuses a write in a read-only transaction with 25006.
func (s *Session) checkWritable(n *pg.Node) error {
	if !s.readOnly() {
		return nil
	}
	if name, ok := writeCommandName(n); ok {
		return errReadOnlyTx.New(name)
	}
	return nil
}

// checkWritableExt refuses an extension statement other than SUBSCRIBE
// (they all change the catalog) in a read-only transaction.
func (s *Session) checkWritableExt(x parse.Ext) error {
	if _, ok := x.(*parse.Subscribe); ok || !s.readOnly() {
		return nil
	}
	return errReadOnlyTx.New(x.Construct())
}

// checkSequenceWrite refuses nextval and setval in a read-only
// transaction, as PostgreSQL does.
func (s *Session) checkSequenceWrite(fn string) error {
	if s.readOnly() {
		return errReadOnlyTx.New(fn + "()")
	}
	return nil
}

// writeCommandName is PostgreSQL's command name of a statement that
// writes (tables or the catalog), as read-only errors name it.
func writeCommandName(n *pg.Node) (string, bool) {
	switch {
	case n == nil:
		return "", false
	case n.GetInsertStmt() != nil:
		return "INSERT", true
	case n.GetUpdateStmt() != nil:
		return "UPDATE", true
	case n.GetDeleteStmt() != nil:
		return "DELETE", true
	case n.GetTruncateStmt() != nil:
		return "TRUNCATE TABLE", true
	case n.GetCopyStmt() != nil:
		return "COPY FROM", n.GetCopyStmt().IsFrom
	case n.GetCreateStmt() != nil:
		return "CREATE TABLE", true
	case n.GetViewStmt() != nil:
		return "CREATE VIEW", true
	case n.GetCreateFunctionStmt() != nil:
		return "CREATE FUNCTION", true
	case n.GetCreateTableAsStmt() != nil && n.GetCreateTableAsStmt().Objtype == pg.ObjectType_OBJECT_TABLE:
		return "CREATE TABLE AS", true
	case n.GetCreateTableAsStmt() != nil:
		return "CREATE MATERIALIZED VIEW", true
	case n.GetIndexStmt() != nil:
		return "CREATE INDEX", true
	case n.GetDropStmt() != nil:
		return "DROP", true
	case n.GetCreateSeqStmt() != nil:
		return "CREATE SEQUENCE", true
	case n.GetCompositeTypeStmt() != nil, n.GetCreateEnumStmt() != nil:
		return "CREATE TYPE", true
	case n.GetAlterEnumStmt() != nil:
		return "ALTER TYPE", true
	case n.GetAlterSeqStmt() != nil:
		return "ALTER SEQUENCE", true
	case n.GetAlterTableStmt() != nil:
		return "ALTER TABLE", true
	case n.GetRenameStmt() != nil:
		return "ALTER", true
	case n.GetAlterFunctionStmt() != nil:
		return "ALTER FUNCTION", true
	case n.GetCommentStmt() != nil:
		return "COMMENT", true
	case n.GetRefreshMatViewStmt() != nil:
		return "REFRESH MATERIALIZED VIEW", true
	case n.GetReindexStmt() != nil:
		return "REINDEX", true
	case n.GetSelectStmt() != nil && hasModifyingCTE(n):
		return "SELECT", true
	case len(n.GetSelectStmt().GetLockingClause()) > 0:
		return "SELECT " + planner.LockName(n.GetSelectStmt()), true
	}
	return "", false
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// takesSnapshot reports whether n reads or writes data, after which a
// block's isolation level is fixed (PostgreSQL: "before any query").
func takesSnapshot(n *pg.Node) bool {
	return n != nil && (n.GetSelectStmt() != nil || n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil ||
		n.GetDeleteStmt() != nil || n.GetDeclareCursorStmt() != nil || n.GetExecuteStmt() != nil ||
		n.GetCopyStmt() != nil || n.GetTruncateStmt() != nil)
}
