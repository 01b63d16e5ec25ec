package sql

import (
	"context"
	"maps"
	"slices"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// Transactional DDL.
//
// DDL inside a transaction block (explicit, or the implicit block of a
// multi-statement Query) runs at once against the engine, as in
// autocommit, with three differences that make the block atomic:
//
//   - Its durable writes are deferred: every DDL statement's batch is
//     appended to the block's batch (ddlTx.batch) instead of being
//     committed, and COMMIT writes that batch together with the block's
//     write set in one synced Pebble batch. A crash before COMMIT leaves
//     nothing of the block on disk.
//   - Before each DDL statement the engine's catalog-level state is
//     saved (engineSnap: the catalog's maps, the collections, views,
//     sequences, roles and each collection's index list, plus the
//     position in the deferred batch). The catalog code changes objects
//     copy-on-write (clone, then replace), so a saved map still holds the
//     old objects. ROLLBACK restores the first snapshot, ROLLBACK TO a
//     savepoint the first one taken after it.
//   - The block is exclusive from its first DDL statement to its end: the
//     session becomes the owner of the engine's txGate, which waits for the
//     statements of other sessions to finish and holds every later one
//     (reads included) until COMMIT or ROLLBACK, and source batches and
//     ticks wait too. Other sessions therefore never see uncommitted DDL
//     (they wait, as a PostgreSQL session waits for the ACCESS EXCLUSIVE
//     lock of an ALTER TABLE; coarser, but migrations are short), no
//     other commit interleaves with the block (so a snapshot is never
//     undone over someone else's write, and no log record lands between
//     the checkpoint taken when the block's DDL began and its COMMIT but
//     those of commits that ddlidle.go lets in).
//
// Only while one of its statements runs: between them the block's DDL is
// swapped out and other sessions' reads, writes and subscriptions, source
// batches and ticks run against the committed state (ddlidle.go); their
// DDL still waits for the block. Sources and sinks (CREATE SOURCE/SINK and
// other Eddy extension statements) and DROPs that reach a source or a
// sink are refused inside a block with 25001, as PostgreSQL refuses
// CREATE DATABASE: their connectors act on the outside world at once.

// ddlTx is the catalog side of a transaction block that ran DDL. It is
// set (e.ddl, under e.mu) only while its owner holds the txGate.
type ddlTx struct {
	owner *Session
	// batch holds the block's DDL writes, deferred to COMMIT.
	batch *storage.Batch
	// undo[i] is the engine before the block's i-th DDL statement.
	undo []*engineSnap
	// dropped are the objects the block dropped: their subscriptions end
	// at COMMIT (a rollback brings the objects back).
	dropped []*Object
	// done is closed when the block ends, out when its state is swapped
	// out or it ends (out is closed exactly while active is set): source
	// batches wait on them (waitDDLLocked).
	done, out chan struct{}
	// active is the block's state while it is swapped out between its
	// statements (nil: swapped in), idleAt the clock when it was, and
	// stale the error of a swap-in that found it outdated (ddlidle.go).
	active *engineSnap
	idleAt repr.Time
	stale  error
	// held, while the block is swapped out, are the collections whose
	// change would outdate it: its DDL's dependencies and, transitively,
	// every collection they read (ddlidle.go).
	held map[uint64]bool
}

// engineSnap is the engine's catalog-level state at one moment.
type engineSnap struct {
	byID    map[uint64]*Object
	byName  map[string]*Object
	schemas map[string]*Schema
	defACLs []*DefaultACL
	objACLs *objectACLs
	colls   map[uint64]*storage.Collection
	indexes map[uint64]storage.IndexSet
	views   map[uint64]*matView
	objs    map[uint64]*Object // each view's obj
	seqs    map[string]*seqState
	// pending are the block's pending rows of the tables whose shape the
	// statement changed, as they were before (reshapePending).
	pending map[uint64][]repr.Update
	roles   map[string]*Role
	nextOID uint32
	mark    storage.Mark
}

// snapshotLocked saves the engine's catalog-level state (see ddlTx). The
// caller holds e.mu and e.ddl is set.
func (e *Engine) snapshotLocked() *engineSnap {
	sn := &engineSnap{byID: maps.Clone(e.cat.byID), byName: maps.Clone(e.cat.byName),
		schemas: maps.Clone(e.cat.schemas), defACLs: e.cat.defACLs, objACLs: e.cat.objACLs, colls: maps.Clone(e.colls), views: maps.Clone(e.views),
		indexes: map[uint64]storage.IndexSet{}, objs: map[uint64]*Object{}}
	if e.ddl != nil {
		sn.mark = e.ddl.batch.Mark()
	}
	for id, c := range e.colls {
		sn.indexes[id] = c.SaveIndexes()
	}
	for id, mv := range e.views {
		sn.objs[id] = mv.obj
	}
	e.seqMu.Lock()
	sn.seqs = maps.Clone(e.seqs)
	e.seqMu.Unlock()
	e.roles.mu.RLock()
	sn.roles, sn.nextOID = e.roles.byName, e.roles.nextOID
	e.roles.mu.RUnlock()
	return sn
}

// restoreLocked makes sn the engine's state again, except for the
// temporary views of SUBSCRIBE, which come and go with their subscribers
// (the current ones stay). The catalog version moves forward, never back,
// so plans cached meanwhile are stale. The caller holds e.mu.
func (e *Engine) restoreLocked(sn *engineSnap) {
	e.restoreStateLocked(sn)
	if e.ddl != nil {
		e.ddl.batch.RollbackTo(sn.mark)
	}
}

// restoreStateLocked is restoreLocked leaving the block's deferred batch
// alone (swapping a block's DDL out and in, ddlidle.go).
func (e *Engine) restoreStateLocked(sn *engineSnap) {
	e.cat.byID, e.cat.byName, e.cat.schemas = maps.Clone(sn.byID), maps.Clone(sn.byName), maps.Clone(sn.schemas)
	e.cat.defACLs = sn.defACLs
	e.cat.objACLs = sn.objACLs
	e.cat.version++
	colls, views := maps.Clone(sn.colls), maps.Clone(sn.views)
	for id, mv := range sn.views {
		if mv.transient {
			delete(views, id)
			delete(colls, id)
		}
	}
	for id, mv := range e.views {
		if mv.transient {
			views[id], colls[id] = mv, e.colls[id]
		}
	}
	for id, mv := range views {
		if o := sn.objs[id]; o != nil {
			mv.obj = o
		}
	}
	for id, c := range colls {
		if ix, ok := sn.indexes[id]; ok {
			c.RestoreIndexes(ix)
		}
	}
	e.colls, e.views = colls, views
	e.restoreSeqs(sn)
	e.roles.mu.Lock()
	e.roles.byName, e.roles.nextOID = sn.roles, sn.nextOID
	e.roles.mu.Unlock()
	e.idxMu.Lock()
	e.indexes = map[string]*keyIndex{}
	e.idxMu.Unlock()
}

// restoreSeqs makes sn's sequences the engine's, under e.seqMu. The
// caller holds e.mu.
func (e *Engine) restoreSeqs(sn *engineSnap) {
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	e.seqs = maps.Clone(sn.seqs)
	for name, st := range e.seqs {
		// a rename, SET SCHEMA or new definition rolled back: the key
		// and the restored catalog entry are the truth
		st.dropped, st.name = false, name
		if o := e.cat.byID[st.id]; o != nil && o.Sequence != nil {
			st.def = o.Sequence
		}
	}
}

// commitDDL makes a DDL statement's batch durable: at once, or, inside a
// block with DDL, at the block's COMMIT (the batch is appended to the
// block's). The caller holds e.mu (or, for roles, is the block's owner).
func (e *Engine) commitDDL(b *storage.Batch) error {
	if e.ddl != nil {
		e.ddl.batch.Append(b)
		return e.ddl.batch.Err()
	}
	if e.atomic != nil {
		e.atomic.Append(b)
		return e.atomic.Err()
	}
	return e.db.Commit(b)
}

// guardLocked runs fn, a DDL step under e.mu that changes the catalog
// in memory before its writes are durable, so that a panic in it (a bug)
// restores the catalog-level state (engineSnap) and the clock before the
// panic goes on to the statement's recovery (XX000): a half-applied
// catalog change never stays. Inside a block with DDL the block's undo
// does this already.
func (e *Engine) guardLocked(fn func() error) error {
	if e.ddl != nil {
		return fn()
	}
	defer e.restoreOnPanic(e.snapshotLocked(), e.clock)
	return fn()
}

// restoreOnPanic, deferred under e.mu, makes sn and clock the engine's
// state again when a panic passes, then lets it go on.
func (e *Engine) restoreOnPanic(sn *engineSnap, clock repr.Time) {
	if r := recover(); r != nil {
		e.log.Error("panic in a catalog change; restoring the catalog", "panic", r)
		e.restoreLocked(sn)
		e.clock = clock
		panic(r)
	}
}

// atomically runs fn, one statement's several DDL steps, so that their
// writes (commitDDL) go to one batch committed at its end: a crash
// leaves all of them or none. Inside a block with DDL they already go to
// the block's batch. When fn or the commit fails, the engine's
// catalog-level state is restored (engineSnap; sinks fn removed stay
// stopped until a restart reloads them), also when fn panics (the panic
// then goes on). The caller holds e.mu.
func (e *Engine) atomically(fn func() error) error {
	if e.ddl != nil || e.atomic != nil {
		return fn()
	}
	sn := e.snapshotLocked()
	e.atomic = e.db.NewBatch()
	defer func() {
		e.atomic.Close()
		e.atomic = nil
	}()
	defer e.restoreOnPanic(sn, e.clock)
	err := fn()
	if err == nil {
		err = e.db.Commit(e.atomic)
	}
	if err != nil {
		e.restoreLocked(sn)
	}
	return err
}

// inDDLBlock reports whether a block with DDL is open (its owner is the
// only session running statements). The caller holds e.mu.
func (e *Engine) inDDLBlock() bool { return e.ddl != nil }

// waitDDLLocked waits, releasing e.mu meanwhile, until a batch of source
// id may commit: no block with DDL is open, or it is swapped out and does
// not hold the source (ddlidle.go).
func (e *Engine) waitDDLLocked(id uint64) {
	for d := e.ddl; d != nil && (d.active == nil || d.held[id]); d = e.ddl {
		ch := d.done
		if d.active == nil {
			ch = d.out
		}
		e.mu.Unlock()
		<-ch
		e.mu.Lock()
	}
}

// beginDDL prepares a DDL statement of the session's open block: the
// session becomes the gate's owner (waiting for other statements to
// finish), the first DDL statement checkpoints (so the block's COMMIT is
// the only log record after it) and opens the block's ddlTx, and every
// one saves the engine's state for ROLLBACK and ROLLBACK TO.
func (s *Session) beginDDL(ctx context.Context) error {
	e := s.e
	lctx, stop := s.lockContext(ctx)
	err := e.gate.own(lctx, s)
	stop()
	if err != nil {
		return err
	}
	if first, err := s.snapshotForDDLLocking(); err != nil {
		if first {
			e.gate.release(s)
		}
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ddl == nil {
		if err := e.checkpointLocked(); err != nil {
			return err
		}
		e.ddl = &ddlTx{owner: s, batch: e.db.NewBatch(), done: make(chan struct{}), out: make(chan struct{})}
		e.roles.mu.Lock()
		e.roles.committed = e.roles.byName
		e.roles.mu.Unlock()
	}
	e.ddl.undo = append(e.ddl.undo, e.snapshotLocked())
	return nil
}

// snapshotForDDLLocking is snapshotForDDL under the engine's lock; first
// reports whether the session did not own the block's DDL yet.
func (s *Session) snapshotForDDLLocking() (first bool, err error) {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := s.snapshotForDDL(); err != nil {
		return e.ddl == nil || e.ddl.owner != s, err
	}
	return false, nil
}

// ddlCount is the number of DDL statements the session's block ran (for
// savepoints).
func (s *Session) ddlCount() int {
	if s.ownsDDL() {
		return len(s.e.ddl.undo)
	}
	return 0
}

// rollbackDDLTo undoes the block's DDL statements after the first n.
func (s *Session) rollbackDDLTo(n int) {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.ddl
	if d == nil || d.owner != s || len(d.undo) <= n {
		return
	}
	for i := len(d.undo) - 1; i >= n; i-- {
		s.restorePending(d.undo[i].pending)
	}
	e.restoreLocked(d.undo[n])
	d.undo = d.undo[:n]
}

// reshapePending converts the block's pending rows of table to the shape
// an ALTER TABLE gives its rows, saving the old ones in the statement's
// snapshot for ROLLBACK TO. The caller holds e.mu.
func (s *Session) reshapePending(table uint64, conv func(repr.Row) (repr.Row, error)) error {
	old := s.ws.pending(table)
	if len(old) == 0 {
		return nil
	}
	nu := make([]repr.Update, len(old))
	for i, u := range old {
		r, err := conv(u.Row)
		if err != nil {
			return err
		}
		nu[i] = repr.Update{Row: r, Diff: u.Diff}
	}
	if d := s.e.ddl; d != nil && d.owner == s && len(d.undo) > 0 {
		sn := d.undo[len(d.undo)-1]
		if sn.pending == nil {
			sn.pending = map[uint64][]repr.Update{}
		}
		if _, ok := sn.pending[table]; !ok {
			sn.pending[table] = old
		}
	}
	s.ws.changes[table] = nu
	return nil
}

// restorePending puts back pending rows saved by reshapePending, as far
// as the write set (already cut back to a savepoint) still holds rows.
func (s *Session) restorePending(saved map[uint64][]repr.Update) {
	for id, rows := range saved {
		cur := s.ws.changes[id]
		copy(cur, rows[:min(len(rows), len(cur))])
	}
}

// endDDL ends the session's block's DDL: undone unless committed already
// (commitDDLBlock), then the gate opens.
func (s *Session) endDDL() {
	e := s.e
	if !e.gate.ownedBy(s) {
		return
	}
	defer e.gate.release(s)
	e.writeLocked(func() {
		if d := e.ddl; d != nil && d.owner == s {
			if len(d.undo) > 0 {
				e.restoreLocked(d.undo[0])
			}
			e.closeDDLLocked()
		}
	})
}

// closeDDLLocked forgets the open ddlTx and wakes the writers waiting
// for it. The caller holds e.mu.
func (e *Engine) closeDDLLocked() {
	d := e.ddl
	e.ddl = nil
	e.roles.mu.Lock()
	e.roles.committed = nil
	e.roles.mu.Unlock()
	_ = d.batch.Close()
	close(d.done)
	if d.active == nil {
		close(d.out)
	}
}

// commitDDLBlock commits a block that ran DDL: the deferred DDL writes and
// the write set (its changes to tables the block dropped left out) in one
// synced batch, so a restart sees all of the block or none of it. On a
// failure the DDL is undone too, as PostgreSQL's failed COMMIT rolls back
// everything.
func (s *Session) commitDDLBlock(ws *writeSet) error {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.ddl
	if err := e.committer.broken; err != nil {
		return err
	}
	if err := e.db.CheckSpace(); err != nil {
		return err
	}
	if d.stale != nil {
		return d.stale
	}
	ws = e.liveWrites(ws)
	b := e.committer.groupBatch(e.db)
	b.Append(d.batch)
	e.logClock(b) // the block's DDL logged older clocks than later commits
	var m groupMember
	if !ws.empty() {
		t, deltas, err := e.applyOne(ws, b)
		if err != nil {
			return err
		}
		m = groupMember{t, deltas}
	}
	if err := e.db.Commit(b); err != nil {
		e.committer.broken = repr.Errorf(repr.CodeInternal,
			"could not make a commit durable; restart the server to recover the last durable state: %v", err)
		return e.committer.broken
	}
	d.undo = nil // committed: nothing to undo
	e.closeDDLLocked()
	e.forgetSources(d.dropped)
	e.endSubscriptions(d.dropped)
	e.recheckSubscriptions()
	if m.deltas != nil {
		e.publish(m.t, m.deltas)
		e.committed(1)
	}
	return nil
}

// liveWrites returns ws without the changes to tables that no longer
// exist (dropped later in the block, whose rows the DROP removes anyway).
func (e *Engine) liveWrites(ws *writeSet) *writeSet {
	if ws == nil {
		return &writeSet{}
	}
	out := &writeSet{}
	for _, id := range ws.order {
		if e.cat.byID[id] != nil && e.colls[id] != nil {
			for _, u := range ws.changes[id] {
				out.add(id, u.Row, u.Diff)
			}
		}
	}
	return out
}

// ddlInBlock is called before each statement of an open block: a
// statement that changes the catalog becomes part of the block's DDL
// (beginDDL); one that cannot be undone is refused with 25001.
func (s *Session) ddlInBlock(ctx context.Context, st *parse.Stmt) error {
	switch x := st.Ext.(type) {
	case nil, *parse.EmitOnWindowClose:
	case *parse.Subscribe:
		return s.checkSubscribeInBlock()
	default:
		if s.blk.implicit {
			// Scripts create sources with their views in one string:
			// what came before commits, the statement runs alone, and
			// the statements after it form a new implicit block.
			return s.endTx()
		}
		return errNotInBlock.New(x.Construct())
	}
	if !changesCatalog(st.AST) {
		return nil
	}
	return s.beginDDL(ctx)
}

// checkSubscribeInBlock refuses SUBSCRIBE in a block that ran DDL: a
// subscription outlives the block, and what it reads may be undone.
func (s *Session) checkSubscribeInBlock() error {
	if s.ownsDDL() {
		return errNotInBlock.New("SUBSCRIBE after DDL")
	}
	return nil
}

// ownsDDL reports whether the session's block ran DDL (it owns the open
// ddlTx).
func (s *Session) ownsDDL() bool {
	d := s.e.ddl
	return d != nil && d.owner == s
}

// changesCatalog reports whether a statement may change the catalog,
// roles or schemas (anything but queries, writes to tables, session and
// transaction control, cursors and notifications).
func changesCatalog(n *pg.Node) bool {
	if n == nil {
		return false
	}
	if d := n.GetDiscardStmt(); d != nil { // DISCARD TEMP and ALL drop temporary objects
		return d.Target == pg.DiscardMode_DISCARD_TEMP || d.Target == pg.DiscardMode_DISCARD_ALL
	}
	switch n.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt,
		*pg.Node_TruncateStmt, *pg.Node_CopyStmt, *pg.Node_TransactionStmt, *pg.Node_VariableSetStmt,
		*pg.Node_VariableShowStmt, *pg.Node_FetchStmt, *pg.Node_DeclareCursorStmt, *pg.Node_ClosePortalStmt,
		*pg.Node_PrepareStmt, *pg.Node_ExecuteStmt, *pg.Node_DeallocateStmt, *pg.Node_DiscardStmt,
		*pg.Node_ExplainStmt, *pg.Node_ListenStmt, *pg.Node_UnlistenStmt, *pg.Node_NotifyStmt,
		*pg.Node_RefreshMatViewStmt: // a no-op: views are always fresh
		return false
	}
	return true
}

// txGate orders statements against blocks with DDL: a statement holds a
// shared slot while it runs; a session whose block runs DDL owns the gate
// from that statement to the block's end, once every shared slot is
// free, and meanwhile only the owner runs statements. Statements that
// must wait (for a slot while the gate is owned or an owner waits, or to
// own it) queue in arrival order, as in PostgreSQL's lock queue: a
// statement waiting for a slot enters once no one owns the gate and no
// session waiting to own it arrived before it, so a block's DDL neither
// overtakes autocommit statements (DDL too) that were waiting before it
// nor is starved by those that come after. Nested entries of one session
// (EXECUTE, cursors) share its slot.
//
// The gate is the only lock a statement waits for (row locks are never
// waited on, rowlocks.go), and the owner waits only for statements
// running without a wait of their own, so waits form no cycle: no
// deadlock to detect (PostgreSQL's 40P01 cannot arise).
type txGate struct {
	mu     sync.Mutex
	shared int
	owner  *Session
	// queue are the statements waiting, first come first: to own the
	// gate, or for a shared slot.
	queue []*gateWaiter
	// idle: the owner is between statements and its DDL is swapped out
	// (ddlidle.go), so other sessions' statements may take shared slots.
	idle bool
	// changed is closed (and forgotten) whenever the gate opens a little.
	changed chan struct{}
}

// gateWaiter is a statement waiting at the gate: of s (nil: a background
// writer), to own the gate or for a shared slot.
type gateWaiter struct {
	s   *Session
	own bool
}

// ownerAheadLocked reports whether a session waiting to own the gate
// queued before w (w nil or not queued: anywhere in the queue). The
// caller holds g.mu.
func (g *txGate) ownerAheadLocked(w *gateWaiter) bool {
	for _, q := range g.queue {
		if q == w {
			return false
		}
		if q.own {
			return true
		}
	}
	return false
}

// dequeueLocked removes w from the queue, waking the waiters behind it.
// The caller holds g.mu.
func (g *txGate) dequeueLocked(w *gateWaiter) {
	if w == nil {
		return
	}
	g.queue = slices.DeleteFunc(g.queue, func(q *gateWaiter) bool { return q == w })
	g.signalLocked()
}

// signalLocked wakes the waiters. The caller holds g.mu.
func (g *txGate) signalLocked() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

// waitLocked returns a channel closed at the next change, releasing g.mu
// for the caller to wait on it.
func (g *txGate) waitLocked() chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	ch := g.changed
	g.mu.Unlock()
	return ch
}

