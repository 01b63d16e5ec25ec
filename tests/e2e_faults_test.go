package tests

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/tests/harness"
)

// faultCase arms one fault-injection point (package faults) and makes it
// fire: trigger runs on session a, armed, and checks how the fault
// surfaced (the statement's XX000 or the object's error state); it
// returns the rows of t (id|v, sorted) that must be committed afterwards.
type faultCase struct {
	point string
	// env is added to the server's environment.
	env []string
	// trigger makes the armed point fire and checks its report; committed
	// is t's committed rows before it.
	trigger func(t *testing.T, ctx context.Context, s *harness.Server, a *pgconn.PgConn, committed []string) []string
}

// faultTimeout bounds every check after a fault: a lock left held makes
// them wait forever, which this turns into a failure.
const faultTimeout = 10 * time.Second

// TestFaultPoints arms each fault point in turn on a fresh server (started
// with EDDY_TEST_FAULTS=1) and checks that the panic it causes is reported
// as XX000 naming it (or as the object's error), that a second session can
// then SELECT 1, read and write the same table and create and drop a view
// within faultTimeout, and that nothing was lost or half-applied: the
// table holds exactly what was committed, its view agrees, and so does a
// restart after kill -9.
func TestFaultPoints(t *testing.T) {
	for _, fc := range faultCases() {
		t.Run(fc.point, func(t *testing.T) {
			if testing.Short() {
				t.Skip("starts a server")
			}
			runFaultCase(t, fc)
		})
	}
}

// faultBase is t's contents after faultSetup.
var faultBase = []string{"1|10", "2|20", "3|30"}

// faultSetup creates the table t and its view tv.
func faultSetup(t *testing.T, ctx context.Context, c *pgconn.PgConn) {
	execAll(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, v int)",
		"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
		"CREATE MATERIALIZED VIEW tv AS SELECT count(*) AS n, sum(v) AS s FROM t")
}

