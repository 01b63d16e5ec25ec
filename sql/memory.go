package sql

import (
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Memory accounting (--memory-limit, Options.MemoryLimit). One accountant
// per engine knows the budget and every reservation. Work that keeps what
// it produces holds an account (memAccount): a statement (its dataflow's
// Steps, its snapshot, its buffered result; the portal keeps the account
// while it holds rows), a commit (the maintenance of every view it steps),
// a view's backfill (the CREATE statement's account). Work reports its
// growth to its account through expr.Ctx.Memory in chunks (exec every
// quarter MiB of estimated growth), and the account reserves from the
// accountant in larger chunks (at least reserveChunk, an eighth of what it
// holds), so the budget is consulted once per MiB or more, never per row.
// Subscriber queues reserve each commit's bytes (take/give).
//
// A reservation is refused, and the work fails with 53200 naming itself,
// when standing memory plus every reservation would pass workFraction of
// the budget (smallWorkFraction for small accounts, so that a runaway
// query is refused while other sessions' small work still fits). Standing memory is what the live heap at the last garbage
// collection holds beyond the reservations: tables, views, operator state,
// and any growth that work did not report, so the heap cross-checks the
// estimates. Before refusing, the accountant measures afresh
// (remeasure) so that a stale measure does not refuse work that fits: it
// forces a collection when the engine let go of enough standing memory
// since it last forced one (a spill, letGo) to cover what the request
// lacks, or else at most once per forceGCEvery. A refused Step rolls back, its statement ends and its account is
// released; the freed memory is then returned to the operating system
// (debug.FreeOSMemory), so the server's RSS comes back down. Other sessions
// never notice: work under reserveChunk never consults the budget.
//
// Maintenance is all or nothing: a commit's account fails the Step of
// the view that passes the budget, and the commit machinery (applyTx)
// rolls back every view and table the commit touched. Replay at start-up
// is not accounted (the log's commits were accepted once already).
//
// Maintenance asks for room before it is refused: a commit's account
// (maint) records the most any commit needed since the spill policy last
// looked, and asks for a spill when its reservation takes standing memory
// and reservations past pressureFraction of the budget, or when it is
// refused. The engine then checkpoints at once (after that commit, or
// after the refused one) and spills state until standing memory plus
// that need is under pressureFraction (spill.go), so that commits as large
// fit below workFraction instead of failing with 53200.
//
// A refused statement asks for room too, when standing memory is past the
// spill point and the statement, with what it asked for, would fit beside
// standing memory at that point (spillWouldFit): standing state, not the
// statement, filled the budget. The statement still fails with 53200,
// but once it has let go of its memory the engine measures the heap
// afresh and spills to the spill point (Engine.makeRoom), so that its
// next attempt fits. A runaway statement spills nothing beyond what the
// next checkpoint would. Start-up settles the same way (settleMemory):
// restore loads state by estimate and replay is unaccounted, so the
// accountant's first measure comes from a collection after both.

// workFraction of the budget is what standing memory and reservations
// together may reach for large work. The rest is headroom for the
// collector (the soft memory limit is the whole budget, GOGC is 200), for
// memory outside the Go heap (Pebble's block cache and memtables, stacks)
// and for small work.
const workFraction = 0.7

// pressureFraction of the budget is where maintenance asks for a spill,
// between the spill policy's spillFraction and workFraction.
const pressureFraction = (spillFraction + workFraction) / 2

// smallFraction of the budget is the most a small account holds, and
// small accounts may bring standing memory and reservations up to
// smallWorkFraction of it: a runaway query is refused first, leaving room
// for every other session's small queries and commits (a point read, a
// short report, a commit of a few thousand rows).
const (
	smallFraction     = 1.0 / 32
	smallWorkFraction = 0.9
)

// reserveChunk is the smallest reservation an account takes from the
// accountant.
const reserveChunk = 1 << 20

// forceGCEvery rate-limits the collections a refusal forces.
const forceGCEvery = time.Second

// freeDelay is how long after a refusal the accountant returns freed
// memory to the operating system: the refused statement lets go of its
// rows as its call stack unwinds.
const freeDelay = 50 * time.Millisecond

// accountant is the engine's memory budget and its reservations. It is
// safe for concurrent use; a nil accountant (no budget) hands out nil
// accounts, which account nothing.
type accountant struct {
	limit int64
	// cap is workFraction of limit, the bound of standing + reserved for
	// large work; small is the most a small account holds, and smallCap
	// its bound (smallFraction, smallWorkFraction).
	cap, small, smallCap int64
	// reserved is the sum of every account's and subscriber's
	// reservations.
	reserved atomic.Int64
	// refusals counts refused reservations.
	refusals atomic.Int64
	// freeing is set while a return of memory to the OS is scheduled.
	freeing atomic.Bool

	// heap and collect read the live heap (and the collections so far)
	// and force a collection: runtime's, replaced by unit tests.
	heap    func() (live, gcs uint64)
	collect func()
	// pace is waitForCollector (memAccount.Grow), replaced by unit tests.
	pace func()

	// standing is the live heap at the last collection seen, less the
	// reservations when it was seen and the large ones released since
	// the previous look (never negative): a collection seen only after a
	// large account let go may have found its memory still live.
	standing atomic.Int64
	// released sums the large reservations released since the last
	// collection seen.
	released atomic.Int64
	// largeHeld sums what large accounts (holding more than small) hold
	// now; quiet is standing memory as last measured with no large
	// account live and none released since the collection before
	// (smallStanding).
	largeHeld, quiet atomic.Int64

	// pressure is pressureFraction of limit. maintPeak is the most a
	// commit's maintenance used since the spill policy last looked
	// (takePressure); spillWanted is set when maintenance passed pressure
	// or was refused.
	pressure    int64
	maintPeak   atomic.Int64
	spillWanted atomic.Bool

	// freed sums the standing memory the engine let go of (letGo: state
	// spilled, by its estimate) since the accountant last forced a
	// collection: the last measure may still count it.
	freed atomic.Int64

	mu sync.Mutex
	// gcs numbers the collection standing was measured after (MaxUint64:
	// none seen yet); forced is when a refusal last forced one by the
	// clock (remeasure).
	gcs    uint64
	forced time.Time

	// onRelease, when set, is called with each account as it is
	// released, before it lets go of its reservation: a test's measure of
	// the estimates (what the account used) against the live heap.
	onRelease func(a *memAccount)
}

// newAccountant returns the accountant of a budget of limit bytes, nil
// when limit is 0 (no budget).
func newAccountant(limit int64) *accountant {
	if limit <= 0 {
		return nil
	}
	f := float64(limit)
	return &accountant{limit: limit, cap: int64(f * workFraction), small: int64(f * smallFraction),
		smallCap: int64(f * smallWorkFraction), pressure: int64(f * pressureFraction),
		heap: cachedHeapStats, collect: collectAndRead, pace: waitForCollector, gcs: math.MaxUint64}
}

// observe returns standing memory, updating it when a collection happened
// since the last look. Reservations made after the collection make it
// low and ones released after it make it high, until the next collection.
func (m *accountant) observe() int64 {
	live, gcs := m.heap()
	m.mu.Lock()
	defer m.mu.Unlock()
	if gcs != m.gcs {
		m.gcs = gcs
		released := m.released.Swap(0)
		standing := max(int64(live)-m.reserved.Load()-released, 0)
		m.standing.Store(standing)
		if released == 0 && m.largeHeld.Load() == 0 {
			m.quiet.Store(standing)
		}
	}
	return m.standing.Load()
}

// smallStanding returns the standing memory a small account is checked
// against: standing less what large work may hold beyond its reports.
// Large work's growth that it did not report (an operator's memory the
// estimates miss, its garbage between collections) measures as standing
// memory until it ends; it is charged to that work, up to as much again
// as the large accounts hold, not to other sessions' small work: the
// result is never below the last quiet measure, nor below standing less
// what large accounts hold.
func (m *accountant) smallStanding(standing int64) int64 {
	large := m.largeHeld.Load()
	if large == 0 {
		return standing
	}
	return min(standing, max(m.quiet.Load(), standing-large))
}

// inUse returns standing memory and the reservations (for the spill
// policy and eddy_memory).
func (m *accountant) inUse() (standing, reserved int64) {
	return m.observe(), m.reserved.Load()
}

// reservedBytes returns the sum of the reservations (0 without a
// budget).
func (m *accountant) reservedBytes() int64 {
	if m == nil {
		return 0
	}
	return m.reserved.Load()
}

// noteMaintenance records that a commit's maintenance uses used bytes and
// is about to reserve need more, asking for a spill if that takes standing
// memory and reservations past pressure.
func (m *accountant) noteMaintenance(used, need int64) {
	for p := m.maintPeak.Load(); used > p && !m.maintPeak.CompareAndSwap(p, used); p = m.maintPeak.Load() {
	}
	if m.observe()+m.reserved.Load()+need > m.pressure {
		m.spillWanted.Store(true)
	}
}

// wantsSpill reports whether maintenance asked for a spill since the
// spill policy last looked (false without a budget).
func (m *accountant) wantsSpill() bool { return m != nil && m.spillWanted.Load() }

// WorkHoldsMemory reports whether running work (statements, commits,
// subscriber queues) holds reservations of a small account's size or
// more (smallFraction of the budget): memory that comes back when that
// work ends. When it does not, a commit the budget refuses was refused
// for standing state and its own need, which waiting does not change: a
// source whose smallest batches are refused again and again while no
// work holds memory stops instead of retrying forever. False without a
// budget.
func (e *Engine) WorkHoldsMemory() bool {
	return e.mem != nil && e.mem.reserved.Load() >= e.mem.small
}

// takePressure returns the most a commit's maintenance used since the
// last call, and resets it and the request for a spill (0 without a
// budget).
func (m *accountant) takePressure() int64 {
	if m == nil {
		return 0
	}
	m.spillWanted.Store(false)
	return m.maintPeak.Swap(0)
}

// reserve takes n bytes for an account that will then hold held bytes,
// if standing memory and every reservation stay within the account's
// bound (limitFor), forcing a collection first if that is what it takes
// (and none was forced within forceGCEvery); it reports whether it did.
func (m *accountant) reserve(n, held int64) bool {
	bound := m.limitFor(held)
	standing := m.standingFor(held) // before n counts as reserved
	r := m.reserved.Add(n)
	if standing+r <= bound {
		return true
	}
	if m.remeasure(standing+r-bound) && m.standingFor(held)+m.reserved.Load() <= bound {
		return true
	}
	m.reserved.Add(-n)
	return false
}

// standingFor returns the standing memory an account holding held bytes
// is checked against: smallStanding for a small account.
func (m *accountant) standingFor(held int64) int64 {
	standing := m.observe()
	if held <= m.small {
		return m.smallStanding(standing)
	}
	return standing
}

// limitFor returns the bound of standing memory plus reservations for an
// account holding held bytes: smallCap for a small account, cap for a
// large one.
func (m *accountant) limitFor(held int64) int64 {
	if held <= m.small {
		return m.smallCap
	}
	return m.cap
}

// remeasure forces a collection, so that standing memory is measured
// afresh, before a reservation that lacks short bytes is refused, when a
// fresh measure may make room: when the standing memory the engine let
// go of since the last forced collection (freed) covers short, or else
// when none was forced by the clock within forceGCEvery. It reports
// whether it collected. The cost is bounded: every let-go buys at most
// one collection, and refusals without one at most one per
// forceGCEvery, so a storm of refusals is not a storm of collections.
//
// Without the first rule a spill right after a forced collection went
// unseen until the next one: its commit, and the next commits within
// forceGCEvery, were checked against the heap as it was before the
// spill, and refused (TestSpillReduceState under load; TestRefusalSeesSpill).
func (m *accountant) remeasure(short int64) bool {
	m.mu.Lock()
	if short > m.freed.Load() {
		if !m.forced.IsZero() && time.Since(m.forced) < forceGCEvery {
			m.mu.Unlock()
			return false
		}
		m.forced = time.Now()
	}
	m.freed.Store(0) // the collection measures what was let go of before it
	m.mu.Unlock()
	m.collect()
	return true
}

// letGo records that the engine let go of about n bytes of standing
// memory (state it spilled): until a forced collection measures it, a
// reservation it would make room for collects first (remeasure). No-op
// without a budget.
func (m *accountant) letGo(n int64) {
	if m != nil && n > 0 {
		m.freed.Add(n)
	}
}

// measure forces a collection and takes standing memory from it: the
// large reservations released before it are not live any more, so they
// no longer count against its measure (as released).
func (m *accountant) measure() {
	before, freed := m.released.Load(), m.freed.Load()
	m.collect()
	m.released.Add(-before)
	m.freed.Add(-freed)
	m.observe()
}

// take reserves n bytes without forcing a collection (for subscriber
// queues, filled under the engine lock, once per commit; each is bounded
// by --subscribe-buffer, so they count as small work): it reads the heap
// only when the last measure of standing memory does not leave room.
func (m *accountant) take(n int64) bool {
	if m == nil || n == 0 {
		return true
	}
	standing := m.standing.Load()
	r := m.reserved.Add(n)
	if standing+r <= m.smallCap || m.observe()+r <= m.smallCap {
		return true
	}
	m.reserved.Add(-n)
	m.refusals.Add(1)
	return false
}

// give returns n bytes that take reserved.
func (m *accountant) give(n int64) {
	if m != nil {
		m.reserved.Add(-n)
	}
}

// returnMemory hands the memory that refused work let go of back to the
// operating system, shortly after the refusal (one at a time).
func (m *accountant) returnMemory() {
	if !m.freeing.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(freeDelay, func() {
		debug.FreeOSMemory()
		m.freeing.Store(false)
	})
}

// memAccount is the reservation of one piece of work: used is what it
// reported, held what it reserved (held >= used). It is used by one
// goroutine at a time; a nil account accounts nothing.
type memAccount struct {
	m *accountant
	// what names the work in a refusal's DETAIL: `statement "SELECT
	// ..."`, `a commit`; view, when set, is the materialized view that
	// the commit is maintaining.
	what, view string
	// sql, when set, is the statement's text, named by work() only on a
	// refusal (formatting it per statement would cost the point reads).
	sql        string
	used, held int64
	// paced is used when a large account last paced itself against the
	// collector (Grow).
	paced   int64
	refused bool
	// large is set once held passes the accountant's small: held then
	// counts in its largeHeld.
	large bool
	// maint marks a commit's account: its needs drive the spill policy.
	maint bool
}

// account opens an account for the work named what (nil without a
// budget).
func (m *accountant) account(what string) *memAccount {
	if m == nil {
		return nil
	}
	return &memAccount{m: m, what: what}
}

// statementAccount opens the account of the statement whose text is sql
// (nil without a budget).
func (m *accountant) statementAccount(sql string) *memAccount {
	if m == nil {
		return nil
	}
	return &memAccount{m: m, sql: sql}
}

// statementWork names a statement for an account: its text, shortened.
func statementWork(sql string) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > 100 {
		sql = sql[:97] + "..."
	}
	return fmt.Sprintf("statement %q", sql)
}