// enter takes a shared slot for a statement of s (nil: a background
// writer), waiting while another session owns the gate or waits to; it
// fails with 57014 if ctx ends first.
func (g *txGate) enter(ctx context.Context, s *Session) error {
	_, err := g.enterMode(ctx, s, false)
	return err
}

// enterMode is enter for a statement that may also run while the owner
// is idle (whileIdle; see ddlidle.go). For the owner it reports whether
// it was idle (its DDL must be swapped back in), once the statements
// that entered meanwhile have left.
func (g *txGate) enterMode(ctx context.Context, s *Session, whileIdle bool) (wasIdle bool, err error) {
	if s != nil && s.gateDepth > 0 {
		s.gateDepth++
		return false, nil
	}
	var w *gateWaiter // queued once it must wait
	for {
		g.mu.Lock()
		if s != nil && g.owner == s {
			if g.idle { // no one else enters from now on
				wasIdle, g.idle = true, false
			}
			if g.shared > 0 {
				ch := g.waitLocked()
				select {
				case <-ch:
					continue
				case <-ctx.Done():
					if wasIdle { // still swapped out: the others may go on
						g.setIdle(s)
					}
					return false, canceled(ctx)
				}
			}
			g.mu.Unlock()
			s.gateDepth = 1
			return wasIdle, nil
		}
		if g.owner == nil && !g.ownerAheadLocked(w) || g.owner != nil && g.idle && whileIdle && s != nil {
			g.shared++
			g.dequeueLocked(w)
			g.mu.Unlock()
			if s != nil {
				s.gateDepth, s.gateShared = 1, true
			}
			return false, nil
		}
		if w == nil {
			w = &gateWaiter{s: s}
			g.queue = append(g.queue, w)
		}
		ch := g.waitLocked()
		if s != nil {
			s.lockWait.Store(true)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if s != nil {
				s.lockWait.Store(false)
			}
			g.mu.Lock()
			g.dequeueLocked(w)
			g.mu.Unlock()
			return false, canceled(ctx)
		}
		if s != nil {
			s.lockWait.Store(false)
		}
	}
}

