package sql

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Engine is the coordinator: it owns the catalog, the in-memory contents of
// every table and materialized view (mirrored in Pebble), the installed
// dataflows, and the logical clock. One RWMutex orders everything: commits
// and DDL hold it exclusively (including the durable write, so nothing is
// visible before it is durable); reads hold it shared and so see every
// collection at the same logical time.
type Engine struct {
	mu sync.RWMutex
	// recBuf is scratch for encoding source log records (under mu; the
	// batch copies the record).
	recBuf []byte
	// replayer regenerates deterministic sources' batches (nil: none).
	replayer SourceReplayer
	db       *storage.DB
	log      *slog.Logger
	cat      *Catalog
	colls    map[uint64]*storage.Collection
	views    map[uint64]*matView
	// sharing are the collections whose prefix scans the views of the
	// commit in propagate share (storage.Collection.ShareScans; under mu).
	sharing []*storage.Collection
	// dropListed are the tables a multi-object DROP names while it runs
	// (dropList; nil otherwise, under mu).
	dropListed map[uint64]bool
	// planRows, when not nil, replaces the collections' sizes for
	// planning, and rowsSeen, when not nil, records the sizes planning
	// read (collectionSize; under mu).
	planRows, rowsSeen map[uint64]int64
	// sources are the runtime states of sources and connector-fed tables.
	sources    map[uint64]*sourceState
	connectors Connectors
	// sinks are the sinks by ID (see sink.go).
	sinks map[uint64]*sinkState
	// subs are the subscribers of each collection; nextTransient numbers
	// the temporary views of SUBSCRIBE (query).
	subs          map[uint64]map[*subscriber]bool
	nextTransient uint64
	clock         repr.Time
	// wall is the wall-clock time of the latest logical time (clock.go).
	wall   wallClock
	nextID uint64
	// temps hands out the sessions' temporary schema numbers (temp.go).
	temps tempNumbers
	// committer groups concurrent commits (see groupcommit.go).
	committer committer
	// ck is the checkpoint state (see checkpoint.go).
	ck checkpointer
	// spill is the memory budget's state (see spill.go).
	spill spiller
	// mem accounts the memory of running work against the budget
	// (memory.go; nil without one).
	mem *accountant
	// subscribeBytes bounds each subscriber's queue (Options.SubscribeBufferBytes).
	subscribeBytes int64
	// workers is the number of workers view dataflows run on
	// (Options.Workers).
	workers int
	// seqMu guards seqs, the sequences' values by qualified name
	// (sequence.go); DDL takes it after mu, nextval alone.
	seqMu sync.Mutex
	seqs  map[string]*seqState
	// backends are the live sessions with a connection, by pid.
	backends backends
	// stats are the activity statistics counters (statcounters.go).
	stats statCounters
	// idxMu guards indexes, the key indexes of constraint checks by
	// table and columns (keyindex.go).
	idxMu   sync.Mutex
	indexes map[string]*keyIndex
	// roles are the roles (roles.go).
	roles roleSet
	// gate orders statements against blocks that run DDL, and ddl is the
	// open one's deferred writes and undo (ddltxn.go; under mu).
	gate txGate
	ddl  *ddlTx
	// snaps are the pinned snapshots of REPEATABLE READ and SERIALIZABLE
	// blocks, and modTime the logical time each collection last changed
	// (snapshot.go; modTime under mu).
	snaps   snapshots
	modTime map[uint64]repr.Time
	// ssi records the committed SERIALIZABLE blocks concurrent with an
	// open one (ssi.go; under mu).
	ssi ssiLog
	// rowLocks are the row locks open blocks hold (rowlocks.go).
	rowLocks rowLockTable
	// backfills are the CREATE MATERIALIZED VIEWs backfilling outside the
	// lock (backfill.go; under mu).
	backfills map[*hydration]bool
	// atomic, while a statement's DDL steps run atomically, collects
	// their writes (ddltxn.go; under mu).
	atomic *storage.Batch
	// Version is reported by version() and server_version.
	Version string
}

// matView is an installed materialized view: its dataflow and the
// collections it reads.
type matView struct {
	obj     *Object
	df      *exec.Dataflow
	sources []uint64
	// transient views (SUBSCRIBE (query)) keep no durable state.
	transient bool
	// changedAt is the logical time of the view's last committed change
	// since the engine started (0: none), for eddy_dataflow_operators.
	changedAt repr.Time
	// cpu is the CPU time of the view's steps since the engine started
	// (stepcpu.go), for eddy_dataflow_operators.
	cpu stepCPU
}

var (
	metaClock  = storage.MetaKey("clock")
	metaNextID = storage.MetaKey("next_id")
)

