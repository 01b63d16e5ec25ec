package sql

import (
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// fakeHeap is a controllable heap for the accountant: every reservation
// is allocated and live, plus live more bytes no account holds; gcs
// counts collections, and a forced collection leaves afterGC bytes of
// the latter (< 0: it frees nothing).
type fakeHeap struct {
	live    int64
	gcs     uint64
	afterGC int64
	forced  int
	// paced counts the times work waited for the collector.
	paced int
}

// accountantOn returns an accountant of limit bytes reading h.
func accountantOn(limit int64, h *fakeHeap) *accountant {
	m := newAccountant(limit)
	m.heap = func() (uint64, uint64) { return uint64(h.live + m.reservedBytes()), h.gcs }
	m.pace = func() { h.paced++ }
	m.collect = func() {
		h.forced++
		h.gcs++
		if h.afterGC >= 0 {
			h.live = h.afterGC
		}
	}
	return m
}

const mib = 1 << 20

// TestLargeWorkPacesCollector checks that only a large account paces
// itself against the collector: at once when it becomes large, then
// once per paceEvery of growth; releasing it starts afresh.
func TestLargeWorkPacesCollector(t *testing.T) {
	h := &fakeHeap{afterGC: -1}
	m := accountantOn(1024*mib, h)
	a := m.account(statementWork("SELECT 1"))
	grow := func(n int) {
		t.Helper()
		for range n {
			if err := a.Grow(mib); err != nil {
				t.Fatal(err)
			}
		}
	}
	growUntilLarge := func() {
		t.Helper()
		for !a.large {
			grow(1)
		}
		if h.paced != 0 {
			t.Fatalf("a small account (%d MiB) paced %d times; want 0", a.used/mib, h.paced)
		}
	}
	growUntilLarge()
	grow(4 * paceEvery / mib)
	if h.paced != 4 {
		t.Fatalf("a large account growing %d MiB paced %d times; want 4", 4*paceEvery/mib, h.paced)
	}
	a.free(a.used)
	grow(paceEvery/mib - 1)
	if h.paced != 4 {
		t.Fatalf("regrowth below the last pace point paced again (%d)", h.paced)
	}
	a.release()
	h.paced = 0
	growUntilLarge()
	grow(1)
	if h.paced != 1 {
		t.Fatalf("after release and regrowth to large: paced %d, want 1", h.paced)
	}
}

// TestAccountReservesInChunks checks that an account consults the budget
// only when its use passes what it holds, in chunks of at least
// reserveChunk that grow with what it holds, and gives all back.
func TestAccountReservesInChunks(t *testing.T) {
	h := &fakeHeap{afterGC: -1}
	m := accountantOn(1024*mib, h)
	a := m.account(statementWork("SELECT 1"))
	for range 100 {
		if err := a.Grow(10 << 10); err != nil {
			t.Fatal(err)
		}
	}
	if a.held != reserveChunk || m.reservedBytes() != reserveChunk {
		t.Fatalf("after 1000 KiB in 10 KiB steps: held %d, reserved %d; want one chunk of %d", a.held, m.reservedBytes(), reserveChunk)
	}
	if err := a.Grow(200 * mib); err != nil {
		t.Fatal(err)
	}
	before := a.held
	if err := a.Grow(1); err != nil {
		t.Fatal(err)
	}
	if a.held-a.used < before/8-1 {
		t.Errorf("after a 200 MiB request and 1 byte more: used %d, held %d; want the next chunk to be an eighth of what is held", a.used, a.held)
	}
	a.release()
	if m.reservedBytes() != 0 || a.used != 0 {
		t.Errorf("after release: reserved %d, used %d; want 0", m.reservedBytes(), a.used)
	}
}

// TestAccountRefused checks that a reservation passing workFraction of
// the budget, standing memory included, is refused with 53200 naming the
// work and the limit, leaves the account's use unchanged, and leaves
// other accounts' reservations alone.
func TestAccountRefused(t *testing.T) {
	h := &fakeHeap{live: 100 * mib, afterGC: -1}
	m := accountantOn(400*mib, h) // cap 280 MiB, 100 MiB standing
	other := m.account("a commit")
	if err := other.Grow(50 * mib); err != nil {
		t.Fatal(err)
	}
	a := m.account(statementWork("SELECT *\n  FROM a, b"))
	if err := a.Grow(100 * mib); err != nil {
		t.Fatal(err)
	}
	err := a.Grow(100 * mib)
	if repr.ErrorCode(err) != repr.CodeOutOfMemory {
		t.Fatalf("250 MiB reserved over 100 MiB standing under a 300 MiB cap: err %v, want 53200", err)
	}
	e := repr.ErrorFrom(err)
	for _, want := range []string{`statement "SELECT * FROM a, b"`, "memory limit of 400.0 MiB", "Failed on a request of"} {
		if !strings.Contains(e.Detail, want) {
			t.Errorf("DETAIL %q lacks %q", e.Detail, want)
		}
	}
	if e.Message != "out of memory" {
		t.Errorf("message %q, want PostgreSQL's \"out of memory\"", e.Message)
	}
	if a.used != 100*mib {
		t.Errorf("a refused Grow changed used to %d", a.used)
	}
	if h.forced != 1 {
		t.Errorf("%d forced collections before refusing, want 1", h.forced)
	}
	a.release()
	if got := m.reservedBytes(); got != other.held {
		t.Errorf("after the refused account's release: reserved %d, want the other account's %d", got, other.held)
	}
	if err := other.Grow(100 * mib); err != nil {
		t.Errorf("the other account, now with room: %v", err)
	}
}

// TestAccountSeesUnaccountedGrowth checks the heap cross-check: growth no
// account reported (a larger live heap after a collection) counts as
// standing memory and refuses reservations that would otherwise fit.
func TestAccountSeesUnaccountedGrowth(t *testing.T) {
	h := &fakeHeap{live: 10 * mib, afterGC: -1}
	m := accountantOn(400*mib, h)
	a := m.account("a commit")
	if err := a.Grow(100 * mib); err != nil {
		t.Fatal(err)
	}
	h.live, h.gcs = 260*mib, h.gcs+1 // 250 MiB nobody reported
	if err := a.Grow(100 * mib); repr.ErrorCode(err) != repr.CodeOutOfMemory {
		t.Fatalf("with 250 MiB of unreported growth: err %v, want 53200", err)
	}
}

// TestAccountForcedCollection checks that a reservation refused on a
// stale measure of the heap forces a collection and succeeds when the
// collection shows the memory was garbage.
func TestAccountForcedCollection(t *testing.T) {
	h := &fakeHeap{live: 290 * mib, afterGC: 20 * mib}
	m := accountantOn(400*mib, h)
	a := m.account("a commit")
	if err := a.Grow(50 * mib); err != nil {
		t.Fatalf("290 MiB live but 20 MiB after a collection: %v", err)
	}
	if h.forced != 1 {
		t.Errorf("%d forced collections, want 1", h.forced)
	}
}

// TestSubscriberTake checks the subscriber queues' reservations: take
// refuses past the cap without forcing a collection, give returns bytes.
func TestSubscriberTake(t *testing.T) {
	h := &fakeHeap{live: 0, afterGC: -1}
	m := accountantOn(400*mib, h)
	if !m.take(200 * mib) {
		t.Fatal("200 MiB of a 360 MiB bound refused")
	}
	if m.take(200 * mib) {
		t.Fatal("400 MiB of a 360 MiB bound taken")
	}
	m.give(200 * mib)
	if m.reservedBytes() != 0 || h.forced != 0 {
		t.Errorf("reserved %d, forced %d collections; want 0 and 0", m.reservedBytes(), h.forced)
	}
	var none *accountant
	if !none.take(1<<40) || none.account("x") != nil || none.account("x").memory() != nil {
		t.Error("without a budget, everything must fit and accounts must be nil")
	}
}

// newBudgetEngine returns a test engine with a memory budget of limit
// bytes, tables a (empty) and b (20,000 rows) and a view counting a.
func newBudgetEngine(t *testing.T, limit int64) *testEngine {
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{MemoryLimit: limit}}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	for _, s := range []string{"CREATE TABLE a (x int)", "CREATE TABLE b (y int)",
		"CREATE MATERIALIZED VIEW na AS SELECT count(*) AS n FROM a",
		"INSERT INTO b SELECT generate_series(1, 20000)"} {
		te.mustRun(s)
	}
	return te
}

