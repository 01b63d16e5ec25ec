package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// crashRounds is how many kill -9 / restart rounds TestCrash runs.
const crashRounds = 4

// TestCrash writes rows as fast as it can, kills the server with SIGKILL
// at a random moment, restarts it, and checks that every acknowledged write
// survived and that the view equals its query recomputed ad hoc. Several
// rounds; the seed fixes the kill delays and the data.
func TestCrash(t *testing.T) { crashTest(t) }

// TestCrashDuringCheckpoint is TestCrash with a checkpoint after every
// second commit, so most kills land in or next to a checkpoint's write:
// whether or not it became durable, restart must rebuild every
// acknowledged row from the checkpoint and the input log.
func TestCrashDuringCheckpoint(t *testing.T) {
	crashTest(t, harness.WithEnv("EDDY_CHECKPOINT_COMMITS=2"))
}

// TestCrashSpilled is TestCrashDuringCheckpoint with every table and view
// spilled to the store at each checkpoint (EDDY_SPILL_ALL), and the join
// arrangements of the views too, so restart and replay run over spilled
// collections and spilled operator state.
func TestCrashSpilled(t *testing.T) {
	crashTest(t, harness.WithEnv("EDDY_CHECKPOINT_COMMITS=2", "EDDY_SPILL_ALL=1"))
}

func crashTest(t *testing.T, opts ...harness.Option) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	s := harness.StartTarget(t, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	setup := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, setup,
		"CREATE TABLE events (id bigint PRIMARY KEY, grp int, amount int)",
		"CREATE MATERIALIZED VIEW grp_stats AS SELECT grp, count(*) AS n, sum(amount) AS total FROM events GROUP BY grp",
		"CREATE TABLE grps (grp int, label text)",
		"INSERT INTO grps VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three'), (3, 'drei'), (4, 'x')",
		"CREATE MATERIALIZED VIEW labelled AS "+crashJoinSQL,
		"CREATE MATERIALIZED VIEW ranked AS "+crashWindowSQL)
	setup.Close(ctx)
	var next int64
	var acked []int64 // acknowledged in every round so far
	for round := range crashRounds {
		w := &crashWriter{dsn: s.DSN(), next: next, acked: acked, rng: rand.New(rand.NewPCG(uint64(seed), uint64(round+2)))}
		done := make(chan struct{})
		go func() { defer close(done); w.run(ctx) }()
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		s.Kill()
		<-done
		s.Restart()
		t.Logf("round %d: %d rows acknowledged before the kill (%v)", round, len(w.acked)-len(acked), w.err)
		present := checkCrashRound(t, ctx, s, w)
		// Rows in flight at the kill may have committed without an
		// acknowledgement; those that survived count from now on.
		for _, id := range w.inFlight {
			if present[fmt.Sprint(id)] {
				w.acked = append(w.acked, id)
			}
		}
		next, acked = w.next, w.acked
	}
}

// crashWriter inserts rows, alone or a few per transaction, and records
// which ids were acknowledged and which were in flight at the crash.
type crashWriter struct {
	dsn      string
	rng      *rand.Rand
	next     int64
	mu       sync.Mutex
	acked    []int64
	inFlight []int64
	err      error
}

// run writes until the connection fails (the kill).
func (w *crashWriter) run(ctx context.Context) {
	c, err := pgconn.Connect(ctx, w.dsn)
	if err != nil {
		w.err = err
		return
	}
	defer c.Close(context.Background())
	for ctx.Err() == nil {
		n := 1 + w.rng.IntN(3)
		ids, sql := w.batch(n)
		w.mu.Lock()
		w.inFlight = ids
		w.mu.Unlock()
		if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
			w.err = err
			return
		}
		w.mu.Lock()
		w.acked = append(w.acked, ids...)
		w.inFlight = nil
		w.mu.Unlock()
	}
}

// batch returns n new ids and the SQL that inserts them: one statement,
// or a transaction of single-row inserts.
func (w *crashWriter) batch(n int) ([]int64, string) {
	var ids []int64
	var stmts []string
	for range n {
		w.next++
		ids = append(ids, w.next)
		stmts = append(stmts, fmt.Sprintf("INSERT INTO events VALUES (%d, %d, %d)", w.next, w.rng.IntN(7), w.rng.IntN(1000)-100))
	}
	if n == 1 {
		return ids, stmts[0]
	}
	return ids, "BEGIN; " + strings.Join(stmts, "; ") + "; COMMIT"
}

