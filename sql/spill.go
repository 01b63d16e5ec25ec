package sql

import (
	"cmp"
	"runtime"
	"runtime/metrics"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/storage"
)

// Memory budget (Options.MemoryLimit). Tables and materialized views live
// in memory while the process is under budget; past it, the largest spill
// to the store (storage.Collection.Spill: reads then merge the changes
// since the last checkpoint, kept in memory, with the store's rows as of
// that checkpoint). Spilling happens only right after a checkpoint, the
// one moment the store holds exactly every collection (the checkpoint
// batch and every DDL batch are committed, no step is open), which is
// also when spilled collections drop their overlays (Flushed). Restart
// loads collections up to the budget and leaves the rest spilled, then
// measures the heap and spills as a checkpoint would (settleMemory).
//
// The measure is the live heap after the last garbage collection (Go's
// /gc/heap/live:bytes) less the reservations of running work (the
// accountant's, memory.go): spilling starts when it passes spillFraction of
// the budget, or when it plus the most a recent commit's maintenance
// needed passes pressureFraction (a commit that passed that asks for a
// checkpoint at once, memory.go), and spills the largest eligible collections (tables and
// materialized views of at least minSpillBytes) until their estimated
// size (MemBytes) covers the excess. Until the next collection updates
// the measure, what was spilled since counts as freed, and the
// accountant is told (letGo) so that a reservation the spill makes room
// for measures the heap afresh rather than being refused. A spilled
// collection stays spilled until restart.
//
// A retracting source's multiset of live rows (source_rows.go) is a
// collection like a table's rows here.
//
// Operator state competes with collections on the same terms: a
// materialized view's plain joins (exec.Dataflow.SpillCandidates, sized
// by their estimate) spill the same way, at the same moment, largest
// first among collections and operators together, each keeping a cache of
// opCache bytes of hot join keys (an equal share of one pool, a 16th of
// the budget, rebalanced at every checkpoint: shareOpCaches); after every
// checkpoint each view's Flushed lets its spilled operators evict what the
// checkpoint wrote.
// Restart loads operator state within the same bound as collections.

// spillFraction of the budget is the live heap past which collections
// spill: the collector needs room above the live heap (GOGC), and the
// soft memory limit is the whole budget.
const spillFraction = 0.5

// minSpillBytes is the smallest collection worth spilling (a variable
// for tests, which spill every collection).
var minSpillBytes int64 = 1 << 20

// spiller is the engine's memory-budget state (under the engine lock).
type spiller struct {
	// limit is the budget in bytes (0: none, nothing spills).
	limit int64
	// freed is the estimate spilled since the collection numbered gcs.
	freed int64
	gcs   uint64
	// spilled counts collections spilled (for tests and the log).
	spilled int
	// ops is the number of spilled operator states at the last
	// shareOpCaches, which opCache shares the caches' pool among.
	ops int
	// all spills every table and view at every checkpoint, whatever the
	// budget: EDDY_SPILL_ALL=1, a test knob (the crash tests run the
	// server with everything spilled).
	all bool
}

// allOpCache is the cache of each spilled operator under EDDY_SPILL_ALL:
// small, so the crash tests evict and reload keys all the time.
const allOpCache = 64 << 10

// opCachePoolDivisor: the caches of every spilled operator together keep
// at most this fraction of the budget (as the checkpoint batch), each an
// equal share of it, so that the standing heap shrinks with the budget
// however many operators spilled (a 64th of the budget each let 32
// spilled views cache half of it). minOpCache is the least share: below
// it a Step's few keys would be evicted at every checkpoint.
const (
	opCachePoolDivisor = 16
	minOpCache         = 64 << 10
)

// opCache returns the bytes of hot keys each spilled operator may keep
// in memory: an equal share of the pool among the s.ops spilled
// operators, at most a 64th of the budget and between 1 MiB and 64 MiB
// (at least minOpCache however many share the pool).
func (s *spiller) opCache() int64 {
	if s.all {
		return allOpCache
	}
	per := min(max(s.limit/64, 1<<20), 64<<20)
	if s.ops > 0 && s.limit > 0 {
		per = min(per, max(s.limit/opCachePoolDivisor/int64(s.ops), minOpCache))
	}
	return per
}