// expectOOM runs sql and checks that it fails with 53200 whose DETAIL
// holds detail, and that nothing stays reserved afterwards.
func (te *testEngine) expectOOM(sql, detail string) {
	te.t.Helper()
	out := te.run(sql)
	if !strings.HasPrefix(out, "ERROR 53200: out of memory") || !strings.Contains(out, detail) {
		te.t.Fatalf("%s:\n%s\nwant 53200 out of memory with a DETAIL naming %q", sql, out, detail)
	}
	if n := te.e.mem.reservedBytes(); n != 0 {
		te.t.Errorf("after the refused %s: %d bytes still reserved", sql, n)
	}
}

// expect runs sql and compares its transcript with want.
func (te *testEngine) expect(sql, want string) {
	te.t.Helper()
	if got := te.run(sql); got != want {
		te.t.Errorf("%s:\n%s\nwant:\n%s", sql, got, want)
	}
}

// budget is the memory limit of the engine-level tests: small, so that
// a 400-million-row cross join is refused after a few hundred MiB.
const budget = 256 * mib

// TestOutOfMemoryQuery checks that an ad hoc cross join that cannot fit
// fails with 53200 naming the statement, and that the session, and
// another session, then run queries as before.
func TestOutOfMemoryQuery(t *testing.T) {
	te := newBudgetEngine(t, budget)
	te.expectOOM("SELECT * FROM b b1, b b2 ORDER BY 1, 2", `statement "SELECT * FROM b b1, b b2 ORDER BY 1, 2"`)
	te.expect("SELECT count(*) FROM b", "count\n20000\nSELECT 1\n")
	te.s = te.e.NewSession(map[string]string{"user": "eddy"})
	te.expect("SELECT count(*), max(y) FROM b", "count | max\n20000 | 20000\nSELECT 1\n")
	te.expectOOM("SELECT b1.y % 7, count(*) FROM b b1, b b2 GROUP BY 1", "statement")
}

