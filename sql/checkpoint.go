package sql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Checkpointed durability. A commit's durable write is small: one record
// in the input log, /l/<t>, holding the commit's inputs (a write set's
// table changes, a source batch's changes, or nothing for a Tick) and its
// wall-clock time, plus the metadata that must be atomic with it (the
// clock, a source's position and statistics, sink log entries), in one
// synced batch shared by the group commit. The commit is acknowledged
// after that write.
//
// Everything the inputs imply — table rows, view contents, operator state,
// source watermarks — changes in memory as before, and its Pebble writes
// accumulate in one checkpoint batch (storage.Batch keeps only the last
// write of each key when it is built, so a group updated by a thousand
// commits is written once). A checkpoint writes that batch, checkpoint_time
// = the current logical time t, and a range deletion of every log record
// <= t, atomically in one synced batch. Checkpoints run after a commit once
// CheckpointOptions' commit count, interval or size is reached, before DDL
// that writes state directly or deletes it (CREATE MATERIALIZED VIEW, DROP:
// so no log record ever predates the catalog it is replayed against), and
// at clean shutdown.
//
// Restart loads the collections and operator state (as of checkpoint_time),
// then replays every log record with a later time, in order, through the
// same apply/propagate path with the logged wall-clock time (exec is
// deterministic, watermarks are re-derived from the replayed rows), writing
// no new log records, sink log entries or statistics (those of the replayed
// commits are already durable; the replay's commit batch is discarded) and
// publishing to no one; then it checkpoints. A kill -9 at any moment loses
// nothing acknowledged: either the checkpoint batch is durable with its
// log records deleted, or it is not and the records are still there.

// metaCheckpoint stores the logical time of the last checkpoint.
var metaCheckpoint = storage.MetaKey("checkpoint_time")

// CheckpointOptions says when the engine checkpoints; a checkpoint is due
// when any limit is reached (zero: that limit is off).
type CheckpointOptions struct {
	// Commits is the number of logged commits between checkpoints.
	Commits int
	// Interval is the time between checkpoints (default 1s).
	Interval time.Duration
	// Bytes bounds the pending checkpoint batch (default 64 MiB, or a
	// sixteenth of a smaller memory budget: the batch is heap memory no
	// account holds, and state it has written can spill).
	Bytes int
}

// defaultCheckpointOptions returns the defaults under a memory budget of
// memoryLimit bytes (0: none), with the commit count
// taken from EDDY_CHECKPOINT_COMMITS when set (a test knob: the crash tests
// run the server with checkpoints every few commits) and the interval from
// EDDY_CHECKPOINT_INTERVAL (a test knob, a Go duration, 0 for none: a
// test that kills the server with commits only in the log).
func defaultCheckpointOptions(memoryLimit int64) CheckpointOptions {
	o := CheckpointOptions{Interval: time.Second, Bytes: 64 << 20}
	if memoryLimit > 0 {
		o.Bytes = int(min(max(memoryLimit/16, 1<<20), 64<<20))
	}
	if n, err := strconv.Atoi(os.Getenv("EDDY_CHECKPOINT_COMMITS")); err == nil && n > 0 {
		o.Commits = n
	}
	if d, err := time.ParseDuration(os.Getenv("EDDY_CHECKPOINT_INTERVAL")); err == nil && d >= 0 {
		o.Interval = d
	}
	return o
}

// checkpointer is the engine's checkpoint state (under the engine lock).
type checkpointer struct {
	opts CheckpointOptions
	// inBlock lets a checkpoint run while a block with DDL is open and
	// swapped out (ddlidle.go).
	inBlock bool
	// batch accumulates the state writes since the last checkpoint.
	batch *storage.Batch
	// pending is the pipelined checkpoint being written, if any, and
	// spare a batch one left for reuse (checkpoint_pipe.go).
	pending *pendingCheckpoint
	spare   *storage.Batch
	// commits counts the logged commits since the last checkpoint, at the
	// time last was written.
	commits int
	last    time.Time
	// durable is the logical time of the last checkpoint.
	durable repr.Time
	// replaying is set while restart replays the log: tick takes the
	// logged wall-clock time (replayWall) and no log record is written.
	replaying  bool
	replayWall int64
	// count is the number of checkpoints written (for tests).
	count int
	// storing is set while a checkpoint's batch is being handed to the
	// store (checkpointGuarded).
	storing bool
	// fullWarned is when a checkpoint deferred for a full disk was last
	// logged (at most one line per diskWarnEvery).
	fullWarned time.Time
}

