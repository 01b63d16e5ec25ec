package sql

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"unsafe"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// writeSet is the changes one transaction makes to tables, in statement
// order. Changes are (row, diff) pairs; an UPDATE is a -1/+1 pair.
type writeSet struct {
	order   []uint64
	changes map[uint64][]repr.Update
	// snap is the block's pinned snapshot at REPEATABLE READ or
	// SERIALIZABLE (snapshot.go; nil: statements read the latest state).
	snap *txSnapshot
	// locks are the rows of each table the block read FOR UPDATE or FOR
	// SHARE, checked unchanged at COMMIT (locks.go).
	locks map[uint64][]lockedRow
	// readAs, when set, is what the statement's reads see instead (the
	// state before a WITH statement's data-modifying parts: reader).
	readAs *writeSet
	// claims, while a WITH statement with data-modifying parts runs, are
	// the rows its parts updated or deleted (modifying_order.go).
	claims rowClaims
	// owner is the session whose block this is (nil: an autocommit
	// statement's), for the row locks its writes hold (rowlocks.go).
	owner *Session
	// mods are the rows each table's statements inserted, updated or
	// deleted, added to its n_mod_since_analyze when ws commits
	// (statcounters.go).
	mods map[uint64]int64
	// xact are the transaction's own activity counters per table, which
	// pg_stat_xact_*_tables show (statcounters.go).
	xact xactActivity
}

// reader is the write set a statement's reads see: ws, or while a WITH
// statement with data-modifying parts runs, ws as it was before it.
func (w *writeSet) reader() *writeSet {
	if w != nil && w.readAs != nil {
		return w.readAs
	}
	return w
}

// frozen is a copy of w's state for reading (see readAs): later changes
// to w do not show in it.
func (w *writeSet) frozen() *writeSet {
	return &writeSet{order: slices.Clone(w.order), changes: maps.Clone(w.changes), snap: w.snap, locks: w.locks}
}

func (w *writeSet) add(table uint64, row repr.Row, diff int64) {
	if w.changes == nil {
		w.changes = map[uint64][]repr.Update{}
	}
	if _, ok := w.changes[table]; !ok {
		w.order = append(w.order, table)
	}
	w.changes[table] = append(w.changes[table], repr.Update{Row: row, Diff: diff})
}

// addAll adds diff copies of every row of rows to table's changes, like
// add for each, growing the changes once.
func (w *writeSet) addAll(table uint64, rows []repr.Row, diff int64) {
	if len(rows) == 0 {
		return
	}
	w.add(table, rows[0], diff)
	ch := slices.Grow(w.changes[table], len(rows)-1)
	for _, r := range rows[1:] {
		ch = append(ch, repr.Update{Row: r, Diff: diff})
	}
	w.changes[table] = ch
}

func (w *writeSet) empty() bool { return len(w.order) == 0 }

// accountSince charges ctx's account (the statement's) for the changes
// added since mark m: a statement whose writes would pass the memory
// budget fails with 53200 before it commits. Only the updates themselves
// are charged, not their rows: a change's row is one its statement
// already accounted (a query's output, COPY's parsed rows), a row the
// plan holds (VALUES) or a stored row (the old row of an UPDATE or
// DELETE); counting its datums again doubled a COPY's estimate
// (TestMemoryEstimates). Once the statement ends, a block's write set is
// standing memory, which the accountant measures from the heap.
func (w *writeSet) accountSince(m wsMark, ctx *expr.Ctx) error {
	var n int64
	for _, id := range w.order {
		n += int64(len(w.since(m, id)))
	}
	return growMemory(ctx, n*updateBytes)
}

// updateBytes is the memory of one change in a write set, beside its row.
const updateBytes = int64(unsafe.Sizeof(repr.Update{}))

// wsMark is a position in a write set (see mark).
type wsMark map[uint64]int

// mark returns the current length of every table's changes.
func (w *writeSet) mark() wsMark {
	m := make(wsMark, len(w.order))
	for _, id := range w.order {
		m[id] = len(w.changes[id])
	}
	return m
}

// since returns table's changes after mark m.
func (w *writeSet) since(m wsMark, table uint64) []repr.Update {
	return w.changes[table][m[table]:]
}

// rollbackTo drops the changes made after mark m.
func (w *writeSet) rollbackTo(m wsMark) {
	order := w.order[:0]
	for _, id := range w.order {
		n, ok := m[id]
		if !ok {
			delete(w.changes, id)
			continue
		}
		w.changes[id] = w.changes[id][:n]
		order = append(order, id)
	}
	w.order = order
}

// pending returns the transaction's own changes to table (for reads inside
// the transaction).
func (w *writeSet) pending(table uint64) []repr.Update {
	if w == nil {
		return nil
	}
	return w.changes[table]
}

