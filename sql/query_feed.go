package sql

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Query inputs read from O(1) snapshots. A query's dataflow is fed its
// sources as insertions at the statement's time (the batch case of the
// incremental operators). Rather than copying every row of every source
// under the engine lock, a queryFeed takes, under the lock, an O(1)
// copy-on-write snapshot of each large stored collection
// (storage.Collection.Snapshot, plus one Pebble snapshot when one is
// spilled) and reads it after the lock is released, feedChunk rows per
// Step, so what a statement holds of its inputs is one chunk at a time
// (the dataflow's operators keep and account what they need). Small
// inputs (point reads' key ranges, system relations, collections of at
// most feedChunk rows) are gathered at once and fed with the first Step,
// so a query over small inputs runs exactly one Step, as before. The
// transaction's own pending writes to a chunked collection follow its
// last chunk (after the rows they may retract). Feeding one insertion in
// several Steps at one time gives the same consolidated output as one
// Step: the operators are incremental (a view's backfill relies on it
// too, backfill.go).

// feedChunk is the most rows a Step of a chunked input reads (a
// variable: tests make it small).
var feedChunk = 32768

// queryFeed is the input of one run of a query's dataflow.
type queryFeed struct {
	t repr.Time
	// first is fed with the first Step: the small inputs (and their
	// pending writes), whole.
	first map[repr.CollectionID][]repr.Update
	// scans are the large inputs, smallest first, read in chunks; then
	// their pending writes.
	scans []*collScan
	// store is the Pebble snapshot spilled collections' snapshots read
	// (nil: none); close releases it.
	store *storage.DB
	// chunk is the rows per Step of a scan: it starts small for a
	// stream (its first rows come at once) and doubles up to feedChunk.
	chunk int
	// whole is the most rows of a collection gathered at once.
	whole int
	// charged is the largest chunk's memory accounted so far: chunks are
	// dropped after their Step, so one is held at a time.
	charged int64
	steps   int
	// lastFed: the last input next returned is (part of) the last scan.
	lastFed bool
}

// collScan is a large input: a snapshot read in key order from from.
type collScan struct {
	id      repr.CollectionID
	c       *storage.Collection
	from    []byte
	started bool
	pending []repr.Update
}

// done reports whether the scan read every row.
func (s *collScan) done() bool { return s.started && s.from == nil }

// openFeed gathers the input of a query reading srcs at time t: the rows
// under the key prefix of each point input (see pointInputs) that the
// transaction has not written to, nothing of the collections in skip,
// system relations computed now, and every other source as a snapshot
// (with ws's pending writes, copied: a later write of the block is not
// the statement's). The caller holds e.mu shared; the feed may be read
// after it lets go, and must be closed.
func (e *Engine) openFeed(points []pointInput, srcs []repr.CollectionID, skip map[repr.CollectionID]bool, ctx *expr.Ctx, t repr.Time, ws *writeSet) (*queryFeed, error) {
	return e.openFeedBy(points, srcs, skip, ctx, t, ws, feedChunk, feedChunk)
}

// openFeedBy is openFeed reading collections of more than whole rows
// from snapshots, chunk rows in the first Step of a scan (doubling up to
// feedChunk).
func (e *Engine) openFeedBy(points []pointInput, srcs []repr.CollectionID, skip map[repr.CollectionID]bool, ctx *expr.Ctx, t repr.Time, ws *writeSet, whole, chunk int) (*queryFeed, error) {
	f := &queryFeed{t: t, first: make(map[repr.CollectionID][]repr.Update, len(srcs)), chunk: chunk, whole: whole}
	if !disablePointReads {
		for _, p := range points {
			if len(ws.pending(uint64(p.coll))) > 0 || skip[p.coll] {
				continue
			}
			rows, ok, err := e.pointSnapshot(p, ctx, t, ws)
			if err != nil {
				return nil, err
			}
			if ok {
				f.first[p.coll] = rows
				pointReadCount.Add(1)
			}
		}
	}
	for _, id := range srcs {
		if _, ok := f.first[id]; ok || skip[id] || f.scanning(id) {
			continue
		}
		if rows, ok := e.sysSnapshot(uint64(id), ctx, t, ws); ok {
			f.first[id] = rows
			continue
		}
		if err := e.feedCollection(f, id, ws); err != nil {
			f.close()
			return nil, err
		}
	}
	slices.SortStableFunc(f.scans, func(a, b *collScan) int { return a.c.Len() - b.c.Len() })
	return f, nil
}

// scanning reports whether id is one of f's chunked inputs.
func (f *queryFeed) scanning(id repr.CollectionID) bool {
	return slices.ContainsFunc(f.scans, func(s *collScan) bool { return s.id == id })
}