// diskWarnEvery spaces the log lines of checkpoints deferred for a full
// disk: one a commit would flood the log.
const diskWarnEvery = 30 * time.Second

// SetCheckpointOptions replaces when the engine checkpoints.
func (e *Engine) SetCheckpointOptions(o CheckpointOptions) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ck.opts = o
}

// Checkpoint writes a checkpoint now.
func (e *Engine) Checkpoint() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.checkpointLocked()
}

// stateBatch returns the pending checkpoint batch, which every state write
// of a commit goes to.
func (e *Engine) stateBatch() *storage.Batch {
	if e.ck.batch == nil {
		e.ck.batch = e.db.NewBatch()
	}
	return e.ck.batch
}

// newTx starts the record of a commit in progress, marking the checkpoint
// batch so that a failure also discards the commit's state writes.
func (e *Engine) newTx() *applyTx {
	sb := e.stateBatch()
	tx := &applyTx{e: e, state: sb, stateMark: sb.Mark()}
	if !e.ck.replaying {
		tx.mem = e.mem.account("a commit")
		if tx.mem != nil {
			tx.mem.maint = true
		}
	}
	return tx
}

// logInput writes a commit's log record to its batch (not while
// replaying, whose records are already durable).
func (e *Engine) logInput(b *storage.Batch, t repr.Time, rec []byte) {
	if e.ck.replaying {
		return
	}
	b.Set(storage.LogKey(t), rec[:min(len(rec), logPiece)])
	for i, off := uint32(1), logPiece; off < len(rec); i, off = i+1, off+logPiece {
		b.Set(storage.LogPieceKey(t, i), rec[off:min(off+logPiece, len(rec))])
	}
}

// logPiece is the most bytes one value of the input log holds: a larger
// record (a bulk write set) is split into pieces under consecutive keys
// (storage.LogPieceKey). No Pebble block then grows past it, which keeps
// reads cheap and a corrupt block quick to report: Pebble's diagnosis of
// a checksum mismatch costs time quadratic in the block's size.
const logPiece = 256 << 10

// committed notes a durable logged commit, finishes a pipelined
// checkpoint that landed, and checkpoints if one is due (pipelined when
// it may be: checkpointDue). The engine lock must be held.
func (e *Engine) committed(n int) {
	if err := e.reapCheckpoint(false); err != nil {
		e.logCheckpointErr(err)
		return
	}
	e.ck.commits += n
	o := e.ck.opts
	due := o.Commits > 0 && e.ck.commits >= o.Commits ||
		o.Bytes > 0 && e.stateBatch().Used() >= o.Bytes ||
		o.Interval > 0 && time.Since(e.ck.last) >= o.Interval ||
		e.spillDue()
	if due {
		e.logCheckpointErr(e.checkpointGuarded())
	}
}

// checkpointGuarded is checkpointDue with a panic (a bug) turned into an
// XX000 error. When nothing had been handed to the store yet (no pending
// checkpoint started or reaped, none written, no store write under way:
// e.ck.storing) the checkpoint is merely deferred to the next due commit,
// as for a full disk: the log holds every commit and the pending state
// batch is whole (a checkpoint time or log deletion it gained is
// overwritten by the next checkpoint's). Otherwise the engine is broken
// like after a failed checkpoint write (checkpointFailed): writes answer
// XX000 until a restart, reads go on.
func (e *Engine) checkpointGuarded() (err error) {
	pending, count := e.ck.pending, e.ck.count
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		e.log.Error("panic in checkpoint", "panic", r, "stack", stack())
		err = repr.Errorf(repr.CodeInternal, "internal error in checkpoint: %v", r)
		if e.ck.storing || e.ck.pending != pending || e.ck.count != count {
			err = e.checkpointFailed(err)
		}
		e.ck.storing = false
	}()
	faultCheckpoint.Inject()
	return e.checkpointDue()
}

