package sql

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Backfilling a materialized view without blocking other sessions.
//
// CREATE MATERIALIZED VIEW outside a transaction block runs in three
// phases, as Materialize hydrates a dataflow before it serves:
//
//  1. Under the engine lock (prepareBackfill): plan the view, create its
//     automatic indexes (committed at once: they are indexes in their own
//     right), reserve its ID durably and its name, and take an O(1)
//     snapshot of every collection the dataflow reads
//     (storage.Collection.Snapshot, plus a Pebble snapshot when one is
//     spilled) at the latest logical time t0. The backfill is registered:
//     from now on every commit appends the changes it makes to the view's
//     inputs to the backfill's tail, and the inputs are pinned (DROP,
//     ALTER and RENAME of them fail with 55006).
//  2. Without the lock (run): feed the snapshot through the new dataflow,
//     backfillChunk rows per Step, all at t0, into the view's collection
//     and a private batch, polling the statement's interrupt (cancel and
//     statement_timeout give 57014 and drop everything) and reporting
//     progress (eddy_catalog.eddy_backfills; a NOTICE every
//     backfillNoticeEvery). Other sessions read and write meanwhile.
//  3. Under the lock again (install): checkpoint (no log record may
//     predate the view), step the dataflow once at a new logical time with
//     the tail (the sum of every commit since t0: the inputs' present
//     contents minus the snapshot, which is exactly what one commit of
//     those changes would feed it, shared arrangements read at the
//     present), and commit the catalog entry, contents and state in one
//     synced batch. The view appears at the present, complete.
//
// The tail is bounded in bytes (backfillTailBytes); past the bound it is
// dropped and the install re-runs the whole backfill under the lock from
// the present contents, today's behaviour, so a backfill racing a heavy
// write load still finishes, correctly. Inside a transaction block (whose
// owner holds the txGate, so nothing else runs anyway) and within the
// atomic steps of one statement the backfill stays under the lock.
//
// A crash in phase 2 leaves no view: its catalog entry, contents and state
// are written only by phase 3's batch. The reserved ID is never reused;
// automatic indexes created for it stay (they are valid indexes; a failed
// or cancelled backfill drops them again when nothing else reads them).

// backfillChunk is how many input rows one backfill Step reads (a
// variable: tests shrink it).
var backfillChunk = 1 << 15

// backfillStepped, when not nil, is called after each backfill Step (a
// test hook: it holds a backfill in the middle).
var backfillStepped func()

// backfillNoticeEvery is how often a running backfill sends a progress
// NOTICE (a variable: tests shorten it).
var backfillNoticeEvery = 5 * time.Second

// backfillKnobs reads the test knobs EDDY_BACKFILL_NOTICE_MS (the
// progress NOTICE interval) and EDDY_BACKFILL_TAIL_BYTES (the tail's
// bound), which end-to-end tests set for the server they start.
func backfillKnobs() {
	if ms, err := strconv.Atoi(os.Getenv("EDDY_BACKFILL_NOTICE_MS")); err == nil && ms > 0 {
		backfillNoticeEvery = time.Duration(ms) * time.Millisecond
	}
	if n, err := strconv.ParseInt(os.Getenv("EDDY_BACKFILL_TAIL_BYTES"), 10, 64); err == nil && n > 0 {
		backfillTailBytes = n
	}
}

// backfillTailBytes bounds the estimated memory of the changes buffered
// for one backfill (a variable: tests shrink it).
var backfillTailBytes int64 = 256 << 20

// Phases of a backfill, as eddy_backfills shows them.
const (
	phaseSnapshot = "snapshot"
	phaseCatchUp  = "catching up"
)

// hydration is a CREATE MATERIALIZED VIEW backfilling outside the engine
// lock. Fields set by prepareBackfill are read-only afterwards; tail,
// tailBytes and overflow change under e.mu (by commits); the progress
// counters are atomics, read by eddy_backfills under e.mu.
type hydration struct {
	obj     *Object
	mv      *matView
	pid     int32
	started time.Time
	// t0 is the snapshot's logical time and now its wall-clock time.
	t0  repr.Time
	now int64
	// snaps are the snapshots of the collections the dataflow reads (its
	// sources, and the relations of the arrangements it shares), by ID;
	// sdb is the store's snapshot when one of them is spilled (else nil).
	snaps map[uint64]*storage.Collection
	sdb   *storage.DB
	// arrs maps each shared arrangement's ID to its relation's ID, and
	// fed holds, for each such relation that is also a source, the rows
	// fed so far: the joins that read a shared arrangement expect it to
	// hold their input up to the current Step (as the live one does in a
	// commit, which applies the tables' changes before stepping views).
	arrs map[uint64]uint64
	fed  map[uint64]*storage.Collection
	// pinned are the objects that may not be dropped or altered meanwhile.
	pinned map[uint64]bool
	autos  []*Object
	// inputs are the progress of each source, in dataflow order.
	inputs []*backfillInput
	phase  atomic.Value // string
	// tail holds the committed changes to the sources since t0.
	tail      map[uint64][]repr.Update
	tailBytes int64
	overflow  bool
}

