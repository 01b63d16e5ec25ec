package sql

import (
	"fmt"
	"sync"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// committer batches concurrent commits into groups that share one synced
// write (group commit, as in PostgreSQL's commit_delay-free WAL flush
// and Pebble's own commit pipeline). A commit joins the queue; if no group
// is running its caller becomes the leader: it takes the whole queue,
// applies each write set under the engine lock at its own logical time,
// writes one batch with one fsync, releases the lock and wakes every
// member. Writers that arrive while a group is syncing form the next group,
// whose first member leads it. So a write still becomes visible only once
// durable (the lock is held across the sync), but N concurrent writers pay
// for one fsync, not N.
//
// Each write set is validated and applied alone: a constraint or view
// maintenance error rolls back that write set (its in-memory changes and
// its part of the batch) and fails only its commit.
type committer struct {
	mu      sync.Mutex
	queue   []*commitReq
	leading bool
	// broken is set when a group's durable write failed: memory then holds
	// changes the store may not, so no later commit is accepted (as
	// PostgreSQL PANICs on a failed WAL fsync); a restart recovers the
	// durable state.
	broken error
	// batch is reused by every group (under the engine lock), so its
	// arena is not regrown for each commit.
	batch *storage.Batch
	// groups and members count the groups written and the requests they
	// held (under the engine lock), for benchmarks.
	groups, members uint64
}

// commitReq is one write set waiting for its group.
type commitReq struct {
	ws  *writeSet
	err error
	// wake receives false when the request is done (err is set) or true
	// when its caller must lead the next group.
	wake chan bool
}

// commit makes ws durable and visible at a new logical time: it validates
// and applies the table changes, pushes them through every materialized
// view that reads them (in dependency order), and writes table rows, view
// contents, operator state and the clock in a synced batch, shared with
// the commits that run concurrently (see committer). On error nothing of
// ws changes.
func (e *Engine) commit(ws *writeSet) error {
	if ws.empty() {
		return nil
	}
	c := &e.committer
	req := &commitReq{ws: ws, wake: make(chan bool, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, req)
	lead := !c.leading
	c.leading = true
	c.mu.Unlock()
	if !lead {
		lead = <-req.wake
	}
	if lead {
		e.leadGroup()
	}
	if req.err == nil {
		e.stats.countCommitted(ws)
	}
	return req.err
}

// leadGroup commits the queued requests as one group, then hands the lead
// to the first request queued meanwhile (or gives it up).
func (e *Engine) leadGroup() {
	c := &e.committer
	c.mu.Lock()
	group := c.queue
	c.queue = nil
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		var next *commitReq
		if len(c.queue) > 0 {
			next = c.queue[0]
		} else {
			c.leading = false
		}
		c.mu.Unlock()
		for _, r := range group {
			r.wake <- false
		}
		if next != nil {
			next.wake <- true
		}
	}()
	e.commitGroup(group)
}

// groupMember is a request of the group that applied successfully.
type groupMember struct {
	t      repr.Time
	deltas map[uint64][]repr.Update
}

// commitGroup applies every request of the group in order, each at its own
// logical time, then writes the batch with one sync. It sets each
// request's err.
func (e *Engine) commitGroup(group []*commitReq) {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			// Outside applyRecover: in the durable write or in publishing,
			// after the group was applied in memory.
			e.log.Error("panic in group commit", "panic", r, "stack", stack())
			e.committer.broken = repr.Errorf(repr.CodeInternal, "internal error during commit: %v", r)
			for _, req := range group {
				req.err = e.committer.broken
			}
		}
	}()
	if err := e.committer.broken; err != nil {
		for _, r := range group {
			r.err = err
		}
		return
	}
	// A full disk refuses the group before anything is applied in
	// memory (storage's Disk space): its writes fail with 53100 and the
	// engine stays whole.
	if err := e.db.CheckSpace(); err != nil {
		for _, r := range group {
			r.err = err
		}
		return
	}
	e.committer.groups++
	e.committer.members += uint64(len(group))
	b := e.committer.logBatch(e.db)
	var done []groupMember
	for _, r := range group {
		t, deltas, err := e.applyOne(r.ws, b)
		if r.err = err; err == nil {
			done = append(done, groupMember{t, deltas})
		}
	}
	if len(done) == 0 && e.refused() {
		done = e.retryRefused(group, b)
	}
	if len(done) == 0 {
		return
	}
	if err := e.db.Commit(b); err != nil {
		e.committer.broken = repr.Errorf(repr.CodeInternal,
			"could not make a commit durable; restart the server to recover the last durable state: %v", err)
		e.log.Error("group commit failed; refusing further commits", "err", err)
		for _, r := range group {
			if r.err == nil {
				r.err = e.committer.broken
			}
		}
		return
	}
	for _, m := range done {
		e.publish(m.t, m.deltas)
	}
	e.committed(len(done))
}