// memory returns a as the expr.Memory of an evaluation context: nil when
// a is nil (never an interface holding a nil pointer).
func (a *memAccount) memory() expr.Memory {
	if a == nil {
		return nil
	}
	return a
}

// Grow accounts n more bytes, reserving from the accountant when used
// passes held: a chunk of at least reserveChunk and an eighth of what is
// held, or exactly what is needed when that chunk does not fit. A
// refusal is 53200; used is then unchanged. A large account paces itself
// against the collector every paceEvery bytes of growth.
func (a *memAccount) Grow(n int64) error {
	a.used += n
	if a.large && a.used-a.paced >= paceEvery {
		a.paced = a.used
		a.m.pace()
	}
	if a.used <= a.held {
		return nil
	}
	need := a.used - a.held
	if a.maint {
		a.m.noteMaintenance(a.used, need)
	}
	chunk := max(need, reserveChunk, a.held/8)
	if !a.m.reserve(chunk, a.held+chunk) {
		if chunk == need || !a.m.reserve(need, a.used) {
			a.used -= n
			return a.refuse(need)
		}
		chunk = need
	}
	a.held += chunk
	switch {
	case a.large:
		a.m.largeHeld.Add(chunk)
	case a.held > a.m.small:
		a.large = true
		a.m.largeHeld.Add(a.held)
	}
	return nil
}