// backfillInput is one source's progress.
type backfillInput struct {
	name        string
	coll        uint64
	total, done atomic.Int64
}

// prepareBackfill is phase 1 (see above): it returns the registered
// backfill, or nil with a nil error when the name is taken under IF NOT
// EXISTS (err is then the skip notice). The caller holds e.mu.
func (e *Engine) prepareBackfill(obj *Object, ifNotExists bool, pid int32) (*hydration, error) {
	if exists, err := e.nameTaken(obj, ifNotExists); exists || err != nil {
		return nil, err
	}
	cols, deps, err := e.describeQuery(obj.SQL, true, obj.TimeZone)
	if err == nil {
		err = distinctColumns(cols)
	}
	if err != nil {
		return nil, err
	}
	obj.Columns, obj.Deps = cols, deps
	if err := e.checkpointLocked(); err != nil {
		return nil, err
	}
	autos, err := e.reserveView(obj)
	if err != nil {
		return nil, err
	}
	bf := &hydration{obj: obj, pid: pid, started: time.Now(), autos: autos, tail: map[uint64][]repr.Update{}}
	if err := e.buildBackfill(bf); err != nil {
		e.dropAutos(autos)
		return nil, err
	}
	bf.phase.Store(phaseSnapshot)
	if e.backfills == nil {
		e.backfills = map[*hydration]bool{}
	}
	e.backfills[bf] = true
	return bf, nil
}

// reserveView creates the automatic indexes obj needs and allocates its
// ID, committing both at once: the ID is never handed out again, whatever
// happens to the backfill. The caller holds e.mu and has checkpointed.
func (e *Engine) reserveView(obj *Object) ([]*Object, error) {
	b := e.db.NewBatch()
	defer b.Close()
	e.rowsSeen = map[uint64]int64{}
	defer func() { e.rowsSeen = nil }()
	autos, err := e.viewAutoIndexes(obj, b)
	if err != nil {
		return nil, err
	}
	obj.ID = e.allocID(b)
	e.applyDefaultACL(obj)
	if err := e.planSharedView(obj); err != nil {
		e.undoAutoIndexes(autos)
		return nil, err
	}
	if err := e.commitDDL(b); err != nil {
		e.undoAutoIndexes(autos)
		return nil, err
	}
	return autos, nil
}

// buildBackfill builds bf's dataflow and snapshots what it reads. The
// caller holds e.mu.
func (e *Engine) buildBackfill(bf *hydration) error {
	mv, err := e.buildView(bf.obj)
	if err != nil {
		return err
	}
	bf.mv, bf.t0, bf.now = mv, e.clock, e.wall.last
	bf.snaps, bf.arrs, bf.pinned = map[uint64]*storage.Collection{}, map[uint64]uint64{}, map[uint64]bool{}
	ids := slices.Clone(mv.sources)
	for _, dep := range bf.obj.Deps {
		bf.pinned[dep] = true
		rel := dep
		if o := e.cat.byID[dep]; o != nil && o.Index != nil {
			rel = o.Index.Table
		}
		bf.arrs[dep] = rel
		ids = append(ids, rel)
	}
	for _, id := range ids {
		bf.pinned[id] = true
		if c := e.colls[id]; c != nil && c.Spilled() && bf.sdb == nil {
			bf.sdb = e.db.NewSnapshot()
		}
	}
	for _, id := range ids {
		if c := e.colls[id]; c != nil && bf.snaps[id] == nil {
			bf.snaps[id] = c.Snapshot(bf.sdb)
		}
	}
	bf.fed = map[uint64]*storage.Collection{}
	for _, rel := range bf.arrs {
		if c := bf.snaps[rel]; c != nil && slices.Contains(mv.sources, rel) {
			bf.fed[rel] = c.EmptyLike()
		}
	}
	for _, id := range mv.sources {
		in := &backfillInput{coll: id, name: e.qualifiedName(id)}
		if c := bf.snaps[id]; c != nil {
			in.total.Store(int64(c.Len()))
		}
		bf.inputs = append(bf.inputs, in)
	}
	return nil
}