// applyOne validates and applies one write set at a new logical time,
// logging to b. On error it undoes the write set's in-memory changes, its
// writes to b and its tick, so that the group's other members are
// unaffected; on success the in-memory changes are kept (the caller makes
// them durable).
func (e *Engine) applyOne(ws *writeSet, b *storage.Batch) (repr.Time, map[uint64][]repr.Update, error) {
	mark := b.Mark()
	prevClock := e.clock
	t := e.tick(b)
	tx := e.newTx()
	used, stateUsed := b.Used(), tx.state.Used()
	err := e.applyRecover(ws, t, b, tx)
	if err == nil {
		err = tx.chargeBatches(b.Used() - used + tx.state.Used() - stateUsed)
	}
	if err == nil && b.Err() != nil {
		err = fmt.Errorf("commit: %w", b.Err())
	}
	if err == nil && tx.state.Err() != nil {
		err = fmt.Errorf("commit: %w", tx.state.Err())
	}
	if err != nil {
		tx.rollback()
		e.clock = prevClock
		b.RollbackTo(mark)
		return 0, nil, err
	}
	tx.commit()
	e.captureBackfills(tx.deltas)
	e.noteCommitted(ws)
	e.logInput(b, t, encodeWriteSetRecord(e.wall.last, ws))
	return t, tx.deltas, nil
}

// applyRecover is apply with a panic (a bug) turned into an XX000 error
// for this write set alone, which applyOne then rolls back: the other
// members of the group and later commits are served as usual.
func (e *Engine) applyRecover(ws *writeSet, t repr.Time, b *storage.Batch, tx *applyTx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic applying a commit", "panic", r, "stack", stack())
			err = repr.Errorf(repr.CodeInternal, "internal error during commit: %v", r)
		}
	}()
	return e.apply(ws, t, b, tx)
}

// maxKeptBatch bounds the arena a batch keeps between groups: one huge
// COPY should not pin its memory for the life of the engine.
const maxKeptBatch = 64 << 20

// groupBatch returns the reused batch, empty. The engine lock must be held.
func (c *committer) groupBatch(db *storage.DB) *storage.Batch {
	if c.batch != nil && c.batch.Size() > maxKeptBatch {
		_ = c.batch.Close()
		c.batch = nil
	}
	if c.batch == nil {
		c.batch = db.NewBatch()
	}
	c.batch.Reset()
	c.batch.SetIndependent(false)
	return c.batch
}

// logBatch is groupBatch for a commit that writes only its input-log
// record and the metadata atomic with it (clock, source position and
// statistics, sink logs): never a key a pipelined checkpoint writes, so
// it need not wait for one (checkpoint_pipe.go).
func (c *committer) logBatch(db *storage.DB) *storage.Batch {
	b := c.groupBatch(db)
	b.SetIndependent(true)
	return b
}

// close releases the reused batch (at engine close).
func (c *committer) close() {
	if c.batch != nil {
		_ = c.batch.Close()
		c.batch = nil
	}
}

// retryRefused applies once more each member of a group that the memory
// budget refused (53200; it rolled back whole), after a checkpoint made
// room (refused): a write refused only because pending or spillable state
// filled the budget then succeeds instead of failing its client. Members
// refused again keep their error; one retry per checkpoint that wrote
// something bounds the work.
func (e *Engine) retryRefused(group []*commitReq, b *storage.Batch) []groupMember {
	var done []groupMember
	for _, r := range group {
		if repr.ErrorCode(r.err) != repr.CodeOutOfMemory {
			continue
		}
		t, deltas, err := e.applyOne(r.ws, b)
		e.log.Info("commit refused by the memory budget retried after a spill", "ok", err == nil)
		if r.err = err; err == nil {
			done = append(done, groupMember{t, deltas})
		}
	}
	return done
}