// free returns n bytes of what a used (work let go of them): later
// growth reuses its reservation before reserving more.
func (a *memAccount) free(n int64) {
	if a != nil {
		a.used = max(a.used-n, 0)
		a.paced = min(a.paced, a.used)
	}
}

// Free returns n bytes the work let go of (exec's Steps return their
// intermediate rows once done): see free.
func (a *memAccount) Free(n int64) { a.free(n) }

// rowMemBytes estimates the memory of a kept result row: its header,
// datums and their strings.
func rowMemBytes(r repr.Row) int64 {
	n := rowHeaderBytes + int64(len(r))*int64(unsafe.Sizeof(repr.Datum{}))
	for _, d := range r {
		n += int64(len(d.Text()))
	}
	return n
}

// refuse returns the 53200 error of a reservation of want bytes that the
// budget refused, naming the work, what it holds and the budget.
func (a *memAccount) refuse(want int64) error {
	m := a.m
	m.refusals.Add(1)
	a.refused = true
	standing, reserved := m.observe(), m.reserved.Load()
	if a.maint || m.spillWouldFit(standing, a.held+want) {
		m.spillWanted.Store(true)
	}
	return repr.Errorf(repr.CodeOutOfMemory, "out of memory").
		WithDetail("Failed on a request of %s by %s, which held %s; %s of the memory limit of %s was in use (%s by other work, %s usable by work).",
			formatBytes(want), a.work(), formatBytes(a.held), formatBytes(standing+reserved), formatBytes(m.limit),
			formatBytes(reserved-a.held), formatBytes(m.limitFor(a.held+want))).
		WithHint("Make the query keep less (filter earlier, aggregate, or LIMIT it), or raise --memory-limit.")
}