func runFaultCase(t *testing.T, fc faultCase) {
	s := harness.StartEddy(t, harness.WithEnv(append([]string{"EDDY_TEST_FAULTS=1"}, fc.env...)...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := pgConnect(t, ctx, s.DSN())
	defer a.Close(ctx)
	faultSetup(t, ctx, a)
	want := fc.trigger(t, ctx, s, a, faultBase)
	if !logEventually(s, "injected fault at "+fc.point, 10*time.Second) {
		t.Fatalf("the point %s never fired (server log has no report of it)", fc.point)
	}
	want = checkServerServes(t, s, want)
	s.Kill()
	s.Restart()
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	checkCommitted(t, ctx, c, want)
}

// logEventually reports whether s's log contains want within d: the
// harness reads the server's output asynchronously, so a line the server
// wrote before answering may reach s.Logs a moment after the answer.
func logEventually(s *harness.Server, want string, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(s.Logs(), want) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// checkServerServes checks, from a new session and within faultTimeout,
// that the server answers SELECT 1, that t holds want and its view agrees,
// that t takes a write and that a view can be created and dropped. It
// returns t's rows after the write.
func checkServerServes(t *testing.T, s *harness.Server, want []string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
	defer cancel()
	b := pgConnect(t, ctx, s.DSN())
	defer b.Close(context.Background())
	expectRowsPG(t, ctx, b, "SELECT 1", "1")
	checkCommitted(t, ctx, b, want)
	execAll(t, ctx, b, "INSERT INTO t VALUES (1000, 7)")
	want = append(append([]string(nil), want...), "1000|7")
	checkCommitted(t, ctx, b, want)
	execAll(t, ctx, b, "CREATE MATERIALIZED VIEW probe AS SELECT max(v) AS m FROM t", "DROP MATERIALIZED VIEW probe")
	if ctx.Err() != nil {
		t.Fatalf("the server did not serve a second session within %s", faultTimeout)
	}
	return want
}

// checkCommitted checks that t holds exactly want and that tv agrees.
func checkCommitted(t *testing.T, ctx context.Context, c *pgconn.PgConn, want []string) {
	t.Helper()
	expectRowsPG(t, ctx, c, "SELECT id, v FROM t", sortedRows(want)...)
	sum := 0
	for _, r := range want {
		var id, v int
		fmt.Sscanf(r, "%d|%d", &id, &v)
		sum += v
	}
	expectRowsPG(t, ctx, c, "SELECT n, s FROM tv", fmt.Sprintf("%d|%d", len(want), sum))
}

// expectRowsPG checks a query's rows (sorted, as queryRows returns them).
func expectRowsPG(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql string, want ...string) {
	t.Helper()
	got, err := queryRows(ctx, c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if strings.Join(got, ";") != strings.Join(sortedRows(want), ";") {
		t.Fatalf("%s:\ngot  %v\nwant %v", sql, got, sortedRows(want))
	}
}

// sortedRows returns rows sorted as queryRows sorts.
func sortedRows(rows []string) []string {
	out := append([]string(nil), rows...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// arm arms point for the whole server from session c.
func arm(t *testing.T, ctx context.Context, c *pgconn.PgConn, point string) {
	t.Helper()
	execAll(t, ctx, c, fmt.Sprintf("SET eddy_test_fault = '%s'", point))
}

// expectInternal runs sql on c and checks it fails with XX000 naming point.
func expectInternal(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql, point string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, faultTimeout)
	defer cancel()
	_, err := c.Exec(sctx, sql).ReadAll()
	if pgCode(err) != "XX000" || !strings.Contains(err.Error(), "injected fault at "+point) {
		t.Fatalf("%s with %s armed: got %v, want XX000 naming the point", sql, point, err)
	}
}

// statementFault is a case whose armed point fires in sql, which must
// fail with XX000 and change nothing.
func statementFault(point, sql string) faultCase {
	return faultCase{point: point, trigger: func(t *testing.T, ctx context.Context, _ *harness.Server, a *pgconn.PgConn, committed []string) []string {
		arm(t, ctx, a, point)
		expectInternal(t, ctx, a, sql, point)
		return committed
	}}
}

func faultCases() []faultCase {
	return []faultCase{
		// Reading a table's rows under the engine's read lock: a DELETE
		// whose filter no index serves reads t whole.
		statementFault("sql.read_table", "DELETE FROM t WHERE v > 15"),
		statementFault("sql.commit", "INSERT INTO t VALUES (4, 40), (5, 50)"),
		// An operator of tv's dataflow panics maintaining it: the write
		// fails whole, nothing of it is logged.
		statementFault("exec.operator", "INSERT INTO t VALUES (4, 40), (5, 50)"),
		{point: "sql.commit", trigger: copyFault},
		statementFault("sql.backfill", "CREATE MATERIALIZED VIEW bv AS SELECT v, count(*) AS n FROM t GROUP BY v"),
		{point: "sql.install_view", trigger: installViewFault},
		{point: "sql.drop", trigger: dropFault},
		{point: "sql.subscribe_publish", trigger: subscribeFault},
		{point: "sql.ingest", trigger: ingestFault},
		{point: "server.sink", trigger: sinkFault},
		{point: "sql.checkpoint", env: []string{"EDDY_CHECKPOINT_COMMITS=1"}, trigger: checkpointFault},
	}
}

// copyFault: COPY FROM STDIN with the commit point armed fails whole.
func copyFault(t *testing.T, ctx context.Context, _ *harness.Server, a *pgconn.PgConn, committed []string) []string {
	arm(t, ctx, a, "sql.commit")
	_, err := a.CopyFrom(ctx, strings.NewReader("4\t40\n5\t50\n"), "COPY t FROM STDIN")
	if pgCode(err) != "XX000" || !strings.Contains(err.Error(), "injected fault at sql.commit") {
		t.Fatalf("COPY with sql.commit armed: got %v, want XX000 naming the point", err)
	}
	return committed
}

// installViewFault: a view whose installation panics half-way leaves no
// trace (not in the catalog, its name free).
func installViewFault(t *testing.T, ctx context.Context, _ *harness.Server, a *pgconn.PgConn, committed []string) []string {
	const create = "CREATE MATERIALIZED VIEW bv AS SELECT v, count(*) AS n FROM t GROUP BY v"
	arm(t, ctx, a, "sql.install_view")
	expectInternal(t, ctx, a, create, "sql.install_view")
	expectRowsPG(t, ctx, a, "SELECT count(*) FROM pg_class WHERE relname = 'bv'", "0")
	execAll(t, ctx, a, create)
	expectRowsPG(t, ctx, a, "SELECT v, n FROM bv", "10|1", "20|1", "30|1")
	return committed
}

// dropFault: a DROP that panics after the objects left the catalog in
// memory leaves them in place, whole, and a second DROP works.
func dropFault(t *testing.T, ctx context.Context, _ *harness.Server, a *pgconn.PgConn, committed []string) []string {
	execAll(t, ctx, a, "CREATE MATERIALIZED VIEW dv AS SELECT v FROM t WHERE v > 15")
	arm(t, ctx, a, "sql.drop")
	expectInternal(t, ctx, a, "DROP MATERIALIZED VIEW dv", "sql.drop")
	execAll(t, ctx, a, "INSERT INTO t VALUES (4, 40)")
	expectRowsPG(t, ctx, a, "SELECT v FROM dv", "20", "30", "40")
	execAll(t, ctx, a, "DROP MATERIALIZED VIEW dv")
	expectRowsPG(t, ctx, a, "SELECT count(*) FROM pg_class WHERE relname = 'dv'", "0")
	return append(append([]string(nil), committed...), "4|40")
}

// subscribeFault: delivering a commit to a subscriber panics; the commit
// stands, the subscription ends with XX000, later commits go on.
func subscribeFault(t *testing.T, ctx context.Context, s *harness.Server, a *pgconn.PgConn, committed []string) []string {
	sub := pgConnect(t, ctx, s.DSN())
	defer sub.Close(context.Background())
	sctx, cancel := context.WithTimeout(ctx, faultTimeout)
	defer cancel()
	rows, errc := streamSubscribe(t, sctx, sub, "SUBSCRIBE TO tv", false)
	nextRows(t, rows, 1) // the snapshot
	arm(t, ctx, a, "sql.subscribe_publish")
	execAll(t, ctx, a, "INSERT INTO t VALUES (4, 40)")
	select {
	case err := <-errc:
		if pgCode(err) != "XX000" || !strings.Contains(err.Error(), "injected fault at sql.subscribe_publish") {
			t.Fatalf("SUBSCRIBE with sql.subscribe_publish armed ended with %v, want XX000 naming the point", err)
		}
	case <-sctx.Done():
		t.Fatal("the subscription did not end after its delivery panicked")
	}
	return append(append([]string(nil), committed...), "4|40")
}

// ingestFault: a source's batch panics under the engine lock; the source
// stops as failed with XX000 naming it, nothing of the batch is applied
// (its table and view agree), and the engine goes on.
func ingestFault(t *testing.T, ctx context.Context, _ *harness.Server, a *pgconn.PgConn, committed []string) []string {
	arm(t, ctx, a, "sql.ingest")
	execAll(t, ctx, a, "CREATE TABLE g (id int PRIMARY KEY, v int) WITH (connector = 'datagen', "+
		"fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '500')",
		"CREATE MATERIALIZED VIEW gn AS SELECT count(*) AS n FROM g")
	waitRows(t, ctx, a, "SELECT name, state, error LIKE 'XX000: internal error ingesting source \"g\": injected fault at sql.ingest%' FROM eddy_sources",
		"g|failed|t")
	n, err := queryRows(ctx, a, "SELECT count(*) FROM g")
	if err != nil {
		t.Fatal(err)
	}
	expectRowsPG(t, ctx, a, "SELECT n FROM gn", n...)
	return committed
}

// sinkFault: a sink's delivery panics; the sink shows as failed with
// XX000 naming it in eddy_sinks, and the engine goes on.
func sinkFault(t *testing.T, ctx context.Context, _ *harness.Server, a *pgconn.PgConn, committed []string) []string {
	addr := startKafka(t, map[string]int32{"out": 1})
	arm(t, ctx, a, "server.sink")
	execAll(t, ctx, a, "CREATE SINK k FROM tv "+kafkaWith(addr, "out")+" FORMAT PLAIN ENCODE JSON")
	waitRows(t, ctx, a, "SELECT name, state, error LIKE 'XX000: internal error in sink \"k\": injected fault at server.sink%' FROM eddy_sinks",
		"k|failed|t")
	return committed
}

// checkpointFault: a periodic checkpoint panics before it reached the
// store; the commit that found it due stands, the checkpoint is deferred
// (logged), and the next commits checkpoint as usual.
func checkpointFault(t *testing.T, ctx context.Context, s *harness.Server, a *pgconn.PgConn, committed []string) []string {
	arm(t, ctx, a, "sql.checkpoint")
	execAll(t, ctx, a, "INSERT INTO t VALUES (4, 40)")
	deadline := time.Now().Add(faultTimeout)
	for !strings.Contains(s.Logs(), "panic in checkpoint") {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint panic was logged")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return append(append([]string(nil), committed...), "4|40")
}

// TestFaultDuringReplay checks the one window in which an input batch is
// durable but no view has applied it: the log's replay at start-up (a
// live commit applies every view first and logs its record in the batch
// it then makes durable: exec.operator's case in TestFaultPoints). A
// write, an update and a delete are acknowledged with no checkpoint after
// them (EDDY_CHECKPOINT_INTERVAL=0) and the server is killed (-9); the
// next start, with an operator's panic armed for its first Step
// (EDDY_TEST_FAULTS_ARM), must fail naming the log record rather than
// serve without it, and the start after that must replay the records
// exactly once: t and its view tv hold each committed row once.
func TestFaultDuringReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	env := []string{"EDDY_TEST_FAULTS=1", "EDDY_CHECKPOINT_INTERVAL=0"}
	s := harness.StartEddy(t, harness.WithEnv(env...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := pgConnect(t, ctx, s.DSN())
	faultSetup(t, ctx, a) // CREATE MATERIALIZED VIEW checkpoints
	execAll(t, ctx, a, "INSERT INTO t VALUES (4, 40), (5, 50)", "UPDATE t SET v = v + 1 WHERE id = 2", "DELETE FROM t WHERE id = 3")
	want := []string{"1|10", "2|21", "4|40", "5|50"}
	checkCommitted(t, ctx, a, want)
	a.Close(ctx)
	s.Kill()

	sctx, scancel := context.WithTimeout(ctx, time.Minute)
	defer scancel()
	cmd := exec.CommandContext(sctx, harness.EddyBinary(t), "--listen", "127.0.0.1:0", "--data-dir", s.DataDir())
	cmd.Env = append(cmd.Environ(), append(env, "EDDY_TEST_FAULTS_ARM=exec.operator")...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "replaying the log at time") ||
		!strings.Contains(string(out), "injected fault at exec.operator") {
		t.Fatalf("a start whose replay panicked: %v; want it to fail naming the log record and the fault\n%s", err, out)
	}
	t.Logf("the start with the fault armed: %v: %s", err, lastLine(string(out)))

	s.Restart()
	if !logEventually(s, "log replayed", 10*time.Second) {
		t.Fatal("the start after the failed one replayed no log")
	}
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	checkCommitted(t, ctx, c, want)
	want = checkServerServes(t, s, want)
	s.Kill()
	s.Restart()
	c2 := pgConnect(t, ctx, s.DSN())
	defer c2.Close(ctx)
	checkCommitted(t, ctx, c2, want)
}

// lastLine returns the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