// TestOutOfMemoryBackfill checks that a materialized view whose backfill
// cannot fit fails with 53200 and leaves no trace: the name is free, no
// row or state of it remains, and a restart does not see it.
func TestOutOfMemoryBackfill(t *testing.T) {
	te := newBudgetEngine(t, budget)
	te.expectOOM("CREATE MATERIALIZED VIEW boom AS SELECT b1.y, b2.y AS z FROM b b1, b b2", "CREATE MATERIALIZED VIEW boom")
	te.expect("SELECT count(*) FROM pg_matviews WHERE matviewname = 'boom'", "count\n0\nSELECT 1\n")
	te.restart()
	te.expect("SELECT * FROM boom", "ERROR 42P01 at 15: relation \"boom\" does not exist\n")
	te.mustRun("CREATE MATERIALIZED VIEW boom AS SELECT count(*) AS n FROM b")
	te.expect("SELECT * FROM boom", "n\n20000\nSELECT 1\n")
}

// TestOutOfMemoryCommit checks that a write whose maintenance of one view
// cannot fit fails as a whole with 53200 naming the view: the table and
// every other view, stepped before it in the same commit, keep their
// contents, also after a restart; a write that fits then applies to all.
func TestOutOfMemoryCommit(t *testing.T) {
	te := newBudgetEngine(t, budget)
	te.mustRun("CREATE MATERIALIZED VIEW ab AS SELECT a.x, b.y FROM a, b")
	te.expectOOM("INSERT INTO a SELECT generate_series(1, 20000)", `the maintenance of materialized view "ab"`)
	check := func(when, want string) {
		t.Helper()
		got := te.run("SELECT (SELECT count(*) FROM a) AS a, (SELECT n FROM na) AS na, (SELECT count(*) FROM ab) AS ab")
		if got != "a | na | ab\n"+want+"\nSELECT 1\n" {
			t.Fatalf("%s: %s, want %s", when, got, want)
		}
	}
	check("after the refused write", "0 | 0 | 0")
	te.restart()
	check("after a restart", "0 | 0 | 0")
	te.mustRun("INSERT INTO a VALUES (1), (2)")
	check("after a write that fits", "2 | 2 | 40000")
}