// spillWouldFit reports whether work refused while holding need bytes
// (with what it asked for) would have fit had standing memory been at the
// spill point (spillFraction): standing memory, not the work, filled the
// budget, so a spill makes room for the work's next attempt.
func (m *accountant) spillWouldFit(standing, need int64) bool {
	point := int64(float64(m.limit) * spillFraction)
	return standing > point && point+need <= m.limitFor(need)
}

// work names the account's work for a refusal.
func (a *memAccount) work() string {
	if a.sql != "" {
		return statementWork(a.sql)
	}
	if a.view != "" {
		return fmt.Sprintf("the maintenance of materialized view %q in %s", a.view, a.what)
	}
	return a.what
}

// release returns everything a holds to the accountant; after a refusal
// it also returns the freed memory to the operating system, and reports
// that the account was refused since it was last released. The account
// may be used again afterwards.
func (a *memAccount) release() (refused bool) {
	if a == nil {
		return false
	}
	refused = a.refused
	if a.m.onRelease != nil {
		a.m.onRelease(a)
	}
	a.m.reserved.Add(-a.held)
	if a.large {
		a.m.released.Add(a.held)
		a.m.largeHeld.Add(-a.held)
		a.large = false
	}
	a.used, a.held, a.paced = 0, 0, 0
	if a.refused {
		a.refused = false
		a.m.returnMemory()
	}
	return refused
}

