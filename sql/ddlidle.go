package sql

import (
	"context"
	"encoding/binary"
	"maps"
	"slices"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// A block with DDL does not hold the server between its statements.
//
// The block owns the txGate from its first DDL statement to its end
// (ddltxn.go), and its DDL changes the engine's catalog-level state in
// place. While one of its statements runs, nothing else runs. When the
// statement ends, the block's state is swapped out (saved as an
// engineSnap, ddlTx.active) and the committed state (the block's first
// snapshot, ddlTx.undo[0]) swapped in, and the gate becomes idle: other
// sessions' statements that do not change the catalog (runsWhileIdle)
// run against the committed state, reads and writes alike, and never see
// the block's uncommitted DDL (pg_class does not list its new tables).
// So do SUBSCRIBE (its temporary view stays across the swaps) and FETCH
// (one waiting for a SUBSCRIBE's next commit gives up its slot while it
// waits), source batches (waitDDLLocked) and ticks (holdsTicks), except
// those that would change what the block holds (held: its DDL's
// dependencies below and, transitively, what they read), which would
// only make it fail: they wait for its end. Periodic checkpoints write the
// committed state meanwhile. DDL of other sessions and connector
// statements still wait for the block's end. The block's next statement
// waits for the running ones to finish, and swaps its state back in
// (swapInLocked):
//
//   - If other sessions committed meanwhile, it first checkpoints the
//     committed state (so no log record predates the DDL that follows:
//     a view the block creates next reads those commits in its backfill
//     and must not be replayed them again after a restart).
//   - If one of those commits changed a collection the block's DDL
//     depends on (ddlDependencies: a collection the block created,
//     replaced by ALTER TABLE or indexed anew, and every source of a view
//     it created), the block's state is outdated (a new view or index
//     would miss the change): the statement and every later one, COMMIT
//     included, fail with 40001, and the block can only roll back.
//
// Commits that interleave touch only collections outside the block's
// dependencies, so replaying their log records after a restart, against
// a catalog that includes the block's DDL, gives the same result.
// COMMIT writes the current clock with the block's batch (its DDL logged
// older clock values).

// runsWhileIdle reports whether a statement of another session may run
// while a block with DDL is idle: anything that does not change the
// catalog, SUBSCRIBE included, but not Eddy's connector statements.
func runsWhileIdle(st *parse.Stmt) bool {
	if st == nil {
		return false
	}
	switch st.Ext.(type) {
	case nil:
		return !changesCatalog(st.AST)
	case *parse.Subscribe:
		return true
	}
	return false
}

// enterGate enters the txGate to execute a statement of s (whileIdle: it
// may run while another session's block with DDL is idle), swapping the
// session's own block's DDL back in when it was swapped out. DDL in a
// block queues to own the gate at once (beginDDL then finds it owned),
// so blocks waiting for DDL get the gate in the order they asked.
func (s *Session) enterGate(ctx context.Context, st *parse.Stmt) error {
	return s.enterGateFor(ctx, st, false)
}

// enterGateToDescribe enters the txGate to parse or bind a statement of
// s, which reads the catalog but changes nothing, so it may run while
// another session's block with DDL is idle.
func (s *Session) enterGateToDescribe(ctx context.Context, st *parse.Stmt) error {
	return s.enterGateFor(ctx, st, true)
}

func (s *Session) enterGateFor(ctx context.Context, st *parse.Stmt, describe bool) error {
	lctx, stop := s.lockContext(ctx)
	if !describe && s.gateDepth == 0 && s.tx == txBlock && st.Ext == nil && changesCatalog(st.AST) {
		if err := s.e.gate.own(lctx, s); err != nil {
			stop()
			return err
		}
	}
	wasIdle, err := s.e.gate.enterMode(lctx, s, describe || runsWhileIdle(st))
	stop()
	if err != nil || !wasIdle {
		return err
	}
	e := s.e
	e.writeLocked(func() {
		err = e.swapInLocked(s)
	})
	if err != nil && !isTxEnd(st.AST) {
		s.leaveGate() // the statement does not run
		return err    // (COMMIT fails in commitDDLBlock, ROLLBACK works)
	}
	return nil
}

// leaveGate leaves the txGate after a statement of s; when s owns it (its
// block ran DDL), the block's DDL is swapped out and the gate goes idle.
func (s *Session) leaveGate() {
	e := s.e
	if !e.gate.leave(s) {
		return
	}
	e.writeLocked(func() {
		e.swapOutLocked(s)
	})
	e.gate.setIdle(s)
}

// swapOutLocked saves the block's state and makes the committed state
// the engine's. The caller holds e.mu.
func (e *Engine) swapOutLocked(s *Session) {
	d := e.ddl
	if d == nil || d.owner != s || d.active != nil || len(d.undo) == 0 {
		return
	}
	d.active = e.snapshotLocked()
	e.restoreStateLocked(d.undo[0])
	d.idleAt = e.clock
	d.held = e.upstream(ddlDependencies(d.undo[0], d.active))
	close(d.out)
}

// swapInLocked makes the block's saved state the engine's again (see
// above), failing with 40001 when commits made it outdated. The caller
// holds e.mu.
func (e *Engine) swapInLocked(s *Session) error {
	d := e.ddl
	if d == nil || d.owner != s || d.active == nil {
		return nil
	}
	if d.stale == nil && e.clock > d.idleAt {
		d.stale = e.checkInterleaved(d)
		if d.stale == nil {
			d.stale = e.checkpointCommitted()
		}
	}
	e.restoreStateLocked(d.active)
	d.active, d.held, d.out = nil, nil, make(chan struct{})
	return d.stale
}

// checkInterleaved fails when a commit since the block went idle changed
// one of its DDL's dependencies. The caller holds e.mu.
func (e *Engine) checkInterleaved(d *ddlTx) error {
	for id := range ddlDependencies(d.undo[0], d.active) {
		if e.modTime[id] > d.idleAt {
			return repr.Errorf(repr.CodeSerializationFailure,
				"could not serialize access: relation %s, which this transaction's DDL depends on, was changed by a concurrent commit", e.relName(id)).
				WithHint("Roll back and retry the transaction.")
		}
	}
	return nil
}

// ddlDependencies returns the collections whose later changes the
// block's state (cur, against the committed base) would miss: those it
// created or replaced, those whose indexes it changed, and the sources
// of the views it created or changed.
func ddlDependencies(base, cur *engineSnap) map[uint64]bool {
	out := map[uint64]bool{}
	for id, c := range cur.colls {
		if base.colls[id] != c {
			out[id] = true
		}
	}
	for id, ix := range cur.indexes {
		if b, ok := base.indexes[id]; !ok || !b.Same(ix) {
			out[id] = true
		}
	}
	for id, mv := range cur.views {
		if base.views[id] != mv || base.objs[id] != cur.objs[id] {
			out[id] = true
			for _, src := range mv.sources {
				out[src] = true
			}
		}
	}
	return out
}

// upstream returns ids and every collection they read, transitively,
// through the engine's views: the collections whose commits change them.
// The caller holds e.mu.
func (e *Engine) upstream(ids map[uint64]bool) map[uint64]bool {
	stack := slices.Collect(maps.Keys(ids))
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		mv := e.views[id]
		if mv == nil {
			continue
		}
		for _, src := range mv.sources {
			if !ids[src] {
				ids[src] = true
				stack = append(stack, src)
			}
		}
	}
	return ids
}

// holdsTicks reports whether a tick must wait for the block: its state is
// swapped in, or a view with a temporal filter changes what it holds.
func (d *ddlTx) holdsTicks(views map[uint64]*matView) bool {
	if d.active == nil {
		return true
	}
	for id := range d.held {
		if mv := views[id]; mv != nil && mv.df.Temporal() {
			return true
		}
	}
	return false
}

// checkpointCommitted checkpoints the committed state while a block with
// DDL is swapped out, with the clock (the block's DDL may have advanced
// it past the last commit). The caller holds e.mu.
func (e *Engine) checkpointCommitted() error {
	e.logClock(e.stateBatch())
	e.ck.inBlock = true
	defer func() { e.ck.inBlock = false }()
	return e.checkpointLocked()
}

// logClock writes the current logical and wall-clock times to b.
func (e *Engine) logClock(b *storage.Batch) {
	b.Set(metaClock, binary.BigEndian.AppendUint64(nil, e.clock))
	b.Set(metaWallClock, encodeInt64(e.wall.last))
}
