package sql

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// beginMatView creates the view under the engine's lock when it cannot
// backfill outside it (done), else prepares its backfill.
func (e *Engine) beginMatView(obj *Object, ifNotExists bool, s *Session, interrupt <-chan struct{}, mem expr.Memory) (bf *hydration, done bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ddl != nil || e.atomic != nil || e.replaysSources(obj) {
		return nil, true, e.guardLocked(func() error {
			return e.createMatViewLocked(obj, ifNotExists, interrupt, mem, s.addNotice)
		})
	}
	bf, err = e.prepareBackfill(obj, ifNotExists, s.backend.PID)
	return bf, false, err
}

// createMatView installs a materialized view: it plans the query into a
// dataflow, backfills it by feeding the contents of its sources through
// the same operators, and persists the catalog entry, the contents and
// the operator state in one batch. Outside a transaction block the
// backfill runs without the engine lock (backfill.go); inside one, or
// within a statement's atomic steps, under it. When interrupt closes
// during the backfill (the statement was cancelled) nothing of the view
// is left. The session s sends progress NOTICEs; during the backfill its
// statement gives up its txGate slot, so that a block with DDL need not
// wait for the backfill (and hold everyone else back meanwhile).
func (e *Engine) createMatView(obj *Object, ifNotExists bool, s *Session) error {
	interrupt, mem := s.interrupt(), s.mem.memory()
	bf, done, err := e.beginMatView(obj, ifNotExists, s, interrupt, mem)
	if done || bf == nil || err != nil {
		return err
	}
	r := &backfillRun{bf: bf, ctx: e.backfillCtx(bf, interrupt), coll: storage.NewCollection(obj.ID, obj.storeKey()),
		b: e.db.NewBatch(), notice: s.progressNotice()}
	r.ctx.Memory = mem
	defer r.b.Close()
	err = e.backfillOutside(bf, func() error {
		return e.gate.outside(cmp.Or(s.stmtCtx, context.Background()), s, false, r.run)
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.endBackfillOnPanic(bf)
	if err == nil {
		bf.phase.Store(phaseCatchUp)
		err = e.guardLocked(func() error { return e.installBackfilled(r, interrupt) })
	}
	e.endBackfill(bf)
	if err != nil && e.ddl == nil {
		e.dropAutos(bf.autos)
	}
	return err
}

// backfillOutside runs a backfill outside the engine lock (run); a panic
// in it ends the backfill (under the lock, with its auto-indexes
// dropped) before it goes on to the statement's recovery, so that nothing
// of the view is left behind.
func (e *Engine) backfillOutside(bf *hydration, run func() error) error {
	defer func() {
		if r := recover(); r != nil {
			e.writeLocked(func() { e.abandonBackfill(bf) })
			panic(r)
		}
	}()
	return run()
}

// endBackfillOnPanic, deferred under e.mu, abandons the backfill when a
// panic passes, then lets the panic go on.
func (e *Engine) endBackfillOnPanic(bf *hydration) {
	if r := recover(); r != nil {
		e.abandonBackfill(bf)
		panic(r)
	}
}

// abandonBackfill ends a backfill that failed, dropping the auto-indexes
// it created. The caller holds e.mu.
func (e *Engine) abandonBackfill(bf *hydration) {
	e.endBackfill(bf)
	if e.ddl == nil {
		e.dropAutos(bf.autos)
	}
}

// progressNotice returns the function that sends a running statement's
// progress NOTICE to the client at once (nil: the session has no
// connection).
func (s *Session) progressNotice() func(*repr.Error) {
	if s.backend.Notice == nil {
		return nil
	}
	return func(e *repr.Error) { s.backend.Notice(Notice{Severity: "NOTICE", Err: e}) }
}

// replaysSources reports whether the view obj defines reads a source (not
// a connector-fed table): its backfill replays the source's history up to
// the source's committed position (source_history.go), which must not
// move meanwhile, so it stays under the lock. A query that does not plan
// is left to the locked path to report. The caller holds e.mu.
func (e *Engine) replaysSources(obj *Object) bool {
	_, deps, err := e.describeQuery(obj.SQL, true, obj.TimeZone)
	if err != nil {
		return true
	}
	for _, id := range deps {
		if st := e.sources[id]; st != nil && !st.def.IsTable {
			return true
		}
	}
	return false
}

// backfillCtx is the evaluation context of a backfill's Steps: a view's
// (viewCtx) at the snapshot's time, stopped by interrupt.
func (e *Engine) backfillCtx(bf *hydration, interrupt <-chan struct{}) *expr.Ctx {
	return &expr.Ctx{TimeZone: "UTC", StmtTimestamp: bf.now, Interrupt: interrupt}
}

// installBackfilled is phase 3 (backfill.go): under the lock, it catches
// the backfilled dataflow up with the commits since the snapshot (or,
// when its tail overflowed, backfills a fresh dataflow from the present
// contents) at a new logical time, and commits the view. The caller holds
// e.mu.
func (e *Engine) installBackfilled(r *backfillRun, interrupt <-chan struct{}) error {
	obj := r.bf.obj
	if err := e.checkInstallable(obj); err != nil {
		return err
	}
	if err := e.checkpointLocked(); err != nil {
		return err
	}
	b := r.b
	if err := e.persistObject(obj, b); err != nil {
		return err
	}
	prevClock := e.clock
	t := e.tick(b)
	mv, c, err := e.catchUp(r, t, interrupt)
	if err == nil {
		err = e.cat.add(obj)
	}
	if err != nil {
		e.clock = prevClock
		return err
	}
	faultInstallView.Inject()
	if err := e.commitDDL(b); err != nil {
		e.cat.remove(obj)
		e.clock = prevClock
		return err
	}
	e.colls[obj.ID], e.views[obj.ID] = c, mv
	mv.df.Commit()
	c.Commit()
	return nil
}

// checkInstallable checks that obj can still join the catalog: its name
// is free (another session may have taken it with a RENAME) and every
// object it reads exists. The caller holds e.mu.
func (e *Engine) checkInstallable(obj *Object) error {
	if e.cat.lookup(obj.Schema, obj.Name) != nil {
		return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", obj.Name)
	}
	for _, id := range obj.Deps {
		if e.cat.byID[id] == nil {
			return repr.Errorf(repr.CodeUndefinedTable, "a relation materialized view \"%s\" reads was dropped during its backfill", obj.Name)
		}
	}
	return nil
}

// catchUp steps the backfilled dataflow at t with the tail, the changes
// committed to its sources since the snapshot, summed into one input as
// one commit of them all would be; when the tail overflowed it builds and
// backfills a fresh dataflow from the present contents instead. The
// caller holds e.mu.
func (e *Engine) catchUp(r *backfillRun, t repr.Time, interrupt <-chan struct{}) (*matView, *storage.Collection, error) {
	bf, w := r.bf, r.b.Prefixed(storage.StatePrefix(r.bf.obj.ID))
	if bf.overflow {
		e.log.Info("backfill tail overflowed; backfilling again under the lock", "view", bf.obj.Name)
		r.b.DeletePrefix(storage.RowPrefix(bf.obj.ID))
		r.b.DeletePrefix(storage.StatePrefix(bf.obj.ID))
		mv, err := e.buildView(bf.obj)
		if err != nil {
			return nil, nil, err
		}
		c := storage.NewCollection(bf.obj.ID, bf.obj.storeKey())
		ctx := e.viewCtx()
		ctx.Interrupt, ctx.Memory = interrupt, r.ctx.Memory
		in := e.viewInput(mv, e.collectionInputs(mv.df.Sources(), t))
		out, err := mv.df.StepInputRaw(ctx, t, in, w)
		if err == nil {
			err = applyOutput(c, out, r.b)
		}
		return mv, c, err
	}
	in := map[repr.CollectionID][]repr.Update{}
	for id, us := range bf.tail {
		for i := range us {
			us[i].Time = t
		}
		in[repr.CollectionID(id)] = us
	}
	out, err := e.stepView(bf.mv, t, in, w, r.ctx.Memory, false)
	if err == nil {
		err = applyOutput(r.coll, out, r.b)
	}
	return bf.mv, r.coll, err
}

// eddyBackfillRows lists the running backfills, by start.
func eddyBackfillRows(s *sysSnap) []repr.Row {
	r := sysRelsByName[qualified(nsEddyCatalog, "eddy_backfills")]
	bfs := make([]*hydration, 0, len(s.e.backfills))
	for bf := range s.e.backfills {
		bfs = append(bfs, bf)
	}
	slices.SortFunc(bfs, func(a, b *hydration) int { return a.started.Compare(b.started) })
	var out []repr.Row
	for _, bf := range bfs {
		var names []string
		var done, total int64
		for _, in := range bf.inputs {
			names = append(names, in.name)
			done, total = done+in.done.Load(), total+in.total.Load()
		}
		phase, _ := bf.phase.Load().(string)
		out = append(out, r.row(map[string]repr.Datum{"pid": repr.NewInt(int64(bf.pid)),
			"schemaname": nameD(bf.obj.Schema), "viewname": nameD(bf.obj.Name), "inputs": repr.NewText(strings.Join(names, ", ")),
			"started_at": tsOrNull(bf.started), "rows_done": repr.NewInt(done), "rows_total": repr.NewInt(total),
			"phase": repr.NewText(phase), "tail_bytes": repr.NewInt(bf.tailBytes)}))
	}
	return out
}