// refused runs after every member of a group commit was refused and rolled
// back (engine lock held). If maintenance asked for room, it checkpoints
// now, whenever the last checkpoint was: a checkpoint writes the pending
// state batch and the views' deferred state, lets spilled collections and
// operators drop what it wrote, and spills past the spill point, which is
// all the room the engine can make, and a client's failed write costs more
// than an early checkpoint. When the checkpoint wrote or spilled
// something, it measures the heap afresh (one collection) and reports
// true: the group is worth one more attempt (retryRefused). A refusal
// with nothing pending checkpoints nothing and collects nothing, so a
// client retrying a write too large for the budget costs no more than
// its refusals.
func (e *Engine) refused() bool {
	if !e.mem.wantsSpill() {
		return false
	}
	count, spilled := e.ck.count, e.spill.spilled
	e.logCheckpointErr(e.checkpointLocked())
	if e.ck.count == count && e.spill.spilled == spilled {
		return false
	}
	e.collect()
	return true
}

// spillDue reports whether maintenance asked for a spill and the last
// checkpoint is at least spillCheckpointEvery old (so that a budget
// whose state cannot spill does not checkpoint at every commit).
func (e *Engine) spillDue() bool {
	return e.mem.wantsSpill() && time.Since(e.ck.last) >= spillCheckpointEvery
}

// spillCheckpointEvery rate-limits the checkpoints maintenance asks for.
const spillCheckpointEvery = 100 * time.Millisecond

// logCheckpointErr logs a failed periodic checkpoint; one deferred for a
// full disk (53100: nothing written, retried at the next due commit) at
// most once per diskWarnEvery.
func (e *Engine) logCheckpointErr(err error) {
	switch {
	case err == nil:
	case repr.ErrorCode(err) != storage.CodeDiskFull:
		e.log.Error("checkpoint failed", "err", err)
	case time.Since(e.ck.fullWarned) >= diskWarnEvery:
		e.ck.fullWarned = time.Now()
		e.log.Warn("checkpoint deferred: the data directory's disk is full", "err", err, "detail", repr.ErrorFrom(err).Detail)
	}
}

// checkpointLocked writes the pending state, checkpoint_time = the current
// clock and the deletion of the log up to it in one synced batch. A failed
// checkpoint breaks the engine like a failed commit (memory is ahead of
// what a restart would rebuild only through the log, which is intact, but
// the pending batch can no longer be trusted to be written once), except
// when the disk is too full to take it: then nothing is written, the
// pending state stays as it was and the error is 53100. A pipelined
// checkpoint still pending lands first.
func (e *Engine) checkpointLocked() error {
	if err := e.reapCheckpoint(true); err != nil {
		return err
	}
	if err := e.committer.broken; err != nil {
		return err
	}
	if d := e.ddl; d != nil && !e.ck.inBlock {
		// The block's DDL checkpointed as it began and nothing else
		// commits while its state is swapped in (ddltxn.go); its own
		// writes wait for its COMMIT. Swapped out, the engine holds the
		// committed state, which checkpoints as at the block's next
		// statement (checkpointCommitted).
		if d.active == nil {
			return nil
		}
		e.logClock(e.stateBatch())
	}
	sb := e.stateBatch()
	if err := e.flushViewState(sb); err != nil {
		return e.checkpointFailed(err)
	}
	if sb.Len() == 0 && e.ck.durable == e.clock {
		e.ck.commits, e.ck.last = 0, time.Now()
		if e.mem.wantsSpill() { // the store holds every state already
			e.afterCheckpoint()
		}
		return nil
	}
	if err := e.db.CheckWrite(sb.Used() + checkpointTail); err != nil {
		return err
	}
	sb.Set(metaCheckpoint, binary.BigEndian.AppendUint64(nil, e.clock))
	sb.DeleteRange(storage.LogKey(0), storage.LogKey(e.clock+1))
	e.ck.storing = true
	err := e.db.Commit(sb)
	e.ck.storing = false
	if err != nil {
		return e.checkpointFailed(err)
	}
	e.ck.durable, e.ck.commits, e.ck.last = e.clock, 0, time.Now()
	e.ck.count++
	if err := e.db.WriteStamp(storage.Stamp{Checkpoint: e.ck.durable, NextID: e.nextID}); err != nil {
		e.log.Warn("checkpoint written, its stamp not (checked at the next start)", "err", err)
	}
	e.afterCheckpoint()
	if sb.Size() > maxKeptBatch {
		_ = sb.Close()
		e.ck.batch = nil
	} else {
		sb.Reset()
	}
	return nil
}