// TestSmallWorkKeepsRoom checks that a large account stops short of the
// cap, keeping room that small accounts (other sessions' short queries
// and commits) can still reserve from.
func TestSmallWorkKeepsRoom(t *testing.T) {
	h := &fakeHeap{afterGC: -1}
	m := accountantOn(1024*mib, h) // cap 716.8 MiB, small accounts up to 32 MiB
	big := m.account(statementWork("SELECT * FROM a, b"))
	var err error
	for err == nil {
		err = big.Grow(4 * mib)
	}
	if repr.ErrorCode(err) != repr.CodeOutOfMemory || big.held > m.cap {
		t.Fatalf("runaway account: held %d, err %v; want 53200 by %d", big.held, err, m.cap)
	}
	for i := range 4 {
		small := m.account("a commit")
		if err := small.Grow(m.small - reserveChunk); err != nil {
			t.Fatalf("small account %d next to a refused large one: %v", i, err)
		}
	}
}

// TestSmallWorkBesideUnreportedGrowth checks that large work's growth it
// did not report, measured as standing memory, is charged to it and not
// to small work: a small account fits beside a refused runaway whose heap
// then measures 250 MiB more than it reported; once the runaway ends, the
// next measure counts standing memory in full again.
func TestSmallWorkBesideUnreportedGrowth(t *testing.T) {
	h := &fakeHeap{live: 20 * mib, afterGC: -1}
	m := accountantOn(1024*mib, h) // cap 716.8 MiB, small cap 921.6 MiB
	h.gcs++
	m.observe() // a quiet measure: 20 MiB standing
	big := m.account(statementWork("SELECT * FROM a, b ORDER BY 1"))
	var err error
	for err == nil {
		err = big.Grow(4 * mib)
	}
	if repr.ErrorCode(err) != repr.CodeOutOfMemory {
		t.Fatalf("runaway: %v, want 53200", err)
	}
	h.live, h.gcs = 270*mib, h.gcs+1 // 250 MiB the runaway did not report
	if s := m.observe(); s+m.reservedBytes() <= m.smallCap-m.small {
		t.Fatalf("standing %d + reserved %d leaves room for small work without the discount; the test shows nothing", s, m.reservedBytes())
	}
	small := m.account("a commit")
	if err := small.Grow(m.small - reserveChunk); err != nil {
		t.Fatalf("small account beside a runaway holding %d with as much unreported: %v", big.held, err)
	}
	small.release()
	big.release()
	h.live, h.gcs = 20*mib, h.gcs+1
	m.observe()                      // the collection after the runaway's release
	h.live, h.gcs = 900*mib, h.gcs+1 // standing state grew with no large work live
	if err := small.Grow(m.small - reserveChunk); repr.ErrorCode(err) != repr.CodeOutOfMemory {
		t.Fatalf("900 MiB standing with no large work live: err %v, want 53200", err)
	}
}