// qualifiedName is the qualified name of object id ("" if unknown). The
// caller holds e.mu.
func (e *Engine) qualifiedName(id uint64) string {
	if o := e.cat.byID[id]; o != nil {
		return qualified(o.Schema, o.Name)
	}
	return ""
}

// endBackfill unregisters bf (unpinning its inputs) and releases its
// snapshots. The caller holds e.mu.
func (e *Engine) endBackfill(bf *hydration) {
	delete(e.backfills, bf)
	bf.tail, bf.snaps, bf.fed = nil, nil, nil
	if err := bf.sdb.CloseSnapshot(); err != nil {
		e.log.Warn("releasing a backfill's snapshot", "view", bf.obj.Name, "err", err)
	}
}

// dropAutos drops the automatic indexes a failed backfill created, those
// that nothing else has come to read. The caller holds e.mu.
func (e *Engine) dropAutos(autos []*Object) {
	for _, ix := range autos {
		if e.cat.byID[ix.ID] == nil || len(e.cat.dependents(ix.ID)) > 0 {
			continue
		}
		if err := e.dropLocked(ix, false); err != nil {
			e.log.Warn("dropping the automatic index of a failed backfill", "index", ix.Name, "err", err)
		}
	}
}

// captureBackfills appends a committed transaction's changes to the
// inputs of the running backfills to their tails (t is the commit's
// time). The caller holds e.mu.
func (e *Engine) captureBackfills(deltas map[uint64][]repr.Update) {
	for bf := range e.backfills {
		if bf.overflow {
			continue
		}
		for _, id := range bf.mv.sources {
			d := deltas[id]
			if len(d) == 0 {
				continue
			}
			bf.tail[id] = append(bf.tail[id], d...)
			bf.tailBytes += updatesBytes(d)
		}
		if bf.tailBytes > backfillTailBytes {
			bf.overflow, bf.tail, bf.tailBytes = true, nil, 0
		}
	}
}

// checkNotBackfilling fails DDL that would change or remove obj while a
// backfill reads it (55006, as PostgreSQL's "object in use").
func (e *Engine) checkNotBackfilling(objs ...*Object) error {
	for bf := range e.backfills {
		for _, o := range objs {
			if bf.pinned[o.ID] {
				return repr.Errorf("55006", "cannot change %s \"%s\" because materialized view \"%s\" is being created from it",
					kindName(o.Kind), o.Name, bf.obj.Name).
					WithHint("Wait for CREATE MATERIALIZED VIEW to finish, or cancel it.")
			}
		}
	}
	return nil
}

// backfillingName returns the backfill creating a relation named
// schema.name, if any. The caller holds e.mu.
func (e *Engine) backfillingName(schema, name string) *hydration {
	for bf := range e.backfills {
		if bf.obj.Schema == schema && bf.obj.Name == name {
			return bf
		}
	}
	return nil
}

// backfillRun is the state of phase 2: the view's collection, the batch
// collecting its contents and state, and where progress is reported.
type backfillRun struct {
	bf       *hydration
	ctx      *expr.Ctx
	coll     *storage.Collection
	b        *storage.Batch
	notice   func(*repr.Error)
	lastNote time.Time
}