// formatBytes prints a byte count in binary units ("512 B", "1.5 MiB").
func formatBytes(n int64) string {
	if n < 1024 && n > -1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, units := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if f < 1024 && f > -1024 {
			break
		}
		f, units = f/1024, u
	}
	return fmt.Sprintf("%.1f %s", f, units)
}

// rowHeaderBytes is the memory of a result's row beyond its datums (its
// slice header).
const rowHeaderBytes = int64(unsafe.Sizeof(repr.Row{}))

// growMemory accounts n bytes in ctx's account, if it has one.
func growMemory(ctx *expr.Ctx, n int64) error {
	if ctx == nil || ctx.Memory == nil || n <= 0 {
		return nil
	}
	return ctx.Memory.Grow(n)
}

// rowsBytesSampled estimates the memory of rows' datums and strings as
// updatesBytesSampled does.
func rowsBytesSampled(rows []repr.Row) int64 {
	if len(rows) == 0 {
		return 0
	}
	step := max(len(rows)/sampleRows, 1)
	var sampled, n int64
	for i := 0; i < len(rows); i += step {
		sampled += rowMemBytes(rows[i]) - rowHeaderBytes
		n++
	}
	return sampled * int64(len(rows)) / n
}

// add accounts n bytes (see Grow); a nil account accounts nothing.
func (a *memAccount) add(n int64) error {
	if a == nil || n <= 0 {
		return nil
	}
	return a.Grow(n)
}