// Open opens (or creates) the data directory and restores the catalog, the
// tables, and every materialized view from its persisted state.
func Open(dir string, log *slog.Logger) (*Engine, error) {
	return OpenWith(dir, log, Options{})
}

// Options configure an Engine beyond its data directory.
type Options struct {
	// Replayer regenerates the batches of deterministic sources, which
	// the input log then records by position only (see SourceReplayer);
	// nil logs every source batch in full.
	Replayer SourceReplayer
	// Superuser names the bootstrap superuser a new data directory gets
	// (OID 10, like initdb's user); "" is eddy. An existing data
	// directory keeps the name it was created with.
	Superuser string
	// MemoryLimit is the memory budget in bytes; 0: none. Past half of
	// it (the live heap), checkpoints spill the largest tables and views
	// to the store (spill.go); work that would take the process past
	// three quarters of it fails with 53200 (memory.go).
	MemoryLimit int64
	// SubscribeBufferBytes bounds the estimated memory of the commits
	// queued for one subscriber; a subscriber past it is cut off (54000).
	// 0: 64 MiB.
	SubscribeBufferBytes int64
	// DiskReserve is the free disk space in bytes below which writes
	// fail with 53100 (storage.Options.DiskReserve; 0: its default).
	DiskReserve int64
	// Workers is the number of workers each materialized view's
	// dataflow runs on: its keyed stateful operators run as that many
	// shards, concurrently (exec.BuildWorkers). 0 or 1: one. The test
	// knob EDDY_WORKERS overrides it.
	Workers int
}

// OpenWith is Open with options.
func OpenWith(dir string, log *slog.Logger, o Options) (*Engine, error) {
	so := storeOptions(o)
	so.Logger = log
	db, err := storage.Open(dir, so)
	if err != nil {
		return nil, err
	}
	e := &Engine{db: db, log: log, cat: newCatalog(), colls: map[uint64]*storage.Collection{},
		views: map[uint64]*matView{}, sources: map[uint64]*sourceState{}, nextID: 1000,
		replayer: o.Replayer, spill: spiller{limit: o.MemoryLimit}, mem: newAccountant(o.MemoryLimit),
		subscribeBytes: o.SubscribeBufferBytes}
	if e.subscribeBytes <= 0 {
		e.subscribeBytes = defaultSubscribeBufferBytes
	}
	e.ck.opts, e.ck.last = defaultCheckpointOptions(o.MemoryLimit), time.Now()
	e.spill.all = os.Getenv("EDDY_SPILL_ALL") == "1"
	e.workers = workersKnob(o.Workers)
	backfillKnobs()
	if os.Getenv("EDDY_MEMORY_ACCOUNTING") == "0" {
		e.mem = nil // a test knob: the budget drives spilling only
	}
	e.cat.size = e.collectionSize
	err = e.checkFormat()
	if err == nil {
		err = e.loadRoles()
	}
	if err == nil {
		err = e.BootstrapRole(cmp.Or(o.Superuser, "eddy"), "")
	}
	if err == nil {
		err = e.restore()
	}
	if err == nil {
		err = e.checkStamp()
	}
	if err == nil {
		err = e.replayLog()
	}
	if err == nil {
		err = e.dropTempLeftovers()
	}
	if err != nil {
		e.closeBatches()
		_ = db.Close()
		return nil, err
	}
	e.settleMemory()
	return e, nil
}

// workersKnob returns the workers of view dataflows: EDDY_WORKERS when
// set to a positive number (a test knob: the oracle and crash tests run
// with several workers under it), else n.
func workersKnob(n int) int {
	if w, err := strconv.Atoi(os.Getenv("EDDY_WORKERS")); err == nil && w > 0 {
		return w
	}
	return max(n, 1)
}

// Workers returns the number of workers view dataflows run on
// (Options.Workers, or EDDY_WORKERS).
func (e *Engine) Workers() int { return e.workers }

// Close writes a last checkpoint and closes the store.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushSequences()
	e.closeCheckpointer()
	e.committer.close()
	return e.db.Close()
}

// CloseWithoutCheckpoint closes the store as a crash would leave it: what
// was acknowledged is in the log, the pending checkpoint is dropped (for
// tests of recovery).
func (e *Engine) CloseWithoutCheckpoint() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closeBatches()
	return e.db.Close()
}

// closeBatches releases the reused batches without writing them.
func (e *Engine) closeBatches() {
	if pc := e.ck.pending; pc != nil {
		_ = pc.p.Wait() // a crash may have it land or not: the log holds its commits
		_ = pc.batch.Close()
		e.ck.pending = nil
	}
	for _, b := range []*storage.Batch{e.ck.batch, e.ck.spare} {
		if b != nil {
			_ = b.Close()
		}
	}
	e.ck.batch, e.ck.spare = nil, nil
	e.committer.close()
}