// TestMaintenanceAsksForSpill checks that a commit's account records the
// most it used and asks for a spill once standing memory plus
// reservations would pass pressureFraction of the budget, or when it is
// refused, while other work's accounts do neither.
func TestMaintenanceAsksForSpill(t *testing.T) {
	h := &fakeHeap{live: 40 * mib, afterGC: -1}
	m := accountantOn(100*mib, h) // pressure at 60 MiB, cap 70 MiB
	query := m.account(statementWork("SELECT 1"))
	if err := query.Grow(25 * mib); err != nil || m.wantsSpill() {
		t.Fatalf("a query's 25 MiB: err %v, spill wanted %v; want neither", err, m.wantsSpill())
	}
	query.release()
	commit := m.account("a commit")
	commit.maint = true
	if err := commit.Grow(5 * mib); err != nil || m.wantsSpill() {
		t.Fatalf("a commit's 5 MiB over 40 MiB standing: err %v, spill wanted %v; want neither", err, m.wantsSpill())
	}
	if err := commit.Grow(20 * mib); err != nil || !m.wantsSpill() {
		t.Fatalf("a commit's 25 MiB over 40 MiB standing: err %v, spill wanted %v; want a spill asked for", err, m.wantsSpill())
	}
	commit.release()
	if need := m.takePressure(); need != 25*mib || m.wantsSpill() {
		t.Fatalf("takePressure: need %d, still wanted %v; want %d and reset", need, m.wantsSpill(), 25*mib)
	}
	m = accountantOn(100*mib, &fakeHeap{live: 40 * mib, afterGC: -1})
	commit = m.account("a commit")
	commit.maint = true
	if err := commit.Grow(40 * mib); repr.ErrorCode(err) != repr.CodeOutOfMemory || !m.wantsSpill() {
		t.Fatalf("a commit's 40 MiB over 40 MiB standing: err %v, spill wanted %v; want 53200 and a spill asked for", err, m.wantsSpill())
	}
	commit.release()
}

// TestSpillExcess checks the spill policy's target: standing memory under
// spillFraction, and standing plus a recent commit's need under
// pressureFraction.
func TestSpillExcess(t *testing.T) {
	for _, c := range []struct{ standing, need, want int64 }{
		{40, 0, -10},
		{55, 0, 5},
		{40, 15, -5},
		{40, 25, 5},
		{55, 25, 20},
	} {
		if got := spillExcess(c.standing*mib, c.need*mib, 100*mib); got != c.want*mib {
			t.Errorf("standing %d MiB, need %d MiB: excess %d MiB, want %d", c.standing, c.need, got/mib, c.want)
		}
	}
}

// TestRefusalSeesSpill checks that a reservation refused on a measure
// taken before a spill collects afresh at once, although a refusal forced
// a collection moments before, when what the spill let go of covers what
// the reservation lacks; that a let-go buys one collection only; and that
// a let-go too small to make room, or none, leaves refusals to the clock's
// rate (a storm of refusals is no storm of collections). This is the
// failure of TestSpillReduceState's COPY under load: 53200 right after the
// aggregate's state spilled, on the heap as measured before it.
func TestRefusalSeesSpill(t *testing.T) {
	h := &fakeHeap{live: 85 * mib, afterGC: -1}
	m := accountantOn(128*mib, h) // cap 89.6 MiB
	commit := m.account("a commit")
	commit.maint = true
	if err := commit.Grow(6 * mib); repr.ErrorCode(err) != repr.CodeOutOfMemory || h.forced != 1 {
		t.Fatalf("6 MiB over 85 MiB standing: err %v, %d collections; want 53200 after 1", err, h.forced)
	}
	commit.release()
	// The checkpoint after the refused commit spills 21 MiB of state,
	// garbage until the next collection.
	h.afterGC = 64 * mib
	m.letGo(21 * mib)
	if err := commit.Grow(6 * mib); err != nil {
		t.Fatalf("6 MiB after a 21 MiB spill, 64 MiB standing once measured: %v", err)
	}
	if h.forced != 2 {
		t.Fatalf("%d collections, want 2 (the spill's let-go buys one)", h.forced)
	}
	commit.release()
	// Standing state grows past the cap again; the let-go is spent, so
	// refusals within forceGCEvery collect no more, nor does a let-go
	// smaller than what the reservation lacks.
	h.live, h.gcs, h.afterGC = 92*mib, h.gcs+1, -1
	m.letGo(1 * mib)
	for range 10 {
		if err := commit.Grow(6 * mib); repr.ErrorCode(err) != repr.CodeOutOfMemory {
			t.Fatalf("6 MiB over 86 MiB standing (and 6 MiB released): err %v, want 53200", err)
		}
		commit.release()
	}
	if h.forced != 2 {
		t.Fatalf("a storm of refusals within forceGCEvery forced %d collections, want still 2", h.forced)
	}
}