// run is phase 2: it feeds every source's snapshot through the dataflow,
// backfillChunk rows per Step, all at t0, applying the output to the
// view's new collection and logging contents and state to b. It holds no
// lock: only bf's snapshots and its own dataflow are read.
func (r *backfillRun) run() error {
	faultBackfill.Inject()
	r.lastNote = time.Now()
	for _, in := range r.bf.inputs {
		snap := r.bf.snaps[in.coll]
		if snap == nil {
			continue
		}
		chunk := make([]repr.Update, 0, min(backfillChunk, snap.Len()))
		var err error
		snap.Scan(func(row repr.Row, n int64) bool {
			chunk = append(chunk, repr.Update{Row: row, Time: r.bf.t0, Diff: n})
			if len(chunk) == backfillChunk {
				err = r.step(in, chunk)
				chunk = chunk[:0]
			}
			return err == nil
		})
		if err == nil && len(chunk) > 0 {
			err = r.step(in, chunk)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// step runs one Step of the backfill over chunk, rows of input in.
func (r *backfillRun) step(in *backfillInput, chunk []repr.Update) error {
	select {
	case <-r.ctx.Interrupt:
		return exec.ErrCanceled
	default:
	}
	if fed := r.bf.fed[in.coll]; fed != nil {
		for _, u := range chunk {
			if err := fed.Apply(u.Row, u.Diff, nil); err != nil {
				return err
			}
		}
	}
	ins := map[repr.CollectionID][]repr.Update{repr.CollectionID(in.coll): chunk}
	input := exec.Input{Updates: ins, Now: r.bf.now, Arrangements: snapArrangements{r.bf}}
	out, err := r.bf.mv.df.StepInputRaw(r.ctx, r.bf.t0, input, r.b.Prefixed(storage.StatePrefix(r.bf.obj.ID)))
	if err == nil {
		err = applyOutput(r.coll, out, r.b)
	}
	if err != nil {
		return err
	}
	in.done.Add(int64(len(chunk)))
	if backfillStepped != nil {
		backfillStepped()
	}
	if r.notice != nil && time.Since(r.lastNote) >= backfillNoticeEvery {
		r.lastNote = time.Now()
		r.notice(r.bf.progressNotice())
	}
	return nil
}

// applyOutput applies a view dataflow's output updates, consolidated or
// not, to c, the view's contents. A multiset takes the insertions first,
// then the retractions, so that no count goes negative on the way when the
// sum is valid (a raw output may retract a row before it inserts it). A
// view keyed by its group key (Object.RowKey) takes each adjacent
// retraction and insertion of one key (a Reduce's old and new row of a
// group) as one Replace, then the other retractions, then the other
// insertions, so that a key is free before it is taken again.
func applyOutput(c *storage.Collection, out []repr.Update, b *storage.Batch) error {
	return applyOutputTo(c, out, b, false)
}

// applyOutputTo is applyOutput whose replacements of a keyed view's rows,
// with deferred, are left to the checkpoint's FlushDirty
// (storage.Collection.ReplaceDeferred): b must then be the checkpoint batch.
func applyOutputTo(c *storage.Collection, out []repr.Update, b *storage.Batch, deferred bool) error {
	if c.KeyCols() != nil {
		return applyKeyed(c, out, b, deferred)
	}
	for _, pos := range []bool{true, false} {
		for _, u := range out {
			if u.Diff > 0 == pos {
				if err := c.Apply(u.Row, u.Diff, b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// applyKeyed is applyOutputTo for a keyed view's collection c.
func applyKeyed(c *storage.Collection, out []repr.Update, b *storage.Batch, deferred bool) error {
	var rest []repr.Update
	for i := 0; i < len(out); i++ {
		if u := out[i]; i+1 < len(out) && u.Diff == -1 && out[i+1].Diff == 1 {
			ok, err := c.ReplacePair(u.Row, out[i+1].Row, b, deferred)
			if err != nil {
				return err
			}
			if ok {
				i++
				continue
			}
		}
		rest = append(rest, out[i])
	}
	for _, pos := range []bool{false, true} {
		for _, u := range rest {
			if u.Diff > 0 == pos {
				if err := c.Apply(u.Row, u.Diff, b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// progressNotice is the NOTICE a running backfill sends: rows read of
// the total, per input.
func (bf *hydration) progressNotice() *repr.Error {
	msg := fmt.Sprintf("materialized view \"%s\": backfill read", bf.obj.Name)
	for i, in := range bf.inputs {
		if i > 0 {
			msg += ","
		}
		msg += fmt.Sprintf(" %d of %d rows of %s", in.done.Load(), in.total.Load(), in.name)
	}
	return repr.Errorf("00000", "%s (%s elapsed)", msg, time.Since(bf.started).Round(time.Second))
}

// snapArrangements serves a backfill's shared arrangements from its
// snapshots, so the joins that read them see the inputs at t0 (the live
// ones change meanwhile, and reading them would race the commits).
type snapArrangements struct{ bf *hydration }

// Lookup implements exec.Arrangements.
func (a snapArrangements) Lookup(index uint64, key []byte, d *repr.ColDecoder, fn func(repr.Row, int64) bool) error {
	rel, ok := a.bf.arrs[index]
	c := a.bf.fed[rel]
	if c == nil {
		c = a.bf.snaps[rel]
	}
	if !ok || c == nil {
		return storage.ErrNoIndex
	}
	if rel == index {
		c.ScanPrefixCols(key, d, fn)
		return nil
	}
	return c.ScanIndexCols(index, key, storage.KeyPrefixEnd(key), d, fn)
}