// sampleRows bounds the rows whose strings updatesBytesSampled reads.
const sampleRows = 64

// updatesBytesSampled estimates the memory of us as updatesBytes does,
// reading the strings of at most sampleRows rows.
func updatesBytesSampled(us []repr.Update) int64 {
	if len(us) <= sampleRows {
		return updatesBytes(us)
	}
	step := len(us) / sampleRows
	var sampled int64
	for i := 0; i < sampleRows; i++ {
		sampled += updatesBytes(us[i*step : i*step+1])
	}
	return sampled * int64(len(us)) / sampleRows
}

// subscriberOutOfMemory is the error ending a subscription whose queue
// would take a commit of size bytes past the memory budget.
func (e *Engine) subscriberOutOfMemory(size int64) error {
	standing, reserved := e.mem.inUse()
	return repr.Errorf(repr.CodeOutOfMemory, "out of memory").
		WithDetail("Failed on a request of %s to queue a commit for a subscriber; %s of the memory limit of %s was in use (%s usable by work).",
			formatBytes(size), formatBytes(standing+reserved), formatBytes(e.mem.limit), formatBytes(e.mem.smallCap)).
		WithHint("Read the subscription's rows faster, or raise --memory-limit.")
}

// sourceBatchFraction of the budget is the most a source's batch of rows
// should take (SourceBatchBytes). A batch's rows are live while its
// commit runs, and a nexmark source generates the next one meanwhile
// (server's read-ahead), yet neither is a reservation: both measure as
// standing memory, which every account is checked against. Two sources
// with a batch in flight and one ahead each hold four batches: at this
// fraction that is a sixteenth of the budget (each batch half a small
// account, smallFraction), and a source whose batches shrink under refusals
// (server's ingestSize) is never refused for its own rows.
const sourceBatchFraction = 1.0 / 64

// SourceBatchBytes returns the most memory a source's batch of rows
// should take under the budget (sourceBatchFraction of it), 0 without a
// budget (no bound).
func (e *Engine) SourceBatchBytes() int64 {
	if e.mem == nil {
		return 0
	}
	return int64(float64(e.mem.limit) * sourceBatchFraction)
}

// RowsMemBytes estimates the memory of rows as a source batch holds
// them: each row's slice header, datums and strings (sampled, as
// rowsBytesSampled).
func RowsMemBytes(rows []repr.Row) int64 {
	return rowsBytesSampled(rows) + int64(len(rows))*rowHeaderBytes
}
