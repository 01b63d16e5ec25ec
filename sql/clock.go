package sql

import (
	"errors"
	"time"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Wall-clock time as data. Every logical time the coordinator assigns (a
// commit, an ingested batch, a view's backfill, a Tick) also gets a
// wall-clock timestamp, read here and nowhere below sql: max(previous,
// clock()), so it never decreases, even when the system clock steps back,
// and it is stored with the logical clock so it does not go back after a
// restart either. Views see it as exec.Input.Now (temporal filters keep
// the rows valid at that time) and as expr.Ctx.StmtTimestamp (so
// proctime() in a view is the arrival time of the rows of that step).
//
// proctime() limitation: the arrival time is evaluated when an update
// passes through the view, so it is only meaningful for append-only
// inputs (sources). A deletion from a table reaches the view later and is
// evaluated at its own step's time, so it would not cancel the row's
// insertion. Rather than give that wrong answer, a step that feeds a
// retraction to a view evaluating proctime() fails with 0A000 (stepView):
// such views accept inserts only.
//
// Between writes, Tick advances time: the server calls it periodically
// while some view holds temporal state.

// metaWallClock stores the last wall-clock time assigned, in microseconds
// since 2000-01-01 UTC.
var metaWallClock = storage.MetaKey("wall_clock")

// wallClock is the engine's wall-clock state (under the engine lock).
type wallClock struct {
	// now is the clock to read (time.Now when nil); see SetClock.
	now func() time.Time
	// last is the wall-clock time of the latest logical time.
	last int64
}

// SetClock replaces the clock the engine reads for wall-clock time (the
// test hook: tests advance time deterministically and call Tick). The
// engine still never lets its wall-clock time decrease.
func (e *Engine) SetClock(now func() time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.wall.now = now
}

// read returns the clock's current time in timestamptz microseconds.
func (w *wallClock) read() int64 {
	if w.now == nil {
		return repr.TimeToTimestamp(time.Now())
	}
	return repr.TimeToTimestamp(w.now())
}

// advanceWall assigns the wall-clock time of a new logical time and logs
// it to b. The engine lock must be held.
func (e *Engine) advanceWall(b *storage.Batch) {
	e.wall.last = max(e.wall.last, e.wall.read())
	b.Set(metaWallClock, encodeInt64(e.wall.last))
}

// restoreWall loads the last assigned wall-clock time.
func (e *Engine) restoreWall() error {
	v, ok, err := e.db.Get(metaWallClock)
	if ok {
		e.wall.last = decodeInt64(v)
	}
	return err
}

// viewCtx is the evaluation context of a view step at the current logical
// time: UTC, and the step's wall-clock time as the statement timestamp.
func (e *Engine) viewCtx() *expr.Ctx {
	return &expr.Ctx{TimeZone: "UTC", StmtTimestamp: e.wall.last}
}

// viewInput is the Step input of a view at the current logical time.
func (e *Engine) viewInput(mv *matView, in map[repr.CollectionID][]repr.Update) exec.Input {
	return exec.Input{Updates: in, Watermarks: e.sourceWatermarks(mv.sources), Now: e.wall.last, Arrangements: arrangements{e}}
}

// stepView steps mv at logical time t with its input in (nil: none),
// logging state to w and accounting its growth in mem (nil: none), after checking that no retraction reaches a view
// that evaluates proctime() (see the limitation above). With deferState,
// w writes to the checkpoint batch and mv's operators may leave state
// to the checkpoint's flushViewState (exec.Input.DeferState).
func (e *Engine) stepView(mv *matView, t repr.Time, in map[repr.CollectionID][]repr.Update, w exec.StateWriter, mem expr.Memory, deferState bool) ([]repr.Update, error) {
	if hasRetraction(in) && usesProctime(mv.df.Plan()) {
		return nil, repr.Unsupported("deleting or updating rows that reach materialized view %q, which calls proctime() "+
			"(arrival times are defined only for append-only inputs)", mv.obj.Name)
	}
	ctx := e.viewCtx()
	ctx.Memory = mem
	input := e.viewInput(mv, in)
	input.DeferState = deferState
	out, err := mv.df.StepInputRaw(ctx, t, input, w)
	var p *exec.OperatorPanic
	if errors.As(err, &p) {
		e.log.Error("panic in a dataflow operator", "view", mv.obj.Name, "panic", p.Value, "stack", string(p.Stack))
		err = repr.Errorf(repr.CodeInternal, "internal error maintaining materialized view %q: %v", mv.obj.Name, err)
	}
	return out, err
}

// hasRetraction reports whether some update has a negative diff.
func hasRetraction(in map[repr.CollectionID][]repr.Update) bool {
	for _, us := range in {
		for _, u := range us {
			if u.Diff < 0 {
				return true
			}
		}
	}
	return false
}

// usesProctime reports whether some expression of the plan calls proctime().
func usesProctime(p *dataflow.Plan) bool {
	var exprs []expr.Expr
	for _, n := range p.Nodes {
		switch op := n.Op.(type) {
		case dataflow.MFP:
			exprs = append(append(exprs, op.Map...), op.Filter...)
		case dataflow.Join:
			exprs = append(exprs, op.Residual...)
		}
	}
	for _, e := range exprs {
		if callsFunc(e, "proctime") {
			return true
		}
	}
	return false
}

// callsFunc reports whether e calls the function named name.
func callsFunc(e expr.Expr, name string) bool {
	if c, ok := e.(*expr.Call); ok && c.Fn.Name == name {
		return true
	}
	for _, k := range expr.Children(e) {
		if callsFunc(k, name) {
			return true
		}
	}
	return false
}

// due reports whether a temporal filter of mv changes its output at the
// current wall-clock time, so mv must be stepped even without input.
func (e *Engine) due(mv *matView) bool {
	at, ok := mv.df.NextTransition()
	return ok && at <= e.wall.last
}

// ReleaseIdleReads closes the store iterators that spilled tables and
// views keep between reads (storage's DB.ReleaseIdle): a commit does it
// too, so the server calls it when writes may pause.
func (e *Engine) ReleaseIdleReads() { e.db.ReleaseIdle() }

// HasTemporal reports whether some materialized view has a temporal
// filter, i.e. whether Tick can ever do anything.
func (e *Engine) HasTemporal() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, mv := range e.views {
		if mv.df.Temporal() {
			return true
		}
	}
	return false
}

// Tick advances wall-clock time without a write: if a temporal filter of
// some view has a transition due by now, it commits a new logical time at
// which every such view (and the views reading it) is stepped with no
// input, so rows enter and leave the views exactly as time passes. When
// nothing is due it does nothing (no logical time is used). Views without
// a due transition are not stepped: their output would not change.
func (e *Engine) Tick() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.committer.broken; err != nil {
		return err
	}
	if d := e.ddl; d != nil && d.holdsTicks(e.views) {
		return nil // a later tick catches up
	}
	now := max(e.wall.last, e.wall.read())
	if !e.anyDue(now) {
		return nil
	}
	if err := e.db.CheckSpace(); err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevClock := e.clock
	t := e.tick(b)
	tx := e.newTx()
	err := e.propagateRecover(t, b, tx)
	if err == nil {
		e.logInput(b, t, encodeTickRecord(e.wall.last))
		err = e.db.Commit(b)
	}
	if err != nil {
		tx.rollback()
		e.clock = prevClock
		return err
	}
	tx.commit()
	e.captureBackfills(tx.deltas)
	e.publish(t, tx.deltas)
	e.committed(1)
	return nil
}

// propagateRecover steps the views due at t with no input (Tick), with a
// panic (a bug) turned into an XX000 error, which Tick then rolls back
// like any failed step: unrecovered, the panic unwound through Tick with
// the views it had stepped neither committed nor rolled back, and the
// clock advanced, and the ticker's recovery left them so (state no log
// record would rebuild).
func (e *Engine) propagateRecover(t repr.Time, b *storage.Batch, tx *applyTx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic advancing temporal filters", "panic", r, "stack", stack())
			err = repr.Errorf(repr.CodeInternal, "internal error advancing temporal filters: %v", r)
		}
	}()
	return e.propagate(map[uint64][]repr.Update{}, t, b, tx)
}

// anyDue reports whether some view has a temporal transition at or
// before now.
func (e *Engine) anyDue(now int64) bool {
	for _, mv := range e.views {
		if at, ok := mv.df.NextTransition(); ok && at <= now {
			return true
		}
	}
	return false
}
