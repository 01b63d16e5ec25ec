package sql

import (
	"strings"
	"sync"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Snapshot isolation: REPEATABLE READ and SERIALIZABLE blocks.
//
// At its first statement that reads or writes data (takesSnapshot), a
// block at REPEATABLE READ or SERIALIZABLE pins a txSnapshot: under the
// engine's read lock, so at one committed logical time, it clones every
// stored collection (tables, materialized views, their indexes; O(1)
// each, storage.Collection.Snapshot) and, when some collection is spilled, takes one
// Pebble snapshot that their clones read. Pinning costs O(number of
// collections); writers then pay the B-tree's copy-on-write (each node
// they change is copied once), and the old nodes and the entries
// changed since stay reachable from the clones until the block ends.
// Every later statement of the block reads the clones plus the block's
// own writes (writeSet.snap; readColl is the one accessor). Sequences
// are not snapshotted (PostgreSQL's are not either); the system catalogs
// show the catalog as of the snapshot (catsnap.go).
// A relation created after the snapshot reads as empty (its rows were all
// committed after it); one whose rows another session's ALTER TABLE
// rewrote since fails with 40001; one dropped since is unknown (42P01).
//
// Writes. UPDATE and DELETE find their rows in the snapshot; a row that a
// later commit changed or deleted fails the statement with 40001 "could
// not serialize access due to concurrent update" (checkUnchanged), as
// PostgreSQL does, and COMMIT checks again (a retraction must find its
// row unchanged, commit.go). INSERT ... ON CONFLICT whose conflicting
// row is not the one the snapshot shows fails alike. Plain INSERT checks
// keys against the latest commit (23505), as PostgreSQL does. A row
// changed and changed back to equal values between the snapshot and the
// write is not detected (the write is then the same as on the latest
// state of that row).
//
// SERIALIZABLE is serializable snapshot isolation (ssi.go): a block
// records what it reads (reads: relations read whole; ranges: key ranges
// read through an access path, serialrange.go), and a commit that would
// complete a dangerous structure of rw-dependencies among concurrent
// SERIALIZABLE blocks fails with 40001, checked under the engine lock in
// commit order; other commits go through, even when a row the block read
// changed since its snapshot.
//
// DDL. A block's first DDL statement takes the txGate (ddltxn.go), after
// which nothing else commits until the block ends. If a relation the
// block read changed since its snapshot (or any relation did: the DDL
// acts on the latest rows), the statement fails with 40001; otherwise the
// snapshot equals the live state and the block reads the live state from
// then on (current), which includes its own DDL.
//
// Lifetime and memory. A snapshot is released at COMMIT, ROLLBACK, when
// the session ends, and so when idle_in_transaction_session_timeout ends
// it. Its retained memory is part of the Go heap that the memory budget
// measures (spill.go); when the live heap passes the whole budget at a
// checkpoint, the oldest pinned snapshot is revoked (revokeOldSnapshot):
// its clones are dropped and the block's next read fails with 72000
// "snapshot too old", as PostgreSQL's old_snapshot_threshold does.
//
// SUBSCRIBE inside such a block starts from the snapshot: its first rows
// are the snapshot's, then it receives, as one update at the current
// time, what changed since, then every later commit. Cursors run their
// query at DECLARE, so they read the snapshot too.

// txSnapshot is a block's pinned snapshot.
type txSnapshot struct {
	// t is the logical time of the last commit it shows, seq the last
	// SERIALIZABLE commit's sequence number (ssi.go).
	t            repr.Time
	seq          uint64
	serializable bool
	pinned       time.Time

	mu sync.Mutex
	// colls are the clones by collection ID and from the live collections
	// they were cloned from (a different live one means it was replaced
	// since: an ALTER TABLE rewrote its rows).
	colls map[uint64]*storage.Collection
	from  map[uint64]*storage.Collection
	// store is the store's snapshot spilled clones read (nil: none).
	store *storage.DB
	// reads are the relations the block read whole, ranges the key
	// ranges it read of others and rangeRows the entries found there
	// (SERIALIZABLE only; serialrange.go).
	reads     map[uint64]bool
	ranges    map[uint64][]keyRange
	rangeRows map[uint64]int
	// cat is the catalog as of the snapshot, which the system catalogs
	// show (nil: the live one; catsnap.go).
	cat *Catalog
	// current: the block runs DDL and reads the live state (see above).
	current bool
	// revoked: dropped for memory (72000 at the next read).
	revoked bool
}

// snapshots is the engine's registry of pinned snapshots.
type snapshots struct {
	mu   sync.Mutex
	open map[*txSnapshot]bool
	// cat is the latest frozen copy of the catalog (catsnap.go).
	cat *Catalog
}

// Errors of snapshot isolation, with PostgreSQL's codes and messages.
var (
	errConcurrentUpdate = repr.Errorf(repr.CodeSerializationFailure, "could not serialize access due to concurrent update")
	errReadWriteDep     = repr.Errorf(repr.CodeSerializationFailure,
		"could not serialize access due to read/write dependencies among transactions").
		WithDetail("Reason code: Canceled on commit attempt, a relation the transaction read was rewritten after its snapshot.").
		WithHint("The transaction might succeed if retried.")
	errPivot          = errReadWriteDep.WithDetail("Reason code: Canceled on identification as a pivot, during commit attempt.")
	errOutToPivot     = errReadWriteDep.WithDetail("Reason code: Canceled on conflict out to a committed pivot, during commit attempt.")
	errSnapshotTooOld = repr.Errorf("72000", "snapshot too old").
				WithDetail("The server's memory budget was exceeded and this transaction held the oldest snapshot.")
)

// snapshotLevel reports whether an isolation level reads a snapshot.
func snapshotLevel(level string) bool {
	l := strings.ToLower(level)
	return l == "repeatable read" || l == "serializable"
}

// pinSnapshot pins the block's snapshot if its isolation level asks for
// one and it has none yet (see above).
func (s *Session) pinSnapshot() {
	if s.tx == txIdle || s.ws == nil || s.ws.snap != nil {
		return
	}
	level := s.settings.vals["transaction_isolation"]
	if !snapshotLevel(level) {
		return
	}
	s.ws.snap = s.e.pinSnapshot(strings.EqualFold(level, "serializable"), s.ownsDDL())
}

// pinSnapshot clones every stored collection at the latest committed
// time, or, for a block that already owns the txGate (current: it ran
// DDL, and nothing else commits until it ends), clones nothing and reads
// the live state. The read lock excludes writers; the registry's lock
// orders the clones of concurrent pins (Clone writes the trees'
// copy-on-write contexts).
func (e *Engine) pinSnapshot(serializable, current bool) *txSnapshot {
	sn := &txSnapshot{serializable: serializable, pinned: time.Now(), reads: map[uint64]bool{}, current: current}
	e.mu.RLock()
	defer e.mu.RUnlock()
	e.snaps.mu.Lock()
	defer e.snaps.mu.Unlock()
	sn.t, sn.seq = e.clock, e.ssi.seq
	if e.snaps.open == nil {
		e.snaps.open = map[*txSnapshot]bool{}
	}
	e.snaps.open[sn] = true
	if current {
		return sn
	}
	sn.cat = e.frozenCatalogLocked()
	sn.colls = make(map[uint64]*storage.Collection, len(e.colls))
	sn.from = make(map[uint64]*storage.Collection, len(e.colls))
	for id, c := range e.colls {
		if mv := e.views[id]; mv != nil && mv.transient {
			continue
		}
		if c.Spilled() && sn.store == nil {
			sn.store = e.db.NewSnapshot()
		}
		sn.colls[id], sn.from[id] = c.Snapshot(sn.store), c
	}
	return sn
}

// releaseSnapshot releases the block's snapshot (COMMIT, ROLLBACK, end
// of session). The snapshot's time and read set stay for COMMIT's check.
func (s *Session) releaseSnapshot() {
	if s.ws != nil {
		s.e.releaseSnapshot(s.ws.snap)
	}
}

// releaseSnapshot releases sn (nil: none).
func (e *Engine) releaseSnapshot(sn *txSnapshot) {
	if sn == nil {
		return
	}
	e.snaps.mu.Lock()
	delete(e.snaps.open, sn)
	e.snaps.mu.Unlock()
	sn.mu.Lock()
	defer sn.mu.Unlock()
	sn.drop()
	_ = sn.store.CloseSnapshot()
	sn.store = nil
}

// drop forgets the clones. The caller holds sn.mu.
func (sn *txSnapshot) drop() { sn.colls, sn.from, sn.cat = nil, nil, nil }

// readColl returns the collection id as a statement of the transaction ws
// reads it: the live one, or the block's snapshot of it (nil: none, read
// as empty). The caller holds e.mu shared.
func (e *Engine) readColl(id uint64, ws *writeSet) (*storage.Collection, error) {
	faultReadTable.Inject()
	noteRead(ws, id)
	return e.peekColl(id, ws)
}

// noteRead records that the transaction ws reads collection id whole.
func noteRead(ws *writeSet, id uint64) {
	if ws != nil && ws.snap != nil {
		ws.snap.mu.Lock()
		ws.snap.reads[id] = true
		ws.snap.mu.Unlock()
	}
}

// peekColl is readColl without recording a read (for the checks of
// writes, and reads that record their key ranges instead).
func (e *Engine) peekColl(id uint64, ws *writeSet) (*storage.Collection, error) {
	if ws == nil || ws.snap == nil {
		return e.colls[id], nil
	}
	sn := ws.snap
	sn.mu.Lock()
	defer sn.mu.Unlock()
	switch {
	case sn.revoked:
		return nil, errSnapshotTooOld
	case sn.current:
		return e.colls[id], nil
	}
	c, ok := sn.colls[id]
	if !ok {
		return nil, nil
	}
	if live := e.colls[id]; live != nil && live != sn.from[id] {
		return nil, repr.Errorf(repr.CodeSerializationFailure,
			"could not serialize access: relation %s was altered after the transaction's snapshot", e.relName(id))
	}
	return c, nil
}

// relName is the quoted name of relation id, for messages.
func (e *Engine) relName(id uint64) string {
	if o := e.cat.byID[id]; o != nil {
		return `"` + o.Name + `"`
	}
	return "(dropped)"
}

// snapshotRows returns the rows of collection id as ws reads it, as
// insertions at time t. The caller holds e.mu shared.
func (e *Engine) snapshotRows(id uint64, t repr.Time, ws *writeSet) ([]repr.Update, error) {
	c, err := e.readColl(id, ws)
	if err != nil || c == nil {
		return nil, err
	}
	return scanUpdates(c, t), nil
}

// scanUpdates returns c's rows as insertions at time t.
func scanUpdates(c *storage.Collection, t repr.Time) []repr.Update {
	out := make([]repr.Update, 0, c.Len())
	c.Scan(func(r repr.Row, n int64) bool {
		out = append(out, repr.Update{Row: r, Time: t, Diff: n})
		return true
	})
	return out
}

// readTime is the logical time a statement of ws reads at: the
// snapshot's, or the latest. The caller holds e.mu shared.
func (e *Engine) readTime(ws *writeSet) repr.Time {
	if ws != nil && ws.snap != nil && !ws.snap.isCurrent() {
		return ws.snap.t
	}
	return e.clock
}

// isCurrent reports whether the snapshot reads the live state.
func (sn *txSnapshot) isCurrent() bool {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return sn.current
}

// snapshotOf returns ws's snapshot when it reads clones (nil: ws reads
// the live state).
func snapshotOf(ws *writeSet) *txSnapshot {
	if ws == nil || ws.snap == nil || ws.snap.isCurrent() {
		return nil
	}
	return ws.snap
}

// checkUnchanged fails with 40001 when a row an UPDATE or DELETE found in
// the snapshot (rows, with their multiplicities) has changed in the
// latest committed state of table id. Rows the snapshot does not hold are
// the block's own inserts.
func (e *Engine) checkUnchanged(id uint64, rows []repr.Row, ws *writeSet) error {
	if snapshotOf(ws) == nil {
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	snap, err := e.peekColl(id, ws)
	live := e.colls[id]
	if err != nil || snap == nil {
		return err
	}
	var key []byte
	for _, r := range rows {
		key = snap.Key(key[:0], r)
		sr, sc, ok := snap.Get(key)
		if !ok || repr.CompareRows(sr, r) != 0 {
			continue // the block's own row
		}
		if live == nil {
			return errConcurrentUpdate
		}
		lr, lc, ok := live.Get(key)
		if !ok || lc != sc || !sameEncoding(lr, sr) {
			return errConcurrentUpdate
		}
	}
	return nil
}

// sameEncoding reports whether two rows are equal and print alike (a
// numeric 1.0 and 1.00 are equal but an UPDATE to 1.00 changed the row).
func sameEncoding(a, b repr.Row) bool {
	return repr.CompareRows(a, b) == 0 && string(repr.AppendRow(nil, a)) == string(repr.AppendRow(nil, b))
}

// checkVisible fails with 40001 when row, the committed row an INSERT ...
// ON CONFLICT conflicts with, is not the row the block's snapshot shows
// under its key (PostgreSQL's ExecCheckTupleVisible).
func (e *Engine) checkVisible(id uint64, row repr.Row, ws *writeSet) error {
	if snapshotOf(ws) == nil {
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, u := range ws.pending(id) {
		if u.Diff > 0 && sameEncoding(u.Row, row) {
			return nil // the block's own row
		}
	}
	snap, err := e.peekColl(id, ws)
	if err != nil {
		return err
	}
	if snap == nil {
		return errConcurrentUpdate
	}
	key := snap.Key(nil, row)
	// The statement's outcome depends on the row (DO NOTHING skips it):
	// a read of its key for SERIALIZABLE.
	ws.snap.noteRanges(id, 0, [][2][]byte{{key, storage.KeyPrefixEnd(key)}}, 1)
	sr, _, ok := snap.Get(key)
	if !ok || !sameEncoding(sr, row) {
		return errConcurrentUpdate
	}
	return nil
}

// noteModified records the logical time t at which the collections in
// deltas changed (for SERIALIZABLE's check). The caller holds e.mu.
func (e *Engine) noteModified(t repr.Time, deltas map[uint64][]repr.Update) {
	if e.modTime == nil {
		e.modTime = map[uint64]repr.Time{}
	}
	for id, d := range deltas {
		if len(d) > 0 {
			e.modTime[id] = t
		}
	}
}

// snapshotForDDL is called when the block of s runs a DDL statement,
// once it owns the txGate: a snapshot that is no longer the latest state
// fails the statement with 40001; one that is becomes current (see
// above). The caller holds e.mu.
func (s *Session) snapshotForDDL() error {
	sn := snapshotOf(s.ws)
	if sn == nil {
		return nil
	}
	for _, t := range s.e.modTime {
		if t > sn.t {
			return repr.Errorf(repr.CodeSerializationFailure,
				"could not serialize access: the database changed after the transaction's snapshot, and DDL acts on the latest state").
				WithHint("Run DDL before the first query of a REPEATABLE READ or SERIALIZABLE transaction, or retry it.")
		}
	}
	sn.mu.Lock()
	sn.current = true
	sn.drop()
	sn.mu.Unlock()
	return nil
}

// revokeOldSnapshot drops the clones of the oldest pinned snapshot when
// the live heap is past the whole memory budget (see above). The caller
// holds e.mu.
func (e *Engine) revokeOldSnapshot(live uint64) {
	if e.spill.limit <= 0 || int64(live) <= e.spill.limit {
		return
	}
	e.snaps.mu.Lock()
	var oldest *txSnapshot
	for sn := range e.snaps.open {
		if oldest == nil || sn.pinned.Before(oldest.pinned) {
			oldest = sn
		}
	}
	if oldest != nil {
		delete(e.snaps.open, oldest)
	}
	e.snaps.mu.Unlock()
	if oldest == nil {
		return
	}
	oldest.mu.Lock()
	oldest.revoked = true
	oldest.drop()
	oldest.mu.Unlock()
	e.log.Warn("snapshot too old: revoked the oldest pinned snapshot", "pinned", oldest.pinned, "live_heap", live, "memory_limit", e.spill.limit)
}

// PinnedSnapshots returns the number of pinned snapshots (tests).
func (e *Engine) PinnedSnapshots() int {
	e.snaps.mu.Lock()
	defer e.snaps.mu.Unlock()
	return len(e.snaps.open)
}

// startFromSnapshot makes a subscription opened in a block with a pinned
// snapshot start from it: its snapshot becomes the rows of the relation
// (rv) or query (sql) as the block's snapshot shows them (without the
// block's own writes, which a subscription never sees), at the snapshot's
// time, and what changed between then and the subscription's start
// becomes one catch-up event at the start's time, before the commits that
// follow.
func (s *Session) startFromSnapshot(sub *Subscription, rv *pg.RangeVar, sql string) error {
	sn := snapshotOf(s.ws)
	if rv != nil {
		name := quoteIdent(rv.Relname)
		if rv.Schemaname != "" {
			name = quoteIdent(rv.Schemaname) + "." + name
		}
		sql = "SELECT * FROM " + name
	}
	n, err := parseOne(sql)
	if err != nil {
		return err
	}
	ws := &writeSet{snap: sn}
	q, err := s.e.planQueryIn(n, planner.Options{TimeZone: s.settings.timeZone}, ws)
	if err != nil {
		return err
	}
	rows, err := s.e.runQuery(q, s.evalCtx(), ws)
	if err != nil {
		return err
	}
	then := make([]repr.Update, len(rows))
	diff := make([]repr.Update, 0, len(rows)+len(sub.Snapshot))
	for i, r := range rows {
		then[i] = repr.Update{Row: r, Time: sn.t, Diff: 1}
		diff = append(diff, repr.Update{Row: r, Time: sub.Time, Diff: -1})
	}
	diff = exec.Consolidate(append(diff, sub.Snapshot...))
	sub.Snapshot, sub.Catchup, sub.Time = exec.Consolidate(then), &SubEvent{Time: sub.Time, Updates: diff}, sn.t
	return nil
}