// checkStamp compares the restored store with the stamp its last
// checkpoint left (storage.Stamp): a store whose clock or object IDs are
// behind it lost files Pebble did not notice, and must not be served.
func (e *Engine) checkStamp() error {
	s, ok, err := e.db.ReadStamp()
	if err != nil || !ok {
		return err
	}
	if e.clock < s.Checkpoint || e.nextID < s.NextID {
		return fmt.Errorf("the data directory is damaged: its store is at logical time %d (next object ID %d), "+
			"but its last checkpoint reached %d (next object ID %d): a store file was truncated, lost or replaced "+
			"by an older copy; restore the directory from a backup", e.clock, e.nextID, s.Checkpoint, s.NextID)
	}
	return nil
}

// restore loads the clock, the catalog and every collection, and rebuilds
// each materialized view's dataflow from its definition and persisted state.
func (e *Engine) restore() error {
	if v, ok, err := e.db.Get(metaClock); err != nil {
		return err
	} else if ok {
		e.clock = binary.BigEndian.Uint64(v)
	}
	if err := e.restoreWall(); err != nil {
		return err
	}
	if v, ok, err := e.db.Get(metaNextID); err != nil {
		return err
	} else if ok {
		e.nextID = binary.BigEndian.Uint64(v)
	}
	if err := e.restoreSchemas(); err != nil {
		return err
	}
	if err := e.restoreDefaultACLs(); err != nil {
		return err
	}
	if err := e.restoreObjectACLs(); err != nil {
		return err
	}
	var objs []*Object
	err := e.db.Scan(storage.CatalogPrefix(), func(_, v []byte) error {
		o, err := decodeObject(v)
		objs = append(objs, o)
		return err
	})
	if err != nil {
		return err
	}
	// loaded is the bytes of the collections and operator states loaded
	// so far: their estimate, or the growth of the live heap since the
	// restore began when the estimate falls short of it.
	var loaded int64
	base, _ := heapStats()
	for _, o := range sortByID(objs) {
		if err := e.cat.add(o); err != nil {
			return err
		}
		if o.Source != nil {
			if err := e.registerSource(o); err != nil {
				return fmt.Errorf("restoring source %s: %w", o.Name, err)
			}
			if r := e.sources[o.ID].rows; r != nil {
				if err := r.c.LoadSpillable(e.db, e.spill.loadBound(loaded)); err != nil {
					return fmt.Errorf("loading the rows of source %s: %w", o.Name, err)
				}
				loaded = e.spill.restored(loaded+r.c.MemBytes(), base)
			}
		}
		if o.Kind == relSequence {
			if err := e.registerSequence(o); err != nil {
				return fmt.Errorf("restoring sequence %s: %w", o.Name, err)
			}
			continue
		}
		if o.Kind == relIndex {
			if err := e.restoreIndex(o); err != nil {
				return fmt.Errorf("restoring index %s: %w", o.Name, err)
			}
			continue
		}
		if o.Kind == planner.RelView || o.Kind == planner.RelSource || o.Kind == relType || o.Kind == relFunction {
			continue
		}
		c := storage.NewCollection(o.ID, o.storeKey())
		if err := c.LoadSpillable(e.db, e.spill.loadBound(loaded)); err != nil {
			return fmt.Errorf("loading %s: %w", o.Name, err)
		}
		loaded = e.spill.restored(loaded+c.MemBytes(), base)
		e.colls[o.ID] = c
		if o.Kind == planner.RelMaterializedView {
			mv, err := e.buildView(o)
			if err != nil {
				return fmt.Errorf("rebuilding materialized view %s: %w", o.Name, err)
			}
			held, err := mv.df.RestoreWithin(e.db.PrefixedReader(storage.StatePrefix(o.ID)), e.spill.loadBound(loaded), e.spill.opCache())
			if err != nil {
				return fmt.Errorf("restoring materialized view %s: %w", o.Name, err)
			}
			loaded = e.spill.restored(loaded+held, base)
			e.views[o.ID] = mv
			if n := mv.df.SpilledNodes(); len(n) > 0 {
				e.log.Debug("materialized view restored with operator state spilled", "name", o.Name, "nodes", fmt.Sprint(n))
			}
		}
	}
	e.log.Info("catalog restored", "objects", len(objs), "clock", e.clock)
	return nil
}