// flushViewState writes to sb the operator state that the views' Steps
// left dirty (exec.Input.DeferState) and the rows their contents owe
// (storage.Collection.ReplaceDeferred), so that the checkpoint holds every
// view's state and contents as of the clock. The caller holds e.mu; no view's Step is
// pending (every commit commits or rolls back its Steps).
func (e *Engine) flushViewState(sb *storage.Batch) error {
	for _, mv := range e.views {
		if mv.transient {
			continue
		}
		if err := mv.df.FlushState(sb.Prefixed(storage.StatePrefix(mv.obj.ID))); err != nil {
			return fmt.Errorf("view %q: %w", mv.obj.Name, err)
		}
		if c := e.colls[mv.obj.ID]; c != nil {
			c.FlushDirty(sb)
		}
	}
	return nil
}

// checkpointTail bounds the bytes a checkpoint adds to the pending state
// (its time and the log's range deletion).
const checkpointTail = 1 << 10

// closeCheckpointer writes a last checkpoint (clean shutdown) and releases
// the batch.
func (e *Engine) closeCheckpointer() {
	if err := e.checkpointLocked(); err != nil && e.committer.broken == nil {
		e.log.Warn("final checkpoint", "err", err)
	}
	e.closeBatches()
}

// Log record kinds.
const (
	logWriteSet  byte = 'w' // a transaction's table changes
	logSource    byte = 's' // a source batch's changes
	logTick      byte = 't' // a Tick: no input
	logSourceRef byte = 'r' // a replayable source batch's positions
)

// encodeWriteSetRecord encodes a write set: kind, wall time, then per
// table (in statement order) its id and its changes (encodeUpdates).
func encodeWriteSetRecord(wall int64, ws *writeSet) []byte {
	encs, size := make([][]byte, len(ws.order)), 1+3*binary.MaxVarintLen64
	for i, id := range ws.order {
		encs[i] = encodeUpdates(ws.changes[id])
		size += 2*binary.MaxVarintLen64 + len(encs[i])
	}
	buf := binary.AppendVarint(append(make([]byte, 0, size), logWriteSet), wall)
	buf = binary.AppendUvarint(buf, uint64(len(ws.order)))
	for i, id := range ws.order {
		enc := encs[i]
		buf = binary.AppendUvarint(buf, id)
		buf = binary.AppendUvarint(buf, uint64(len(enc)))
		buf = append(buf, enc...)
	}
	return buf
}

// appendSourceRecord appends the record of a source batch to buf: kind,
// wall time, source id, then per change its kind, its row and its key
// (each present or not). A change from a partition other than 0 has
// changePartitioned set in its kind byte and its partition (a varint)
// right after it (records logged before partitions existed decode as
// partition 0). buf may be reused across calls (a source batch's record
// is megabytes, so regrowing it per batch was a measurable cost).
func appendSourceRecord(buf []byte, wall int64, id uint64, changes []Change) []byte {
	var tmp []byte
	buf = binary.AppendVarint(append(buf, logSource), wall)
	buf = binary.AppendUvarint(buf, id)
	buf = binary.AppendUvarint(buf, uint64(len(changes)))
	for _, c := range changes {
		if c.Partition != 0 {
			buf = append(buf, byte(c.Kind)|changePartitioned)
			buf = binary.AppendVarint(buf, int64(c.Partition))
		} else {
			buf = append(buf, byte(c.Kind))
		}
		for _, r := range []repr.Row{c.Row, c.Key} {
			if r == nil {
				buf = append(buf, 0)
				continue
			}
			tmp = repr.AppendRow(tmp[:0], r)
			buf = append(buf, 1)
			buf = binary.AppendUvarint(buf, uint64(len(tmp)))
			buf = append(buf, tmp...)
		}
	}
	return buf
}

