package sql

import (
	"encoding/binary"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Pipelined checkpoints. A periodic checkpoint (one a commit finds due)
// hands its batch to storage.CommitAsync and returns: the batch's sort,
// its copy into Pebble's batch and its memtable insertion run on their own
// goroutine while the next commits compute, which a checkpoint under the
// engine lock held up (a fifth of q4's CPU, serial on the source's
// goroutine). The commits go on into a fresh checkpoint batch.
//
// Invariants:
//   - A commit is still acknowledged only once its own input-log record is
//     durable (its batch is synced as before); a checkpoint only ever
//     makes durable what the log already holds, so acknowledging does not
//     wait for it. The log batches are Independent of the checkpoint's
//     (storage's async.go): they write the clock, the log, source
//     positions and statistics and sink logs, never the table, view and
//     operator state keys a checkpoint writes, nor a log record at or
//     below its time (its range deletion), so Pebble may apply them in
//     either order. Every other store write (DDL, sequences, sinks, Ticks,
//     a synchronous checkpoint) waits for the pending checkpoint to land.
//   - At most one checkpoint is pending; the next waits for it (at once
//     when the new pending batch reaches CheckpointOptions.Bytes, else the
//     next due commit after it landed starts it).
//   - A crash while one is pending loses nothing: its log records are
//     deleted only in its own batch, atomically with the state it writes.
//   - Only state wholly in memory checkpoints this way: the store is read
//     back only for spilled state, and spilling needs the moment the store
//     holds exactly every collection (afterCheckpoint). When anything is
//     spilled, a spill is wanted or the heap nears the spill point, and in
//     DDL blocks, replay and EDDY_SPILL_ALL, checkpoints stay synchronous.
//     e.ck.durable moves when a pipelined checkpoint is seen to have
//     landed (reapCheckpoint).

// pendingCheckpoint is a checkpoint being written by storage.CommitAsync.
type pendingCheckpoint struct {
	p     *storage.Pending
	batch *storage.Batch
	t     repr.Time
}

// checkpointDue writes the checkpoint a commit found due: pipelined when
// the state allows (pipelineOK), else synchronously. While one is pending
// it starts none unless the pending state batch is full. The engine lock
// must be held.
func (e *Engine) checkpointDue() error {
	if !e.pipelineOK() {
		return e.checkpointLocked()
	}
	if e.ck.pending != nil {
		if o := e.ck.opts; o.Bytes <= 0 || e.stateBatch().Used() < o.Bytes {
			return nil // the next due commit after it landed starts one
		}
		if err := e.reapCheckpoint(true); err != nil {
			return err
		}
	}
	return e.startCheckpoint()
}

// startCheckpoint hands the pending state batch, checkpoint_time and the
// log's deletion up to the clock to storage.CommitAsync and starts a fresh
// state batch. No checkpoint may be pending.
func (e *Engine) startCheckpoint() error {
	sb := e.stateBatch()
	if err := e.flushViewState(sb); err != nil {
		return e.checkpointFailed(err)
	}
	if sb.Len() == 0 && e.ck.durable == e.clock {
		e.ck.commits, e.ck.last = 0, time.Now()
		return nil
	}
	if err := e.db.CheckWrite(sb.Used() + checkpointTail); err != nil {
		return err
	}
	sb.Set(metaCheckpoint, binary.BigEndian.AppendUint64(nil, e.clock))
	sb.DeleteRange(storage.LogKey(0), storage.LogKey(e.clock+1))
	stamp := storage.Stamp{Checkpoint: e.clock, NextID: e.nextID}
	e.ck.storing = true
	p, err := e.db.CommitAsync(sb, func() {
		if err := e.db.WriteStamp(stamp); err != nil {
			e.log.Warn("checkpoint written, its stamp not (checked at the next start)", "err", err)
		}
	})
	e.ck.storing = false
	if err != nil {
		return e.checkpointFailed(err)
	}
	e.ck.pending = &pendingCheckpoint{p: p, batch: sb, t: e.clock}
	e.ck.batch, e.ck.spare = e.ck.spare, nil
	e.ck.commits, e.ck.last = 0, time.Now()
	return nil
}

// reapCheckpoint finishes the pending checkpoint if it has landed (or,
// with wait, once it has): the durable time moves to its time and its
// batch becomes the spare; a failed one breaks the engine like a failed
// synchronous checkpoint. It does nothing when none is pending.
func (e *Engine) reapCheckpoint(wait bool) error {
	pc := e.ck.pending
	if pc == nil || !wait && !pc.p.Done() {
		return nil
	}
	err := pc.p.Wait()
	_ = e.db.WaitPending() // the same commit: clears the store's record of it
	e.ck.pending = nil
	if err != nil {
		_ = pc.batch.Close()
		return e.checkpointFailed(err)
	}
	e.ck.durable = pc.t
	e.ck.count++
	if pc.batch.Size() > maxKeptBatch || e.ck.spare != nil {
		_ = pc.batch.Close()
	} else {
		pc.batch.Reset()
		e.ck.spare = pc.batch
	}
	return nil
}

// checkpointFailed breaks the engine after a checkpoint's write failed.
func (e *Engine) checkpointFailed(err error) error {
	e.committer.broken = repr.Errorf(repr.CodeInternal,
		"could not write a checkpoint; restart the server to recover the last durable state: %v", err)
	return e.committer.broken
}

// pipelineOK reports whether a due checkpoint may be pipelined: nothing
// is spilled or about to spill (counting two checkpoint batches more), and no DDL block, replay or spill-all
// test knob needs the synchronous checkpoint's afterCheckpoint.
func (e *Engine) pipelineOK() bool {
	if e.ddl != nil || e.ck.inBlock || e.ck.replaying || e.spill.all ||
		e.committer.broken != nil || e.mem.wantsSpill() {
		return false
	}
	if e.spill.limit > 0 {
		live, _ := e.heapStats()
		var need int64
		if e.mem != nil {
			need = e.mem.maintPeak.Load()
		}
		// Two checkpoint batches (the pending one and the next) may be
		// live beside the state once this one is pipelined, and the heap
		// reading is as old as the last collection: state past half the
		// spill point checkpoints synchronously, so that the spill that
		// follows a synchronous checkpoint comes in time (pipelined ones
		// up to the spill point let commits be refused at 128 MiB).
		standing := int64(live) - e.mem.reservedBytes() + 2*int64(e.ck.opts.Bytes)
		if standing > int64(float64(e.spill.limit)*spillFraction/2) || spillExcess(standing, need, e.spill.limit) > 0 {
			return false
		}
	}
	return !e.anySpilled()
}

// anySpilled reports whether a collection or an operator's state is
// spilled to the store.
func (e *Engine) anySpilled() bool {
	for _, c := range e.colls {
		if c.Spilled() {
			return true
		}
	}
	spilled := false
	e.eachSourceRows(func(_ uint64, c *storage.Collection) { spilled = spilled || c.Spilled() })
	if spilled {
		return true
	}
	for _, mv := range e.views {
		if len(mv.df.SpilledNodes()) > 0 {
			return true
		}
	}
	return false
}