// buildView builds a materialized view's dataflow (without state) from
// its stored plan, planning and storing one (in o.Plan) when it has none.
func (e *Engine) buildView(o *Object) (*matView, error) {
	if o.Plan == "" {
		text, err := e.planView(o)
		if err != nil {
			return nil, err
		}
		o.Plan = text
	}
	plan, err := dataflow.Parse(o.Plan)
	if err != nil {
		return nil, fmt.Errorf("materialized view %s: stored plan: %w", o.Name, err)
	}
	df, err := exec.BuildWorkers(plan, e.workers)
	if err != nil {
		return nil, err
	}
	mv := &matView{obj: o, df: df}
	for _, id := range df.Sources() {
		mv.sources = append(mv.sources, uint64(id))
	}
	if err := e.checkMaintainable(mv.sources); err != nil {
		return nil, err
	}
	return mv, nil
}

// planView plans a materialized view's query and returns its printed
// dataflow plan, after checking that the text parses back to the same plan
// (the stored text is what every later start runs).
func (e *Engine) planView(o *Object) (string, error) {
	stmts, err := parseOne(o.SQL)
	if err != nil {
		return "", err
	}
	q, err := planner.PlanQuery(e.cat, stmts, planner.Options{MaterializedView: true, TimeZone: o.TimeZone})
	if err != nil {
		return "", err
	}
	rel := viewRel(q)
	if o.EmitOnWindowClose {
		if rel, err = emitOnClose(rel); err != nil {
			return "", err
		}
	}
	plan, _, err := compile(rel)
	if err != nil {
		return "", err
	}
	plan = isolateSources(plan, e.cat.isTable)
	text := plan.String()
	back, err := dataflow.Parse(text)
	if err != nil {
		return "", repr.Errorf(repr.CodeInternal, "materialized view %s: the printed plan does not parse: %v", o.Name, err)
	}
	if back.String() != text {
		orig, again := firstDiffLine(text, back.String())
		return "", repr.Errorf(repr.CodeInternal, "materialized view %s: the printed plan does not parse back to itself: %q reads back as %q", o.Name, orig, again)
	}
	return text, nil
}

// firstDiffLine returns the first line where a and b differ.
func firstDiffLine(a, b string) (string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		x, y := "", ""
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return x, y
		}
	}
	return "", ""
}

// allocID returns a fresh object ID and logs the new counter to b.
func (e *Engine) allocID(b *storage.Batch) uint64 {
	id := e.nextID
	e.nextID++
	b.Set(metaNextID, binary.BigEndian.AppendUint64(nil, e.nextID))
	return id
}

// tick advances the logical clock for one commit, assigns its wall-clock
// time (clock.go) and logs both to b.
func (e *Engine) tick(b *storage.Batch) repr.Time {
	e.clock++
	b.Set(metaClock, binary.BigEndian.AppendUint64(nil, e.clock))
	if e.ck.replaying {
		e.wall.last = max(e.wall.last, e.ck.replayWall)
		return e.clock
	}
	e.advanceWall(b)
	return e.clock
}

// collectionSize returns the number of distinct rows of a stored
// relation (0 if it has none), the planner's size estimate.
//
// Planning choices depend on sizes (join order, which side of a join is
// shared), so the sizes a materialized view's plan saw are recorded with
// it (Object.PlanRows, while e.rowsSeen is set), and checking whether a
// change leaves its plan alone plans it again with those sizes (while
// e.planRows is set): a view created before its data is not refused an
// ALTER TABLE because the data came.
func (e *Engine) collectionSize(id uint64) int64 {
	var n int64
	switch c := e.colls[id]; {
	case e.planRows != nil:
		n = e.planRows[id]
	case c != nil:
		n = int64(c.Len())
	}
	if e.rowsSeen != nil && n > 0 {
		e.rowsSeen[id] = n
	}
	return n
}

// snapshot returns the live rows of a collection as insertions at time t.
func (e *Engine) snapshot(id uint64, t repr.Time) []repr.Update {
	c := e.colls[id]
	if c == nil {
		return nil
	}
	return scanUpdates(c, t)
}

// evalCtx returns the evaluation context for maintaining views: views
// may not use volatile functions, so only the time zone matters.
func evalCtx() *expr.Ctx { return &expr.Ctx{TimeZone: "UTC"} }

// collectionInputs gathers the snapshot of every source of a dataflow.
func (e *Engine) collectionInputs(srcs []repr.CollectionID, t repr.Time) map[repr.CollectionID][]repr.Update {
	in := map[repr.CollectionID][]repr.Update{}
	for _, id := range srcs {
		if _, ok := in[id]; !ok {
			in[id] = e.snapshot(uint64(id), t)
		}
	}
	return in
}

func sortByID(objs []*Object) []*Object {
	c := newCatalog()
	for _, o := range objs {
		c.byID[o.ID] = o
	}
	return c.objects()
}