// appendSourceRefRecord appends the record of a replayable source's
// batch: kind, wall time, source id, the positions before and after it,
// and its number of changes (checked on replay).
func appendSourceRefRecord(buf []byte, wall int64, id uint64, from, to []byte, n int) []byte {
	buf = binary.AppendVarint(append(buf, logSourceRef), wall)
	buf = binary.AppendUvarint(buf, id)
	buf = append(binary.AppendUvarint(buf, uint64(len(from))), from...)
	buf = append(binary.AppendUvarint(buf, uint64(len(to))), to...)
	return binary.AppendUvarint(buf, uint64(n))
}

// encodeTickRecord encodes a Tick.
func encodeTickRecord(wall int64) []byte { return binary.AppendVarint([]byte{logTick}, wall) }

// logRecord is a decoded log record.
type logRecord struct {
	kind    byte
	wall    int64
	ws      *writeSet
	source  uint64
	changes []Change
	// from, to and count are a logSourceRef record's positions and
	// change count.
	from, to []byte
	count    uint64
}

var errCorruptInputLog = errors.New("sql: corrupt input log record")

// logReader decodes a record's fields in order; the first failure sticks.
type logReader struct {
	b   []byte
	err error
}

func (r *logReader) uvarint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.err, r.b = errCorruptInputLog, nil
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *logReader) varint() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.err, r.b = errCorruptInputLog, nil
		return 0
	}
	r.b = r.b[k:]
	return v
}

// changePartitioned flags a logged change kind followed by a partition.
const changePartitioned = 0x80