// shareOpCaches counts the spilled operator states and gives each its
// share of the cache pool (opCache), which it evicts down to at the next
// Flushed (engine lock held).
func (e *Engine) shareOpCaches() {
	n := 0
	for _, mv := range e.views {
		n += len(mv.df.SpilledNodes())
	}
	if n == 0 {
		return
	}
	e.spill.ops = n
	c := e.spill.opCache()
	for _, mv := range e.views {
		mv.df.SetSpillCache(c)
	}
}

// logKeep returns the bytes of buffers a view's state log may keep
// between Steps under the budget (exec's SetStateLogKeep): as a batch's
// spares, a 64th of it, at least 1 MiB; no bound without a budget.
func (s *spiller) logKeep() int64 {
	if s.limit <= 0 {
		return 0
	}
	return max(s.limit/batchKeepDivisor, 1<<20)
}

// batchKeepDivisor: under a memory budget a batch keeps at most this
// fraction of it as spare chunks between uses (storage.Options.BatchKeep,
// at least 1 MiB, at most storage's 16 MiB). The checkpoint batch grows to
// its bound (a sixteenth of the budget, defaultCheckpointOptions) before
// every checkpoint; keeping all of it as spares kept a sixteenth of the
// budget standing between checkpoints (two with a pipelined one pending),
// while allocating the rest again costs a few milliseconds per
// checkpoint.
const batchKeepDivisor = 64

// storeOptions returns the store's options for a memory budget: Pebble's
// block cache and memtables are outside the Go heap, so a small budget
// shrinks them (a large one keeps the defaults). Memtables reserve their
// size in the block cache, so while two memtables exist the cache keeps
// no block: that is on purpose. Memtables a 32nd of the budget each,
// which left the cache room for blocks, cost q7 under 1 GiB 21% more CPU
// and 110 MiB more RSS outside Go (malloc's arenas keeping the freed
// blocks: BENCHMARKS.md); the server counts the store at its bound
// (StoreMemoryBound) instead.
func storeOptions(o Options) storage.Options {
	so := storage.Options{DiskReserve: o.DiskReserve}
	if o.MemoryLimit > 0 {
		so.CacheSize = min(max(o.MemoryLimit/8, 8<<20), 1<<30)
		so.MemTableSize = uint64(min(max(o.MemoryLimit/16, 4<<20), storage.DefaultMemTableSize))
		so.BatchKeep = int(min(max(o.MemoryLimit/batchKeepDivisor, 1<<20), 16<<20))
	}
	return so
}

// loadBound returns how many bytes of entries the next collection a
// restart loads may keep in memory (-1: no bound), given loaded, the
// estimate of those already loaded.
func (s *spiller) loadBound(loaded int64) int64 {
	if s.all {
		return 0
	}
	if s.limit <= 0 {
		return -1
	}
	return max(int64(float64(s.limit)*spillFraction)-loaded, 0)
}

// restored returns the bytes a restore has loaded so far, given loaded,
// their estimate, and base, the live heap when the restore began: the
// larger of the estimate and the live heap's growth since (the estimates
// leave out some of the heap their entries take, so the bound of
// loadBound holds in the heap too, as far as the last collection saw).
func (s *spiller) restored(loaded int64, base uint64) int64 {
	if s.limit <= 0 {
		return loaded
	}
	live, _ := heapStats()
	return max(loaded, int64(live)-int64(base))
}

// spillable reports whether the collection id may spill: a table or a
// (non-transient) materialized view, whose every change is logged to a
// batch the checkpoint commits. System relations and SUBSCRIBE's
// temporary collections change without logging and never spill.
func (e *Engine) spillable(id uint64) bool {
	o := e.cat.byID[id]
	if o == nil {
		return false
	}
	if o.Kind == planner.RelTable {
		return true
	}
	mv := e.views[id]
	return o.Kind == planner.RelMaterializedView && mv != nil && !mv.transient
}