// applyTx is the state of one commit in progress: what it touched, so that
// a failure anywhere undoes everything in memory, and the changes of every
// collection, for subscribers once the commit is durable.
type applyTx struct {
	e       *Engine
	colls   []*storage.Collection
	stepped []*matView
	deltas  map[uint64][]repr.Update
	// t is the commit's logical time.
	t repr.Time
	// state is the checkpoint batch and stateMark its position when the
	// commit began, so a failure also drops the commit's state writes.
	state     *storage.Batch
	stateMark storage.Mark
	// mem accounts the memory of the commit's view maintenance (nil
	// without a budget, and while replaying): a view whose Step passes
	// the budget fails the whole commit with 53200.
	mem *memAccount
	// ssi is the record a SERIALIZABLE block's commit leaves (ssi.go).
	ssi *ssiTxn
}

func (a *applyTx) rollback() {
	a.mem.release()
	if a.state != nil {
		a.state.RollbackTo(a.stateMark)
	}
	for _, c := range a.colls {
		c.Rollback()
	}
	for _, mv := range a.stepped {
		mv.df.Rollback()
	}
}

// maintaining names mv as the work of the commit's memory account and
// returns the account for its Step.
func (a *applyTx) maintaining(mv *matView) expr.Memory {
	if a.mem == nil {
		return nil
	}
	a.mem.view = mv.obj.Name
	return a.mem
}

// chargeBatches accounts the n bytes the commit wrote to its batches
// (the group's and the checkpoint's), which stay in memory until they
// are written: a commit whose batches pass the budget fails with 53200.
func (a *applyTx) chargeBatches(n int) error {
	if a.mem == nil {
		return nil
	}
	a.mem.view = "" // the work is the commit's own
	return a.mem.add(int64(n))
}

func (a *applyTx) commit() {
	a.mem.release()
	for _, c := range a.colls {
		c.Commit()
	}
	if a.e != nil {
		a.e.noteModified(a.t, a.deltas)
		if a.ssi != nil {
			a.e.logSSI(a.ssi)
		}
	}
	for _, mv := range a.stepped {
		mv.df.Commit()
		if len(a.deltas[mv.obj.ID]) > 0 {
			mv.changedAt = a.t
		}
	}
}

// apply validates and applies ws at time t, logging state writes to the
// checkpoint batch and metadata (sink logs) to b, and recording in tx what
// must be undone on failure.
func (e *Engine) apply(ws *writeSet, t repr.Time, b *storage.Batch, tx *applyTx) error {
	faultCommit.Inject()
	sb := e.stateBatch()
	if !e.ck.replaying {
		if err := e.checkAtCommit(ws); err != nil {
			return err
		}
		if err := e.checkLocks(ws); err != nil {
			return err
		}
	}
	deltas := map[uint64][]repr.Update{}
	for _, id := range ws.order {
		obj := e.cat.byID[id]
		c := e.colls[id]
		if obj == nil || c == nil {
			return repr.Errorf(repr.CodeSerializationFailure, "could not serialize access: table was dropped concurrently")
		}
		c.Begin()
		tx.colls = append(tx.colls, c)
		changes := ws.changes[id]
		d := make([]repr.Update, 0, len(changes))
		for _, u := range changes {
			if err := c.Apply(u.Row, u.Diff, sb); err != nil {
				return changeError(obj, u, err)
			}
			d = append(d, repr.Update{Row: u.Row, Time: t, Diff: u.Diff})
		}
		deltas[id] = d
	}
	if err := e.propagate(deltas, t, b, tx); err != nil {
		return err
	}
	var err error
	tx.ssi, err = e.checkSSI(ws.snap, tx.deltas)
	return err
}

// propagate steps every materialized view whose sources changed or whose
// temporal filter has a transition due at the step's wall-clock time, in
// ID (= dependency) order, applying each view's output to its contents.
// View contents and operator state go to the checkpoint batch, sink log
// entries to the commit's batch b.
func (e *Engine) propagate(deltas map[uint64][]repr.Update, t repr.Time, b *storage.Batch, tx *applyTx) error {
	sb := e.stateBatch()
	start := processCPU()
	defer e.stopSharing()
	for _, mv := range e.viewsInOrder() {
		var in map[repr.CollectionID][]repr.Update
		for _, src := range mv.sources {
			if d := deltas[src]; len(d) > 0 {
				if in == nil {
					in = map[repr.CollectionID][]repr.Update{}
				}
				in[repr.CollectionID(src)] = d
			}
		}
		if in == nil && !e.due(mv) {
			continue
		}
		e.shareScans(mv)
		var w exec.StateWriter
		vb := sb
		if mv.transient {
			vb = nil // temporary views keep no durable state
		} else {
			w = sb.Prefixed(storage.StatePrefix(mv.obj.ID))
		}
		// Inside a block with DDL, state is logged at once: the block's
		// writes are not the committed state's (ddltxn.go).
		out, err := e.stepView(mv, t, in, w, tx.maintaining(mv), w != nil && e.ddl == nil)
		if err != nil && mv.transient {
			e.failTransient(mv, err) // a subscriber's query never fails a write
			continue
		}
		if err != nil {
			return err
		}
		tx.stepped = append(tx.stepped, mv)
		if err := e.applyViewOutput(mv.obj.ID, out, vb, tx); err != nil {
			return err
		}
		if !mv.transient {
			if err := e.checkViewUnique(mv.obj.ID, out); err != nil {
				return err
			}
		}
		start = mv.cpu.add(start)
		deltas[mv.obj.ID] = out
	}
	e.consolidateWatched(deltas)
	e.logSinks(deltas, t, b)
	tx.deltas, tx.t = deltas, t
	return nil
}