func (r *logReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err, r.b = errCorruptInputLog, nil
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *logReader) byte() byte {
	if len(r.b) == 0 {
		r.err = errCorruptInputLog
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// row reads an optional row.
func (r *logReader) row() repr.Row {
	if r.byte() == 0 || r.err != nil {
		return nil
	}
	row, err := repr.DecodeRow(r.bytes())
	if err != nil && r.err == nil {
		r.err = err
	}
	return row
}

// decodeLogRecord is the inverse of the append and encode functions above.
func decodeLogRecord(b []byte) (logRecord, error) {
	if len(b) == 0 {
		return logRecord{}, errCorruptInputLog
	}
	rec := logRecord{kind: b[0]}
	wall, k := binary.Varint(b[1:])
	if k <= 0 {
		return rec, errCorruptInputLog
	}
	rec.wall = wall
	r := &logReader{b: b[1+k:]}
	switch rec.kind {
	case logWriteSet:
		rec.ws = &writeSet{}
		for n := r.uvarint(); n > 0 && r.err == nil; n-- {
			id := r.uvarint()
			us, err := decodeUpdates(r.bytes(), 0)
			if err != nil {
				return rec, err
			}
			for _, u := range us {
				rec.ws.add(id, u.Row, u.Diff)
			}
		}
	case logSource:
		rec.source = r.uvarint()
		for n := r.uvarint(); n > 0 && r.err == nil; n-- {
			c := Change{Kind: ChangeKind(r.byte())}
			if c.Kind&changePartitioned != 0 {
				c.Kind &^= changePartitioned
				c.Partition = int32(r.varint())
			}
			c.Row = r.row()
			c.Key = r.row()
			rec.changes = append(rec.changes, c)
		}
	case logSourceRef:
		rec.source = r.uvarint()
		rec.from = r.bytes()
		rec.to = r.bytes()
		rec.count = r.uvarint()
	case logTick:
	default:
		return rec, errCorruptInputLog
	}
	if r.err == nil && len(r.b) != 0 {
		return rec, errCorruptInputLog
	}
	return rec, r.err
}

// replayLog brings memory from the checkpoint to the last logged commit
// (see the top of this file), then checkpoints. It runs in Open, after
// restore.
func (e *Engine) replayLog() error {
	if v, ok, err := e.db.Get(metaCheckpoint); err != nil {
		return err
	} else if ok {
		e.ck.durable = binary.BigEndian.Uint64(v)
	}
	type entry struct {
		t   repr.Time
		rec []byte
	}
	var recs []entry
	var pieces uint32 // of the last record
	err := e.db.Scan(storage.LogPrefix(), func(k, v []byte) error {
		t, piece, ok := storage.LogKeyPiece(k)
		switch {
		case !ok:
			return fmt.Errorf("sql: malformed log key %s", storage.PrettyKey(k))
		case t <= e.ck.durable:
		case piece == 0:
			recs, pieces = append(recs, entry{t, append([]byte(nil), v...)}), 1
		case len(recs) == 0 || recs[len(recs)-1].t != t || piece != pieces:
			return fmt.Errorf("sql: the log record of time %d lacks a piece before %s", t, storage.PrettyKey(k))
		default:
			recs[len(recs)-1].rec = append(recs[len(recs)-1].rec, v...)
			pieces++
		}
		return nil
	})
	if err != nil || len(recs) == 0 {
		return err
	}
	finalClock, finalWall := e.clock, e.wall.last
	e.ck.replaying = true
	defer func() { e.ck.replaying = false }()
	scratch := e.db.NewBatch()
	defer scratch.Close()
	for _, r := range recs {
		rec, err := decodeLogRecord(r.rec)
		if err != nil {
			return fmt.Errorf("replaying the log at time %d: %w", r.t, err)
		}
		scratch.Reset()
		e.clock, e.ck.replayWall = r.t-1, rec.wall
		if err := e.replayRecover(rec, scratch); err != nil {
			return fmt.Errorf("replaying the log at time %d: %w", r.t, err)
		}
	}
	e.clock, e.wall.last = max(finalClock, e.clock), max(finalWall, e.wall.last)
	e.log.Info("log replayed", "records", len(recs), "from", e.ck.durable, "clock", e.clock)
	return e.checkpointLocked()
}

// regenerate returns the changes of a logged replayable source batch.
func (e *Engine) regenerate(st *sourceState, rec logRecord) ([]Change, error) {
	if e.replayer == nil || !e.replayer.Replayable(st.def) {
		return nil, fmt.Errorf("source %s: the log records a batch by position, but connector %q cannot replay it here", st.def.Name, st.def.Connector)
	}
	changes, err := e.replayer.Replay(st.def, rec.from, rec.to)
	if err != nil {
		return nil, fmt.Errorf("source %s: replaying a batch: %w", st.def.Name, err)
	}
	if uint64(len(changes)) != rec.count {
		return nil, fmt.Errorf("source %s: replaying a batch gave %d changes, the log recorded %d (did the connector change?)", st.def.Name, len(changes), rec.count)
	}
	return changes, nil
}

// replayRecover is replayOne with a panic (a bug) turned into an XX000
// error. The record is durable and no view has applied it yet: start-up
// then fails naming its time, and writes nothing (replay writes to the
// checkpoint batch only, committed once the whole log is replayed), so
// the next start replays the same log from the same checkpoint: the
// record is neither skipped nor applied twice (TestFaultDuringReplay).
// Serving without it would lose an acknowledged commit.
func (e *Engine) replayRecover(rec logRecord, b *storage.Batch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic replaying the log", "panic", r, "stack", stack())
			err = repr.Errorf(repr.CodeInternal, "internal error replaying the log: %v", r)
		}
	}()
	return e.replayOne(rec, b)
}

// replayOne applies one log record at time clock+1, with b as a scratch
// commit batch.
func (e *Engine) replayOne(rec logRecord, b *storage.Batch) error {
	switch rec.kind {
	case logWriteSet:
		_, _, err := e.applyOne(rec.ws, b)
		return err
	case logSource, logSourceRef:
		st := e.sources[rec.source]
		if st == nil {
			return fmt.Errorf("source %d of a log record does not exist", rec.source)
		}
		if rec.kind == logSourceRef {
			var err error
			if rec.changes, err = e.regenerate(st, rec); err != nil {
				return err
			}
		}
		t := e.tick(b)
		tx := e.newTx()
		if err := e.ingest(st, rec.changes, t, b, tx); err != nil {
			tx.rollback()
			return err
		}
		tx.commit()
		if rec.kind == logSourceRef {
			st.position, st.posLoaded = rec.to, true
		}
	default:
		t := e.tick(b)
		tx := e.newTx()
		if err := e.propagate(map[uint64][]repr.Update{}, t, b, tx); err != nil {
			tx.rollback()
			return err
		}
		tx.commit()
	}
	return nil
}
