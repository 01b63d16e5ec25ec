package sql

import (
	"errors"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Row locks: SELECT ... FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE /
// FOR KEY SHARE.
//
// Eddy's transactions are optimistic (first committer wins), so a row
// lock does not make other sessions wait: it is a check at COMMIT, plus
// an entry in the engine's registry of held locks that SKIP LOCKED and
// NOWAIT consult (rowlocks.go). The
// rows a locking query of a block returns (each locked table's row that
// produced a returned row, planner/locking.go) join the block's write set
// as locks, and the block's COMMIT fails with 40001 "could not serialize
// access due to concurrent update" if, under the engine lock and in
// commit order, one of them is no longer the latest committed version of
// that row: a concurrent commit updated or deleted it. A block that
// commits thus behaves as if it had held the locks from its read to its
// COMMIT, which is what FOR UPDATE promises; where PostgreSQL would make
// the other writer wait, Eddy lets it commit and fails the locker
// instead. A block that writes nothing has nothing to validate (it is
// serializable before the other writers). At REPEATABLE READ and
// SERIALIZABLE, locking a row that changed after the snapshot fails at
// once, as in PostgreSQL (checkUnchanged). FOR UPDATE, FOR NO KEY
// UPDATE and FOR SHARE conflict with any change of the row (every UPDATE
// takes at least PostgreSQL's FOR NO KEY UPDATE lock, which conflicts
// with all three); FOR KEY SHARE conflicts only with deleting the row or
// changing its primary key (any change, for a table without one). Outside a
// block a lock ends with its statement, as in PostgreSQL. Locks taken
// after a savepoint survive ROLLBACK TO it (more conflicts, never fewer).
// Rows the block itself inserted are not locked (nobody else sees them).
// A row changed and changed back to equal values between the read and
// COMMIT is not detected, as for UPDATE (isolation.go).

// lockedRow is a row a block locked; keyOnly (FOR KEY SHARE) checks only
// that a row with its primary key is still live.
type lockedRow struct {
	row     repr.Row
	keyOnly bool
}

// lockRows takes the locks of query q over its sorted result rows
// (before OFFSET, LIMIT and the trim to the visible columns) and returns
// the rows to present: the wait policy (rowLockTable.lockRows), then
// the commit-time checks (recordLocks).
func (e *Engine) lockRows(q *planner.Query, rows []repr.Row, ws *writeSet) ([]repr.Row, error) {
	var owner *Session
	if ws != nil {
		owner = ws.owner
	}
	rows, err := e.rowLocks.lockRows(q, rows, owner)
	if err != nil {
		return nil, err
	}
	return rows, e.recordLocks(q, rows, ws)
}

// recordLocks takes the locks of query q over its result rows (before
// they are trimmed to the visible columns): at REPEATABLE READ or
// SERIALIZABLE, 40001 if a locked row changed after the snapshot;
// inside a block, the rows join ws's locks.
func (e *Engine) recordLocks(q *planner.Query, rows []repr.Row, ws *writeSet) error {
	for _, l := range q.Locks {
		id, n := uint64(l.Table.ID), len(l.Table.Columns)
		locked := make([]repr.Row, 0, len(rows))
		for _, r := range rows {
			locked = append(locked, r[l.Col:l.Col+n:l.Col+n])
		}
		if err := e.checkLockable(id, locked, l.KeyOnly, ws); err != nil {
			return err
		}
		if ws != nil {
			ws.lock(id, withoutOwnInserts(locked, ws.pending(id)), l.KeyOnly)
		}
	}
	return nil
}

// checkLockable fails with 40001 when, in a block reading a snapshot,
// one of rows (found in the snapshot) conflicts with the latest commit
// (lockConflict); rows the snapshot does not hold are the block's own.
func (e *Engine) checkLockable(id uint64, rows []repr.Row, keyOnly bool, ws *writeSet) error {
	if !keyOnly {
		return e.checkUnchanged(id, rows, ws)
	}
	if snapshotOf(ws) == nil {
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	snap, err := e.readColl(id, ws)
	if err != nil || snap == nil {
		return err
	}
	live := e.colls[id]
	for _, r := range rows {
		if _, _, ok := snap.Get(snap.Key(nil, r)); ok && lockConflict(live, r, true) {
			return errConcurrentUpdate
		}
	}
	return nil
}

// lockConflict reports whether the latest committed state of a table
// (live) no longer holds locked row r: not under its key, or (unless
// keyOnly) not as the same values.
func lockConflict(live *storage.Collection, r repr.Row, keyOnly bool) bool {
	if live == nil {
		return true
	}
	lr, _, ok := live.Get(live.Key(nil, r))
	return !ok || (!keyOnly && !sameEncoding(lr, r))
}

// withoutOwnInserts drops from rows those that pending (a block's changes
// to their table) inserts.
func withoutOwnInserts(rows []repr.Row, pending []repr.Update) []repr.Row {
	if len(pending) == 0 {
		return rows
	}
	own := map[string]bool{}
	for _, u := range pending {
		if u.Diff > 0 {
			own[rowKey(u.Row)] = true
		}
	}
	out := rows[:0]
	for _, r := range rows {
		if !own[rowKey(r)] {
			out = append(out, r)
		}
	}
	return out
}

// lock adds rows of table to the write set's locks.
func (w *writeSet) lock(table uint64, rows []repr.Row, keyOnly bool) {
	if len(rows) == 0 {
		return
	}
	if w.locks == nil {
		w.locks = map[uint64][]lockedRow{}
	}
	for _, r := range rows {
		w.locks[table] = append(w.locks[table], lockedRow{row: r, keyOnly: keyOnly})
	}
}

// checkLocks fails a commit with 40001 when a row ws locked conflicts
// with the latest commit (lockConflict). The caller holds e.mu.
func (e *Engine) checkLocks(ws *writeSet) error {
	for id, rows := range ws.locks {
		for _, l := range rows {
			if lockConflict(e.colls[id], l.row, l.keyOnly) {
				return errConcurrentUpdate
			}
		}
	}
	return nil
}

// planLockingQuery plans query n of a transaction with write set ws
// (planQueryIn) with its locking blocks below the top level run first
// (withLockedSubqueries).
func (e *Engine) planLockingQuery(n *pg.Node, opts planner.Options, ectx *expr.Ctx, ws *writeSet) (*planner.Query, error) {
	var q *planner.Query
	err := e.withLockedSubqueries(opts, ectx, ws, func(opts planner.Options) (err error) {
		q, err = e.planQueryIn(n, opts, ws)
		return err
	})
	return q, err
}

// withLockedSubqueries calls plan, which plans a statement with opts,
// after running each of the statement's query blocks with a locking
// clause below the top level as a locking query of its own, which locks
// its rows (planner.LockedSubqueries): one planning per such block, in
// the order planning meets them.
func (e *Engine) withLockedSubqueries(opts planner.Options, ectx *expr.Ctx, ws *writeSet, plan func(planner.Options) error) error {
	opts.Locked = &planner.LockedSubqueries{}
	for {
		err := plan(opts)
		var need *planner.NeedLockedRows
		if !errors.As(err, &need) {
			return err
		}
		var res *planner.CTEResult
		if need.Plan != nil {
			_, err = e.runQuery(need.Plan, ectx, ws)
			res = &planner.CTEResult{}
		} else {
			res, err = e.runLockedSubquery(need.Query, opts, ectx, ws)
		}
		if err != nil {
			return err
		}
		opts.Locked.Rows = append(opts.Locked.Rows, res)
	}
}

// runLockedSubquery runs locking query block n, below a statement's top
// level, as a query of its own. A block that names what it cannot see
// alone (the enclosing query's columns, earlier WITH queries) is 0A000.
func (e *Engine) runLockedSubquery(n *pg.Node, opts planner.Options, ectx *expr.Ctx, ws *writeSet) (*planner.CTEResult, error) {
	q, err := e.planLockingQuery(n, opts, ectx, ws)
	if code := repr.ErrorCode(err); code == repr.CodeUndefinedColumn || code == repr.CodeUndefinedTable {
		return nil, repr.Unsupported("%s in a subquery that reads the enclosing query's columns or WITH queries",
			planner.LockName(n.GetSelectStmt()))
	}
	if err != nil {
		return nil, err
	}
	rows, err := e.runQuery(q, ectx, ws)
	if err != nil {
		return nil, err
	}
	return &planner.CTEResult{Columns: q.Columns, Rows: rows}, nil
}