// checkCrashRound verifies durability and the view after a restart and
// returns the ids present.
func checkCrashRound(t *testing.T, ctx context.Context, s *harness.Server, w *crashWriter) map[string]bool {
	t.Helper()
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	ids, err := queryRows(ctx, c, "SELECT id FROM events")
	if err != nil {
		t.Fatalf("reading events after restart: %v", err)
	}
	present := map[string]bool{}
	for _, id := range ids {
		present[id] = true
	}
	for _, id := range w.acked {
		if !present[fmt.Sprint(id)] {
			t.Errorf("acknowledged row %d is missing after the crash", id)
		}
	}
	allowed := len(w.acked) + len(w.inFlight)
	if len(ids) > allowed && len(ids) > 0 {
		t.Errorf("%d rows after the crash, but only %d were acknowledged or in flight", len(ids), allowed)
	}
	if err := refreshIfPostgres(ctx, c, s.Kind() == harness.Postgres); err != nil {
		t.Fatal(err)
	}
	view, err := queryRows(ctx, c, "SELECT grp, n, total FROM grp_stats")
	if err != nil {
		t.Fatalf("reading the view after restart: %v", err)
	}
	adhoc, err := queryRows(ctx, c, "SELECT grp, count(*), sum(amount) FROM events GROUP BY grp")
	if err != nil {
		t.Fatal(err)
	}
	if !sameRows(view, adhoc) {
		t.Errorf("view after the crash differs from its query:\nview:  %v\nquery: %v", view, adhoc)
	}
	checkCrashJoin(t, ctx, c)
	checkCrashView(t, ctx, c, "ranked", crashWindowSQL)
	return present
}

// crashWindowSQL is the query of crashTest's window view: window
// functions without PARTITION BY (one partition, paged when spilled).
const crashWindowSQL = "SELECT id, amount, row_number() OVER (ORDER BY amount, id) AS rn, lag(id) OVER (ORDER BY amount, id) AS prev, " +
	"sum(amount) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS s FROM events"

// checkCrashView checks that view equals its query.
func checkCrashView(t *testing.T, ctx context.Context, c *pgconn.PgConn, view, query string) {
	t.Helper()
	got, err := queryRows(ctx, c, "SELECT * FROM "+view)
	if err != nil {
		t.Fatalf("reading %s after restart: %v", view, err)
	}
	want, err := queryRows(ctx, c, query)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRows(got, want) {
		t.Errorf("%s after the crash differs from its query: %d rows against %d", view, len(got), len(want))
	}
}

// crashJoinSQL is the query of crashTest's join view: an outer join
// (groups 5 and 6 have no label; 'x' never matches), so it keeps
// arrangements on both sides.
const crashJoinSQL = "SELECT e.id, e.grp, e.amount, g.label FROM events e LEFT JOIN grps g ON e.grp = g.grp AND g.label <> 'x' AND e.amount > 0"

// checkCrashJoin checks that the join view equals its query.
func checkCrashJoin(t *testing.T, ctx context.Context, c *pgconn.PgConn) {
	t.Helper()
	view, err := queryRows(ctx, c, "SELECT * FROM labelled")
	if err != nil {
		t.Fatalf("reading the join view after restart: %v", err)
	}
	adhoc, err := queryRows(ctx, c, crashJoinSQL)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRows(view, adhoc) {
		t.Errorf("join view after the crash differs from its query: %d rows against %d", len(view), len(adhoc))
	}
}

// pgConnect opens a low-level connection, retrying briefly.
func pgConnect(t testing.TB, ctx context.Context, dsn string) *pgconn.PgConn {
	t.Helper()
	var err error
	for range 50 {
		var c *pgconn.PgConn
		if c, err = pgconn.Connect(ctx, dsn); err == nil {
			return c
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("connect: %v", err)
	return nil
}

// execAll runs statements that must succeed.
func execAll(t testing.TB, ctx context.Context, c *pgconn.PgConn, sqls ...string) {
	t.Helper()
	for _, sql := range sqls {
		if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}