// afterCheckpoint runs after a checkpoint committed (engine lock held):
// spilled collections drop their overlays, and if the live heap is past
// the budget's spill point the largest collections spill.
//
// Inside a transaction block with DDL (e.ddl) it does nothing: the block's
// deferred batch holds writes (index entries of CREATE INDEX, rows of a
// rewritten table) that the store does not have until COMMIT.
func (e *Engine) afterCheckpoint() {
	need := e.mem.takePressure()
	if e.ddl != nil {
		return
	}
	for _, c := range e.colls {
		c.Flushed()
	}
	e.eachSourceRows(func(_ uint64, c *storage.Collection) { c.Flushed() })
	e.shareOpCaches()
	for _, mv := range e.views {
		mv.df.Flushed()
		mv.df.SetStateLogKeep(e.spill.logKeep())
	}
	s := &e.spill
	if s.all {
		e.spillAll()
		return
	}
	defer e.shareOpCaches()
	if s.limit <= 0 {
		return
	}
	live, gcs := e.heapStats()
	e.revokeOldSnapshot(live)
	if gcs != s.gcs {
		s.freed, s.gcs = 0, gcs
	}
	// Running work's reservations (memory.go) are transient: they do not
	// make tables and views spill, but the need of a recent commit's
	// maintenance does (it will come again).
	excess := spillExcess(int64(live)-e.mem.reservedBytes(), need, s.limit) - s.freed
	if excess <= 0 {
		return
	}
	for _, v := range e.spillCandidates() {
		if excess <= 0 {
			break
		}
		if !e.spillOne(v) {
			continue
		}
		s.freed += v.bytes
		excess -= v.bytes
		e.mem.letGo(v.bytes)
		s.spilled++
		if v.node < 0 {
			e.log.Info("collection spilled to disk", "id", v.id, "name", e.cat.byID[v.id].Name,
				"rows", v.c.Len(), "est_bytes", v.bytes, "live_heap", live, "memory_limit", s.limit)
		} else {
			e.log.Info("operator state spilled to disk", "id", v.id, "name", e.cat.byID[v.id].Name, "node", v.node,
				"est_bytes", v.bytes, "live_heap", live, "memory_limit", s.limit)
		}
	}
}

// settleMemory runs the spill policy on a fresh measure of the live heap
// (engine lock not held): at the end of start-up, whose restore loads
// state by estimate and whose replay is not accounted, and after a
// statement that the budget refused because standing memory filled it
// (makeRoom). It collects garbage, checkpoints if the store lacks some
// state (else runs the policy at once, the store holding every state),
// and collects again once something spilled, so that the accountant's
// standing memory no longer counts what spilled.
func (e *Engine) settleMemory() {
	if e.spill.limit <= 0 {
		return
	}
	e.collect()
	var spilled int
	e.writeLocked(func() {
		before := e.spill.spilled
		if e.stateBatch().Len() > 0 || e.ck.durable != e.clock {
			e.logCheckpointErr(e.checkpointLocked()) // runs the policy
		} else {
			e.afterCheckpoint()
		}
		spilled = e.spill.spilled - before
	})
	live, _ := e.heapStats()
	if spilled > 0 {
		e.collect()
	}
	after, _ := e.heapStats()
	e.log.Info("memory settled", "live_heap", live, "spilled", spilled, "live_heap_after", after, "memory_limit", e.spill.limit)
}

// makeRoom settles memory after a statement the budget refused, if the
// refusal asked for a spill (memory.go): standing memory filled the
// budget, so the statement's next attempt finds room. The statement
// itself has failed with 53200 and let go of what it held.
func (e *Engine) makeRoom() {
	if e.mem.wantsSpill() {
		e.settleMemory()
	}
}

// collect runs a garbage collection, through the accountant (whose
// collections unit tests replace) so that it measures standing memory
// afresh, or the runtime's without one.
func (e *Engine) collect() {
	if e.mem != nil {
		e.mem.measure()
		return
	}
	runtime.GC()
}

// spillExcess returns how many bytes of state should spill, given
// standing memory (the live heap less running work's reservations) and
// the most a commit's maintenance needed lately: enough to bring standing
// memory under spillFraction of the budget, and standing memory plus that
// need under pressureFraction, so that a commit as large again is not
// refused at workFraction (memory.go).
func spillExcess(standing, need, limit int64) int64 {
	f := float64(limit)
	return max(standing-int64(f*spillFraction), standing+need-int64(f*pressureFraction))
}