// leave ends a statement's entry. It reports whether s is the owner and
// its statement ended (the caller swaps its DDL out and calls setIdle).
func (g *txGate) leave(s *Session) (ownerDone bool) {
	if s != nil {
		if s.gateDepth--; s.gateDepth > 0 {
			return false
		}
		if !s.gateShared {
			return g.ownedBy(s)
		}
		s.gateShared = false
	}
	g.mu.Lock()
	g.shared--
	if g.shared == 0 {
		g.signalLocked()
	}
	g.mu.Unlock()
	return false
}

// setIdle marks the owner s idle: other sessions' statements may run.
func (g *txGate) setIdle(s *Session) {
	g.mu.Lock()
	if g.owner == s {
		g.idle = true
		g.signalLocked()
	}
	g.mu.Unlock()
}

// pause gives up the shared slot of s's statement in the middle of it (a
// backfill's long phase without the engine lock), so that a block can own
// the gate meanwhile; it reports whether there was one to give up, which
// resume then takes back.
func (g *txGate) pause(s *Session) bool {
	if s == nil || !s.gateShared || s.gateDepth != 1 {
		return false
	}
	g.mu.Lock()
	s.gateShared = false
	if g.shared--; g.shared == 0 {
		g.signalLocked()
	}
	g.mu.Unlock()
	return true
}