// feedCollection adds stored collection id, as ws reads it, to f: whole
// when small, else as a snapshot. The caller holds e.mu shared.
func (e *Engine) feedCollection(f *queryFeed, id repr.CollectionID, ws *writeSet) error {
	c, err := e.readColl(uint64(id), ws)
	if err != nil {
		return err
	}
	pend := ws.pending(uint64(id))
	if c != nil {
		e.countScan(ws, uint64(id), "", c.Len()+len(pend))
	}
	if c == nil || c.Len() <= f.whole || disableFeedSnapshots {
		var rows []repr.Update
		if c != nil {
			rows = scanUpdates(c, f.t)
		}
		for _, u := range pend {
			rows = append(rows, repr.Update{Row: u.Row, Time: f.t, Diff: u.Diff})
		}
		f.first[id] = rows
		return nil
	}
	if snapshotOf(ws) == nil {
		c = e.snapshotColl(c, &f.store) // a block's snapshot is read-only already
	}
	s := &collScan{id: id, c: c}
	for _, u := range pend {
		s.pending = append(s.pending, repr.Update{Row: u.Row, Time: f.t, Diff: u.Diff})
	}
	f.scans = append(f.scans, s)
	snapshotFeedCount.Add(1)
	if _, ok := f.first[id]; !ok {
		f.first[id] = nil // the first Step names every source
	}
	return nil
}

// snapshotFeedCount counts the inputs fed from snapshots in chunks
// (tests).
var snapshotFeedCount atomic.Int64

// probeJoinCount counts the queries run with probe-only joins (tests).
var probeJoinCount atomic.Int64

// disableFeedSnapshots makes every input whole (tests compare the two).
var disableFeedSnapshots = false

// snapshotColl returns an O(1) snapshot of live collection c, taking the
// store's snapshot into *store first when c is spilled and none is taken
// yet. The caller holds e.mu shared; the registry's lock orders the
// clones of concurrent readers (Clone writes the trees' copy-on-write
// contexts, as pinSnapshot's do).
func (e *Engine) snapshotColl(c *storage.Collection, store **storage.DB) *storage.Collection {
	e.snaps.mu.Lock()
	defer e.snaps.mu.Unlock()
	if c.Spilled() && *store == nil {
		*store = e.db.NewSnapshot()
	}
	return c.Snapshot(*store)
}

// next returns the input of the next Step (ok false when every input was
// fed; the first call always returns one, so a query over empty inputs
// still runs its Step). It accounts the largest chunk in ctx's account.
func (f *queryFeed) next(ctx *expr.Ctx) (in map[repr.CollectionID][]repr.Update, ok bool, err error) {
	f.steps++
	if f.steps == 1 {
		in, f.first = f.first, nil
		return in, true, f.account(ctx, in)
	}
	for i, s := range f.scans {
		f.lastFed = i == len(f.scans)-1
		if s.done() {
			if s.pending != nil {
				in = map[repr.CollectionID][]repr.Update{s.id: s.pending}
				s.pending = nil
				return in, true, nil
			}
			continue
		}
		// A fresh slice per chunk: a Step's output may share its input's.
		buf := make([]repr.Update, 0, f.chunk)
		s.from = s.c.ScanChunk(s.from, f.chunk, func(r repr.Row, n int64) {
			buf = append(buf, repr.Update{Row: r, Time: f.t, Diff: n})
		})
		s.started = true
		f.chunk = min(2*f.chunk, feedChunk)
		in = map[repr.CollectionID][]repr.Update{s.id: buf}
		return in, true, f.account(ctx, in)
	}
	return nil, false, nil
}

// account charges the memory of in beyond the largest chunk charged so
// far.
func (f *queryFeed) account(ctx *expr.Ctx, in map[repr.CollectionID][]repr.Update) error {
	var n int64
	for _, us := range in {
		n += updatesBytesSampled(us)
	}
	if n <= f.charged {
		return nil
	}
	grow := n - f.charged
	f.charged = n
	return growMemory(ctx, grow)
}

// close releases f's snapshots.
func (f *queryFeed) close() {
	if f == nil {
		return
	}
	f.scans, f.first = nil, nil
	_ = f.store.CloseSnapshot()
	f.store = nil
}