// spillAll spills every spillable collection and operator state
// (EDDY_SPILL_ALL).
func (e *Engine) spillAll() {
	for id, c := range e.colls {
		if !c.Spilled() && e.spillable(id) {
			c.Spill(e.db)
		}
	}
	e.eachSourceRows(func(_ uint64, c *storage.Collection) {
		if !c.Spilled() {
			c.Spill(e.db)
		}
	})
	for id, mv := range e.views {
		if e.spillable(id) {
			for _, c := range mv.df.SpillCandidates() {
				if e.spillOne(sizedState{id: id, node: c.Node, mv: mv}) {
					e.log.Debug("operator state spilled to disk", "name", e.cat.byID[id].Name, "node", c.Node,
						"operator", dataflow.OpName(mv.df.Plan().Nodes[c.Node].Op))
				}
			}
		}
	}
}

// sizedState is a collection (node -1) or a materialized view's operator
// state (its dataflow node) and its estimated in-memory size.
type sizedState struct {
	id    uint64
	node  int
	c     *storage.Collection
	mv    *matView
	bytes int64
}

// spillOne spills v, reporting whether it spilled.
func (e *Engine) spillOne(v sizedState) bool {
	if v.node < 0 {
		v.c.Spill(e.db)
		return v.c.Spilled()
	}
	return v.mv.df.SpillNode(v.node, e.db.PrefixedReader(storage.StatePrefix(v.id)), e.spill.opCache())
}

// spillCandidates returns the in-memory spillable collections and
// operator states of at least minSpillBytes, largest first.
func (e *Engine) spillCandidates() []sizedState {
	var out []sizedState
	for id, c := range e.colls {
		if c.Spilled() || !e.spillable(id) {
			continue
		}
		if n := c.MemBytes(); n >= minSpillBytes {
			out = append(out, sizedState{id: id, node: -1, c: c, bytes: n})
		}
	}
	e.eachSourceRows(func(id uint64, c *storage.Collection) {
		if n := c.MemBytes(); !c.Spilled() && n >= minSpillBytes {
			out = append(out, sizedState{id: id, node: -1, c: c, bytes: n})
		}
	})
	for id, mv := range e.views {
		if !e.spillable(id) {
			continue
		}
		for _, c := range mv.df.SpillCandidates() {
			if c.Bytes >= minSpillBytes {
				out = append(out, sizedState{id: id, node: c.Node, mv: mv, bytes: c.Bytes})
			}
		}
	}
	slices.SortFunc(out, func(a, b sizedState) int {
		return cmp.Or(cmp.Compare(b.bytes, a.bytes), cmp.Compare(a.id, b.id), cmp.Compare(a.node, b.node))
	})
	return out
}

// heapStats is the accountant's reading of the heap (which unit tests
// replace), the runtime's without one.
func (e *Engine) heapStats() (live, gcs uint64) {
	if e.mem != nil {
		return e.mem.heap()
	}
	return heapStats()
}

// heapStats returns the live heap after the last garbage collection and
// the number of collections so far.
func heapStats() (live, gcs uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		gcs = s[1].Value.Uint64()
	}
	return live, gcs
}

// SpilledOperators returns the number of materialized views' operator
// states spilled so far (tests).
func (e *Engine) SpilledOperators() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := 0
	for _, mv := range e.views {
		n += len(mv.df.SpilledNodes())
	}
	return n
}

// SpilledCollections returns the number of collections spilled so far
// (tests).
func (e *Engine) SpilledCollections() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := 0
	for _, c := range e.colls {
		if c.Spilled() {
			n++
		}
	}
	e.eachSourceRows(func(_ uint64, c *storage.Collection) {
		if c.Spilled() {
			n++
		}
	})
	return n
}

// eachSourceRows calls fn with the live-row multiset of each retracting
// source (source_rows.go), which spills like a table's rows: every change
// of it is logged to the checkpoint batch.
func (e *Engine) eachSourceRows(fn func(id uint64, c *storage.Collection)) {
	for id, st := range e.sources {
		if st.rows != nil {
			fn(id, st.rows.c)
		}
	}
}

// StoreMemory returns the bytes the store holds outside the Go heap
// (its block cache and memtables: storage.DB.OffHeapBytes).
func (e *Engine) StoreMemory() int64 {
	return e.db.OffHeapBytes()
}

// StoreMemoryBound returns the most the store holds outside the Go heap
// under the budget of o (storage.OffHeapBound of its options), zombie
// memtables aside.
func StoreMemoryBound(o Options) int64 {
	return storage.OffHeapBound(storeOptions(o))
}