// resume takes a shared slot back for s's paused statement, waiting as
// enterMode does; it fails with 57014 if ctx ends first.
func (g *txGate) resume(ctx context.Context, s *Session, whileIdle bool) error {
	for {
		g.mu.Lock()
		if g.owner == nil && !g.ownerAheadLocked(nil) || g.owner != nil && g.idle && whileIdle {
			g.shared++
			s.gateShared = true
			g.mu.Unlock()
			return nil
		}
		ch := g.waitLocked()
		select {
		case <-ch:
		case <-ctx.Done():
			return canceled(ctx)
		}
	}
}

// outside runs fn, a wait or work without the engine, with the shared
// slot of s's statement given up meanwhile (pause) and taken back after
// (resume, whileIdle as in enterMode).
func (g *txGate) outside(ctx context.Context, s *Session, whileIdle bool, fn func() error) error {
	paused := g.pause(s)
	err := fn()
	if paused {
		if rerr := g.resume(ctx, s, whileIdle); err == nil {
			err = rerr
		}
	}
	return err
}

// own makes s the owner, giving up its statement's shared slot and
// waiting until no other statement runs and no one else owns the gate.
func (g *txGate) own(ctx context.Context, s *Session) error {
	g.mu.Lock()
	if g.owner == s {
		g.mu.Unlock()
		return nil
	}
	if s.gateShared {
		s.gateShared = false
		g.shared--
	}
	w := &gateWaiter{s: s, own: true}
	g.queue = append(g.queue, w)
	for g.owner != nil || g.shared > 0 || g.queue[0] != w {
		ch := g.waitLocked()
		s.lockWait.Store(true)
		select {
		case <-ch:
		case <-ctx.Done():
			s.lockWait.Store(false)
			g.mu.Lock()
			g.dequeueLocked(w)
			g.mu.Unlock()
			return canceled(ctx)
		}
		s.lockWait.Store(false)
		g.mu.Lock()
	}
	g.queue = g.queue[1:]
	g.owner = s
	g.mu.Unlock()
	return nil
}

// ownedBy reports whether s owns the gate.
func (g *txGate) ownedBy(s *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.owner == s
}

// release ends s's ownership.
func (g *txGate) release(s *Session) {
	g.mu.Lock()
	if g.owner == s {
		g.owner, g.idle = nil, false
		g.signalLocked()
	}
	g.mu.Unlock()
}