// shareScans lets the views stepped in this commit share their lookups
// of mv's sources (storage.Collection.ShareScans): views joining a
// change with the same table look up the same keys, and the tables do
// not change while the views step (a view's own rows do, and a change
// empties its memo). The caller holds e.mu.
func (e *Engine) shareScans(mv *matView) {
	for _, src := range mv.sources {
		if c := e.colls[src]; c != nil && !c.SharesScans() {
			c.ShareScans(true)
			e.sharing = append(e.sharing, c)
		}
	}
}

// stopSharing ends the sharing of shareScans once the commit's views
// have stepped, dropping what the lookups remembered.
func (e *Engine) stopSharing() {
	for _, c := range e.sharing {
		c.ShareScans(false)
	}
	clear(e.sharing)
	e.sharing = e.sharing[:0]
}

// checkViewUnique checks the UNIQUE indexes of materialized view id
// after a step applied out to its contents: a key that a row inserted
// now holds more than once fails the write with 23505, which rolls it
// back (PostgreSQL's REFRESH fails alike). It costs one index lookup per
// inserted row. The caller holds e.mu.
func (e *Engine) checkViewUnique(id uint64, out []repr.Update) error {
	obj := e.cat.byID[id]
	if obj == nil {
		return nil
	}
	keys := e.cat.uniqueKeys(obj)
	if len(keys) == 0 {
		return nil
	}
	ctx := &expr.Ctx{}
	for _, k := range keys {
		ix := &keyIndex{coll: e.colls[id], ix: k.index}
		seen := map[string]bool{}
		for _, u := range out {
			if u.Diff <= 0 {
				continue
			}
			key, ok, err := k.key.unique(ctx, u.Row)
			if err != nil {
				return err
			}
			if !ok || seen[key] {
				continue
			}
			seen[key] = true
			if ix.count(key, nil) > 1 {
				return uniqueViolation(obj, k.name, k.key, u.Row)
			}
		}
	}
	return nil
}

// consolidateWatched consolidates the deltas that leave the engine, those
// of relations that a subscription or a sink reads, so that they see one
// update per changed row and none that cancel. A view's dataflow output is
// not consolidated (see exec's StepInputRaw): its collection and the
// dataflows of views over it accumulate by key anyway.
func (e *Engine) consolidateWatched(deltas map[uint64][]repr.Update) {
	for id, d := range deltas {
		if len(d) == 0 {
			continue
		}
		watched := len(e.subs[id]) > 0
		for _, s := range e.sinks {
			watched = watched || s.def.From == id
		}
		if watched {
			deltas[id] = exec.Consolidate(d)
		}
	}
}

// applyViewOutput applies a view dataflow's output updates, consolidated
// or not, to the view's stored contents (see applyOutput).
func (e *Engine) applyViewOutput(id uint64, out []repr.Update, b *storage.Batch, tx *applyTx) error {
	c := e.colls[id]
	c.Begin()
	tx.colls = append(tx.colls, c)
	// Replaced rows are written at the checkpoint (flushViewState), as
	// group records are: b is the checkpoint batch, and a block with DDL
	// logs at once (see propagate).
	return applyOutputTo(c, out, b, b != nil && e.ddl == nil)
}

// changeError turns the collection's refusal of a change into the
// constraint error it means: a primary key that is already present is
// 23505; a deletion that does not find its row means a concurrent
// transaction changed it (40001). Collection.Apply checks both against the
// current contents as it applies, so commit needs no separate lookup.
func changeError(obj *Object, u repr.Update, err error) error {
	switch {
	case errors.Is(err, storage.ErrDuplicateKey):
		return duplicateKey(obj, u.Row)
	case errors.Is(err, storage.ErrRowMismatch):
		return repr.Errorf(repr.CodeSerializationFailure, "could not serialize access due to concurrent update")
	}
	return err
}

func duplicateKey(obj *Object, row repr.Row) error {
	var names, vals []string
	for _, i := range obj.PrimaryKey {
		names = append(names, obj.Columns[i].Name)
		vals = append(vals, repr.FormatText(row[i], obj.Columns[i].Type, nil))
	}
	return repr.Errorf(repr.CodeUniqueViolation, "duplicate key value violates unique constraint \"%s\"", obj.pkeyName()).
		WithDetail("Key (%s)=(%s) already exists.", join(names), join(vals))
}

// viewsInOrder returns the installed materialized views in ID order.
func (e *Engine) viewsInOrder() []*matView {
	out := make([]*matView, 0, len(e.views))
	for _, mv := range e.views {
		out = append(out, mv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].obj.ID < out[j].obj.ID })
	return out
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

var _ = planner.RelTable