// runFeed steps df over every input of f at f.t and returns its whole
// output, consolidated. The output of the Steps is gathered and
// consolidated whenever it doubles, so it holds about the answer (plus
// the cancelling changes of the last Steps), not every Step's changes.
// With top set (a monotone plan under ORDER BY ... LIMIT), the gathered
// output is cut to the first top.n rows instead: a bounded top-n.
func runFeed(df *exec.Dataflow, f *queryFeed, ctx *expr.Ctx, arr exec.Arrangements, top *topN) ([]repr.Update, error) {
	var acc []repr.Update
	compacted := 0
	transient := growthKept
	if top != nil && top.n <= int64(feedChunk) {
		transient = transientGrowth(df.Plan()) // its output is cut to a small top
	}
	for {
		in, ok, err := f.next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		mark := stepMark(ctx)
		out, err := df.StepInput(ctx, f.t, exec.Input{Updates: in, Arrangements: arr}, nil)
		if err != nil {
			return nil, err
		}
		if transient == growthAll || transient == growthLast && f.lastFed {
			mark.free()
		}
		if acc == nil {
			acc = out
			continue
		}
		acc = append(acc, out...)
		if len(acc) > 2*compacted+feedChunk {
			if top != nil {
				acc = top.cut(acc)
			} else {
				acc = exec.Consolidate(acc)
			}
			compacted = len(acc)
		}
	}
	df.Commit()
	if f.steps > 2 {
		acc = exec.Consolidate(acc)
	}
	return acc, nil
}

// growthMark is an account's use before a Step (see transientGrowth).
type growthMark struct {
	a    *memAccount
	used int64
}

// stepMark marks ctx's account before a Step.
func stepMark(ctx *expr.Ctx) growthMark {
	a, _ := ctx.Memory.(*memAccount)
	if a == nil {
		return growthMark{}
	}
	return growthMark{a, a.used}
}

// free returns the growth accounted since the mark: the Step kept
// nothing of it.
func (m growthMark) free() {
	if m.a != nil {
		m.a.free(m.a.used - m.used)
	}
}

// topN is an ORDER BY with a LIMIT (and OFFSET): only the first n rows of
// a monotone plan's output can be in the answer.
type topN struct {
	order []expr.SortCol
	n     int64
}

// queryTopN returns the bounded top-n of q over plan, nil when q has no
// ORDER BY with a LIMIT, or plan is not monotone or ws wrote to one of
// its sources (later output may then retract rows).
func queryTopN(q *planner.Query, plan *dataflow.Plan, ws *writeSet) *topN {
	if len(q.OrderBy) == 0 || q.Limit < 0 || q.Offset > math.MaxInt64-q.Limit || !monotone(plan) {
		return nil
	}
	for _, n := range plan.Nodes {
		if src, ok := n.Op.(dataflow.Source); ok && len(ws.pending(uint64(src.Collection))) > 0 {
			return nil
		}
	}
	return &topN{order: q.OrderBy, n: q.Offset + q.Limit}
}

// cut keeps the first n rows of us (insertions) in the query's order,
// ties broken by the whole row as the final consolidation orders them,
// so the rows kept are those a full sort would put first.
func (t *topN) cut(us []repr.Update) []repr.Update {
	slices.SortFunc(us, func(a, b repr.Update) int {
		if c := compareBy(a.Row, b.Row, t.order); c != 0 {
			return c
		}
		return repr.CompareRows(a.Row, b.Row)
	})
	var rows int64
	for i := range us {
		if rows+us[i].Diff >= t.n {
			us[i].Diff = t.n - rows
			clear(us[i+1:])
			return us[:i+1]
		}
		rows += us[i].Diff
	}
	return us
}

// appendOnlyTopK returns plan with every TopK with a limit whose input is
// insertions only marked AppendOnly, so that it keeps only the rows
// ranked within its offset and limit (dataflow.TopK.AppendOnly), or plan
// itself when none qualifies. An ad hoc query's inputs are insertions
// unless its transaction wrote to them; a TopK's input then is too when
// the operators below it are monotone (see monotone).
func appendOnlyTopK(plan *dataflow.Plan, ws *writeSet) *dataflow.Plan {
	if disableFeedSnapshots {
		return plan
	}
	mono := make([]bool, len(plan.Nodes))
	var out *dataflow.Plan
	for i, n := range plan.Nodes {
		ok := monotone(&dataflow.Plan{Nodes: []dataflow.Node{{Op: n.Op}}})
		if src, isSrc := n.Op.(dataflow.Source); isSrc && len(ws.pending(uint64(src.Collection))) > 0 {
			ok = false
		}
		for _, in := range n.Inputs {
			ok = ok && mono[in]
		}
		mono[i] = ok
		if k, isTopK := n.Op.(dataflow.TopK); isTopK && !k.AppendOnly && k.Limit >= 0 && mono[n.Inputs[0]] {
			if out == nil {
				cp := *plan
				cp.Nodes = slices.Clone(plan.Nodes)
				out = &cp
			}
			k.AppendOnly = true
			out.Nodes[i].Op = k
		}
	}
	if out == nil {
		return plan
	}
	return out
}
