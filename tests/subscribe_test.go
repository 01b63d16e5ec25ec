package tests

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// SUBSCRIBE end to end, with real clients: psql's COPY (SUBSCRIBE) TO
// STDOUT ended by SIGINT, pgconn streaming and cancelling top-level
// SUBSCRIBE, pgx over the extended protocol and cursors, slow subscribers,
// dropped views, and a consistency oracle over random writes.

// subRow is one row of a subscription: eddy_timestamp, eddy_progressed
// (false without the progress option), eddy_diff and the data columns in
// text form (NULL as `\N`).
type subRow struct {
	ts       int64
	progress bool
	diff     int64
	vals     []string
}

// String prints a row as `ts diff v1 v2 ...` (progress rows: `ts progress`).
func (r subRow) String() string {
	if r.progress {
		return fmt.Sprintf("%d progress", r.ts)
	}
	return fmt.Sprintf("%d %+d %s", r.ts, r.diff, strings.Join(r.vals, " "))
}

// parseSubRow converts the text values of one SUBSCRIBE row.
func parseSubRow(t testing.TB, vals []string, progress bool) subRow {
	t.Helper()
	var r subRow
	var err error
	if r.ts, err = strconv.ParseInt(vals[0], 10, 64); err != nil {
		t.Fatalf("eddy_timestamp %q: %v", vals[0], err)
	}
	rest := vals[1:]
	if progress {
		r.progress = rest[0] == "t"
		rest = rest[1:]
		if r.progress {
			return r
		}
	}
	if r.diff, err = strconv.ParseInt(rest[0], 10, 64); err != nil {
		t.Fatalf("eddy_diff %q: %v", rest[0], err)
	}
	r.vals = slices.Clone(rest[1:])
	return r
}

// startSubscribeServer starts an Eddy server for the SUBSCRIBE tests
// (SUBSCRIBE is Eddy's, so there is no PostgreSQL twin).
func startSubscribeServer(t *testing.T) *harness.Server {
	if testing.Short() {
		t.Skip("starts a server")
	}
	return harness.StartEddy(t)
}

// pgconnCancellable connects with pgconn so that cancelling a context
// sends a CancelRequest and keeps the connection (pgx's default handler
// would close it), as a long-running SUBSCRIBE needs.
func pgconnCancellable(t testing.TB, ctx context.Context, dsn string) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 10 * time.Second}
	}
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// streamSubscribe runs a top-level SUBSCRIBE on c over the simple protocol
// and delivers its rows on the returned channel as they arrive; the
// statement's final error (nil if none) follows on errc. Cancel ctx to end
// it.
func streamSubscribe(t testing.TB, ctx context.Context, c *pgconn.PgConn, sql string, progress bool) (<-chan subRow, <-chan error) {
	rows := make(chan subRow, 1<<16)
	errc := make(chan error, 1)
	go func() {
		defer close(rows)
		mrr := c.Exec(ctx, sql)
		var err error
		for mrr.NextResult() {
			rr := mrr.ResultReader()
			for rr.NextRow() {
				vals := make([]string, len(rr.Values()))
				for i, v := range rr.Values() {
					vals[i] = string(v)
					if v == nil {
						vals[i] = `\N`
					}
				}
				rows <- parseSubRow(t, vals, progress)
			}
			if _, e := rr.Close(); e != nil && err == nil {
				err = e
			}
		}
		if e := mrr.Close(); e != nil && err == nil {
			err = e
		}
		errc <- err
	}()
	return rows, errc
}

// nextRows receives rows until n have arrived, failing after a timeout.
func nextRows(t testing.TB, rows <-chan subRow, n int) []subRow {
	t.Helper()
	var out []subRow
	deadline := time.After(30 * time.Second)
	for len(out) < n {
		select {
		case r, ok := <-rows:
			if !ok {
				t.Fatalf("subscription ended after %d of %d rows: %v", len(out), n, out)
			}
			out = append(out, r)
		case <-deadline:
			t.Fatalf("timed out after %d of %d rows: %v", len(out), n, out)
		}
	}
	return out
}

// nextChanges receives rows until n that are not progress rows have
// arrived, dropping the progress rows.
func nextChanges(t testing.TB, rows <-chan subRow, n int) []subRow {
	t.Helper()
	var out []subRow
	for len(out) < n {
		if r := nextRows(t, rows, 1)[0]; !r.progress {
			out = append(out, r)
		}
	}
	return out
}

// untilProgress receives rows up to and including the next progress row.
func untilProgress(t testing.TB, rows <-chan subRow) []subRow {
	t.Helper()
	var out []subRow
	for {
		r := nextRows(t, rows, 1)[0]
		out = append(out, r)
		if r.progress {
			return out
		}
	}
}

// timeBlock checks that rows are one logical time's changes followed by
// its progress row, and returns that time and the changes as sorted
// "diff values" strings (the order within one time is unspecified).
func timeBlock(t testing.TB, rows []subRow) (int64, []string) {
	t.Helper()
	last := rows[len(rows)-1]
	if !last.progress {
		t.Fatalf("block does not end with a progress row: %v", rows)
	}
	var out []string
	for _, r := range rows[:len(rows)-1] {
		if r.progress || r.ts != last.ts {
			t.Fatalf("row %v in the block of time %d", r, last.ts)
		}
		out = append(out, fmt.Sprintf("%+d %s", r.diff, strings.Join(r.vals, " ")))
	}
	slices.Sort(out)
	return last.ts, out
}

// wantStrings fails unless got equals want.
func wantStrings(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// wantCode fails unless err is a PostgreSQL error with code (and, if
// msg is not empty, a message containing msg).
func wantCode(t testing.TB, err error, code, msg string) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code || !strings.Contains(pe.Message, msg) {
		t.Fatalf("got error %v, want SQLSTATE %s containing %q", err, code, msg)
	}
	return pe
}

// TestSubscribePsql streams COPY (SUBSCRIBE v WITH (progress)) TO STDOUT
// through the real psql while another connection writes, checks the
// snapshot, an insert, an UPDATE (-1/+1 at one eddy_timestamp) and a
// delete, then interrupts psql with SIGINT: psql must send a
// CancelRequest, print 57014's message and exit, and the server must keep
// serving (and keep committing).
func TestSubscribePsql(t *testing.T) {
	psql := psqlPath(t)
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, v text)",
		"INSERT INTO t VALUES (1, 'a'), (2, E'tab\\there')",
		"CREATE MATERIALIZED VIEW v AS SELECT k, v FROM t WHERE k < 100")

	// psql writes COPY data with stdio, fully buffered into a pipe:
	// coreutils' stdbuf makes it line-buffered so rows arrive as they
	// happen (stdbuf execs psql, so the signal below reaches psql itself).
	stdbuf, err := exec.LookPath("stdbuf")
	if err != nil {
		t.Skip("stdbuf (coreutils) not found")
	}
	cmd := exec.Command(stdbuf, "-oL", psql, "-X", "-q", "-d", s.DSN(), "-c", "COPY (SUBSCRIBE v WITH (progress)) TO STDOUT")
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rows := make(chan subRow, 1024)
	go func() {
		defer close(rows)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			rows <- parseSubRow(t, strings.Split(sc.Text(), "\t"), true)
		}
	}()

	t0, snap := timeBlock(t, untilProgress(t, rows))
	// COPY's text format escapes the tab inside the value.
	wantStrings(t, "snapshot", snap, []string{`+1 1 a`, `+1 2 tab\there`})

	mustExec(t, ctx, w, "INSERT INTO t VALUES (3, 'c'), (100, 'filtered out')")
	t1, ins := timeBlock(t, untilProgress(t, rows))
	wantStrings(t, "insert", ins, []string{"+1 3 c"})

	mustExec(t, ctx, w, "UPDATE t SET v = 'A' WHERE k = 1")
	t2, upd := timeBlock(t, untilProgress(t, rows))
	wantStrings(t, "update", upd, []string{"+1 1 A", "-1 1 a"})

	mustExec(t, ctx, w, "DELETE FROM t WHERE k = 3")
	t3, del := timeBlock(t, untilProgress(t, rows))
	wantStrings(t, "delete", del, []string{"-1 3 c"})
	if !(t0 < t1 && t1 < t2 && t2 < t3) {
		t.Fatalf("timestamps not increasing: %d %d %d %d", t0, t1, t2, t3)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("psql did not end after SIGINT; stderr:\n%s", stderr.String())
	}
	// psql -c exits 1 when its statement fails (2 would mean a lost
	// connection): the COPY ended with the cancel error, not a broken pipe.
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("psql exit: %v, want status 1; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "canceling statement due to user request") {
		t.Fatalf("psql stderr lacks the cancel error:\n%s", stderr.String())
	}
	for r := range rows {
		t.Fatalf("row after the cancel: %v", r)
	}
	mustExec(t, ctx, w, "INSERT INTO t VALUES (4, 'd')")
	var n int
	if err := w.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&n); err != nil || n != 3 {
		t.Fatalf("count(*) from v = %d, %v; want 3", n, err)
	}
}

// TestSubscribePgconn drives top-level SUBSCRIBE through pgconn over the
// simple protocol: rows are read as they arrive, SUBSCRIBE (query) with a
// filter and an aggregate, snapshot = false, and a context cancel that
// ends the stream with 57014 while the connection stays usable.
func TestSubscribePgconn(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, g text, v int)",
		"INSERT INTO t VALUES (1, 'x', 10), (2, 'x', 20), (3, 'y', 5)")

	c1 := pgconnCancellable(t, ctx, s.DSN())
	c2 := pgconnCancellable(t, ctx, s.DSN())
	ctx1, cancel1 := context.WithCancel(ctx)
	agg, aggErr := streamSubscribe(t, ctx1, c1,
		"SUBSCRIBE (SELECT g, count(*), sum(v) FROM t WHERE v >= 10 GROUP BY g) WITH (progress = true)", true)
	ctx2, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	// With snapshot = false nothing arrives until a change, so the tail
	// asks for progress too: its first progress row says it is registered,
	// and a write after that must reach it.
	tail, tailErr := streamSubscribe(t, ctx2, c2, "SUBSCRIBE t WITH (snapshot = false, progress)", true)
	if first := nextRows(t, tail, 1)[0]; !first.progress {
		t.Fatalf("snapshot=false subscription began with %v, want a progress row", first)
	}

	_, snap := timeBlock(t, untilProgress(t, agg))
	wantStrings(t, "aggregate snapshot", snap, []string{"+1 x 2 30"})

	mustExec(t, ctx, w, "INSERT INTO t VALUES (4, 'y', 40)")
	t1, d1 := timeBlock(t, untilProgress(t, agg))
	wantStrings(t, "new group", d1, []string{"+1 y 1 40"})
	got := nextChanges(t, tail, 1)
	if got[0].ts != t1 || got[0].String() != fmt.Sprintf("%d +1 4 y 40", t1) {
		t.Fatalf("snapshot=false subscription: first row %v, want the insert at %d", got[0], t1)
	}

	mustExec(t, ctx, w, "UPDATE t SET v = 1 WHERE k = 1")
	t2, d2 := timeBlock(t, untilProgress(t, agg))
	wantStrings(t, "update leaves the filter", d2, []string{"+1 x 1 20", "-1 x 2 30"})
	got = nextChanges(t, tail, 2)
	for _, r := range got {
		if r.ts != t2 {
			t.Fatalf("UPDATE rows at %d, want both at %d: %v", r.ts, t2, got)
		}
	}
	diffs := []int64{got[0].diff, got[1].diff}
	slices.Sort(diffs)
	if !slices.Equal(diffs, []int64{-1, 1}) {
		t.Fatalf("UPDATE diffs %v, want -1 and +1", got)
	}

	// Cancelling the context sends a CancelRequest: the statement ends with
	// 57014 and the same connection runs the next statement.
	cancel1()
	select {
	case err := <-aggErr:
		wantCode(t, err, "57014", "canceling statement")
	case <-time.After(20 * time.Second):
		t.Fatal("SUBSCRIBE did not end after the cancel")
	}
	res := c1.Exec(ctx, "SELECT count(*) FROM t")
	rs, err := res.ReadAll()
	if err != nil || string(rs[0].Rows[0][0]) != "4" {
		t.Fatalf("connection after cancel: %v %v", rs, err)
	}
	// The other subscriber was not disturbed.
	mustExec(t, ctx, w, "DELETE FROM t WHERE k = 3")
	if r := nextChanges(t, tail, 1)[0]; r.diff != -1 || strings.Join(r.vals, " ") != "3 y 5" {
		t.Fatalf("after the other's cancel: %v", r)
	}
	cancel2()
	wantCode(t, <-tailErr, "57014", "")
}

// TestSubscribeExtended runs SUBSCRIBE through pgx's extended protocol:
// Describe reports SUBSCRIBE's columns and types, rows arrive in binary
// format as they happen, and cancelling ends the query.
func TestSubscribeExtended(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')",
		"CREATE MATERIALIZED VIEW v AS SELECT k, v FROM t")

	pc := pgconnCancellable(t, ctx, s.DSN())
	sd, err := pc.Prepare(ctx, "", "SUBSCRIBE v WITH (progress)", nil)
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, f := range sd.Fields {
		desc = append(desc, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
	}
	// int8 = 20, bool = 16, int4 = 23, text = 25.
	wantStrings(t, "Describe", desc, []string{"eddy_timestamp:20", "eddy_progressed:16", "eddy_diff:20", "k:23", "v:25"})

	cfg, err := pgx.ParseConfig(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 10 * time.Second}
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	qctx, qcancel := context.WithCancel(ctx)
	defer qcancel()
	rs, err := c.Query(qctx, "SUBSCRIBE v")
	if err != nil {
		t.Fatal(err)
	}
	next := func() string {
		t.Helper()
		if !rs.Next() {
			t.Fatalf("no row: %v", rs.Err())
		}
		var ts, diff int64
		var k int32
		var v string
		if err := rs.Scan(&ts, &diff, &k, &v); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%+d %d %s", diff, k, v)
	}
	if got := next(); got != "+1 1 a" {
		t.Fatalf("snapshot row %q", got)
	}
	mustExec(t, ctx, w, "INSERT INTO t VALUES (2, 'b')")
	if got := next(); got != "+1 2 b" {
		t.Fatalf("change row %q", got)
	}
	qcancel()
	for rs.Next() {
	}
	wantCode(t, rs.Err(), "57014", "")
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after cancel: %d %v", n, err)
	}
}

// TestSubscribeCursor uses DECLARE c CURSOR FOR SUBSCRIBE and FETCH across
// writes from another connection. FETCH waits until at least one row is
// available, then returns what is there (up to the count); the session
// setting fetch_timeout bounds the wait (FETCH then returns no rows).
func TestSubscribeCursor(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, g int)",
		"INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)")
	c := connect(t, ctx, s.DSN())

	_, err := c.Exec(ctx, "DECLARE c CURSOR FOR SUBSCRIBE t")
	wantCode(t, err, "25P01", "transaction blocks")

	mustExec(t, ctx, c, "BEGIN",
		"DECLARE c CURSOR FOR SUBSCRIBE (SELECT g, count(*) FROM t GROUP BY g)",
		"DECLARE d CURSOR FOR SUBSCRIBE t WITH (snapshot = false, progress)")
	fetch := func(sql string) []string {
		t.Helper()
		rows, err := c.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			vals, _ := rows.Values()
			var parts []string
			for _, v := range vals[1:] { // eddy_timestamp varies
				parts = append(parts, fmt.Sprint(v))
			}
			out = append(out, strings.Join(parts, " "))
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}
	// The snapshot is available at once; FETCH 1 returns one row of it.
	snap := fetch("FETCH 1 c")
	snap = append(snap, fetch("FETCH 10 c")...)
	slices.Sort(snap)
	wantStrings(t, "snapshot", snap, []string{"1 1 2", "1 2 1"})

	// Without fetch_timeout, FETCH waits for the next change.
	go func() {
		time.Sleep(300 * time.Millisecond)
		w.Exec(ctx, "INSERT INTO t VALUES (4, 2)")
	}()
	start := time.Now()
	got := fetch("FETCH 10 c")
	slices.Sort(got)
	wantStrings(t, "waited-for change", got, []string{"-1 2 1", "1 2 2"})
	if time.Since(start) < 200*time.Millisecond {
		t.Fatalf("FETCH returned after %v, before the write", time.Since(start))
	}
	// d saw the same commit: its first progress row (snapshot = false),
	// the insert, and the insert's progress row.
	wantStrings(t, "cursor d", fetch("FETCH ALL d"), []string{"true <nil> <nil> <nil>", "false 1 4 2", "true <nil> <nil> <nil>"})

	mustExec(t, ctx, c, "SET fetch_timeout = '200ms'")
	start = time.Now()
	if got := fetch("FETCH 10 c"); len(got) != 0 {
		t.Fatalf("FETCH with nothing to read returned %v", got)
	}
	if el := time.Since(start); el < 150*time.Millisecond || el > 10*time.Second {
		t.Fatalf("FETCH with fetch_timeout 200ms took %v", el)
	}
	for i := 5; i < 8; i++ {
		mustExec(t, ctx, w, fmt.Sprintf("INSERT INTO t VALUES (%d, 3)", i))
	}
	// Three commits are waiting; FETCH 2 returns the first two changes.
	got = fetch("FETCH 2 c")
	wantStrings(t, "FETCH 2", got, []string{"1 3 1", "-1 3 1"})
	got = fetch("FETCH ALL c")
	wantStrings(t, "FETCH ALL", got, []string{"1 3 2", "-1 3 2", "1 3 3"})

	_, err = c.Exec(ctx, "FETCH 0 c")
	wantCode(t, err, "0A000", "FETCH FORWARD 0")
	mustExec(t, ctx, c, "ROLLBACK")
	_, err = c.Exec(ctx, "FETCH 1 c")
	wantCode(t, err, "34000", `cursor "c" does not exist`)
	_, err = c.Exec(ctx, "SET subscribe_buffer = 0")
	wantCode(t, err, "22023", "subscribe_buffer")
	_, err = c.Exec(ctx, "SET fetch_timeout = 'soon'")
	wantCode(t, err, "22023", "fetch_timeout")
}

// TestSubscribeDropped checks that dropping what a subscription reads ends
// it with a clear error, for a top-level SUBSCRIBE to a view, a cursor and
// a SUBSCRIBE (query) over a dropped table, and that the connections stay
// usable.
func TestSubscribeDropped(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY)", "CREATE TABLE u (k int)",
		"INSERT INTO t VALUES (1)", "INSERT INTO u VALUES (1), (2)",
		"CREATE MATERIALIZED VIEW v AS SELECT k FROM t")

	pc := pgconnCancellable(t, ctx, s.DSN())
	rows, errc := streamSubscribe(t, ctx, pc, "SUBSCRIBE v", false)
	nextRows(t, rows, 1)
	qc := pgconnCancellable(t, ctx, s.DSN())
	qrows, qerrc := streamSubscribe(t, ctx, qc, "SUBSCRIBE (SELECT count(*) FROM u)", false)
	nextRows(t, qrows, 1)
	cc := connect(t, ctx, s.DSN())
	mustExec(t, ctx, cc, "BEGIN", "DECLARE c CURSOR FOR SUBSCRIBE v", "FETCH ALL c")

	mustExec(t, ctx, w, "DROP MATERIALIZED VIEW v", "DROP TABLE u")
	for _, ec := range []<-chan error{errc, qerrc} {
		select {
		case err := <-ec:
			if ec == errc {
				wantCode(t, err, "42P01", `materialized view "v" was dropped`)
			} else {
				wantCode(t, err, "42P01", `table "u" was dropped`)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("subscription not ended by DROP")
		}
	}
	_, err := cc.Exec(ctx, "FETCH ALL c")
	wantCode(t, err, "42P01", `materialized view "v" was dropped`)
	mustExec(t, ctx, cc, "ROLLBACK")
	for _, c := range []*pgconn.PgConn{pc, qc} {
		if _, err := c.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
			t.Fatalf("connection after the drop: %v", err)
		}
	}
	mustExec(t, ctx, w, "INSERT INTO t VALUES (2)")
}

// TestSubscribeFailingQuery: a SUBSCRIBE query that fails on new data
// (division by zero) ends that subscription with the error; the write that
// caused it succeeds.
func TestSubscribeFailingQuery(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 1)")
	pc := pgconnCancellable(t, ctx, s.DSN())
	rows, errc := streamSubscribe(t, ctx, pc, "SUBSCRIBE (SELECT k, 10 / v FROM t)", false)
	nextRows(t, rows, 1)
	mustExec(t, ctx, w, "INSERT INTO t VALUES (2, 0)")
	wantCode(t, <-errc, "22012", "division by zero")
	var n int
	if err := w.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want 2", n, err)
	}
}

// TestSubscribeTimeZone: a SUBSCRIBE (query) reads its literals in the
// session's time zone, as an ad hoc query does: 12:00 in New York is 17:00
// UTC, so only the row at 17:30 UTC passes.
func TestSubscribeTimeZone(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE tz (k int PRIMARY KEY, at timestamptz)",
		"INSERT INTO tz VALUES (1, '2024-03-09 12:30:00+00'), (2, '2024-03-09 17:30:00+00')")
	pc := pgconnCancellable(t, ctx, s.DSN())
	if _, err := pc.Exec(ctx, "SET TimeZone = 'America/New_York'").ReadAll(); err != nil {
		t.Fatal(err)
	}
	rows, _ := streamSubscribe(t, ctx, pc, "SUBSCRIBE (SELECT k FROM tz WHERE at > '2024-03-09 12:00'::timestamptz)", false)
	got := nextRows(t, rows, 1)
	if len(got) != 1 || len(got[0].vals) != 1 || got[0].vals[0] != "2" {
		t.Fatalf("snapshot %v, want only k = 2", got)
	}
	mustExec(t, ctx, w, "INSERT INTO tz VALUES (3, '2024-03-09 16:00:00+00'), (4, '2024-03-09 18:00:00+00')")
	if got := nextRows(t, rows, 1); len(got) != 1 || got[0].vals[0] != "4" {
		t.Fatalf("after the insert %v, want only k = 4", got)
	}
}

// slowWriters runs n UPDATEs of a wide row from 4 connections and returns
// the slowest write's latency; every write must complete.
func slowWriters(t *testing.T, ctx context.Context, dsn string, n int) time.Duration {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var worst time.Duration
	pad := strings.Repeat("x", 8000)
	for g := range 4 {
		c := connect(t, ctx, dsn)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				start := time.Now()
				// Simple protocol: Eddy does not report UPDATE's parameter
				// types at Describe yet.
				if _, err := c.Exec(ctx, "UPDATE wide SET v = $1 WHERE k = $2", pgx.QueryExecModeSimpleProtocol, fmt.Sprint(i, pad), g); err != nil {
					t.Errorf("write %d: %v", i, err)
					return
				}
				mu.Lock()
				worst = max(worst, time.Since(start))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return worst
}

// TestSubscribeSlow: subscribers that never read must not slow the engine.
// A cursor that is never fetched falls more than subscribe_buffer commits
// behind and its next FETCH reports 54000; a top-level SUBSCRIBE whose
// client never reads (tiny receive buffer) is disconnected. Meanwhile every
// write completes and a reading subscriber sees every commit.
func TestSubscribeSlow(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE wide (k int PRIMARY KEY, v text)",
		"INSERT INTO wide VALUES (0, ''), (1, ''), (2, ''), (3, '')")

	lazy := connect(t, ctx, s.DSN())
	mustExec(t, ctx, lazy, "SET subscribe_buffer = 16", "BEGIN", "DECLARE c CURSOR FOR SUBSCRIBE wide")

	// A client that never reads: its socket buffers fill, then its
	// subscription's buffer.
	stuck := stalledConn(t, ctx, s.DSN())
	defer stuck.Close(context.Background())
	if _, err := stuck.Exec(ctx, "SET subscribe_buffer = 16").ReadAll(); err != nil {
		t.Fatal(err)
	}
	stuckRes := stuck.Exec(ctx, "SUBSCRIBE wide")

	fast := pgconnCancellable(t, ctx, s.DSN())
	fctx, fcancel := context.WithCancel(ctx)
	defer fcancel()
	frows, ferr := streamSubscribe(t, fctx, fast, "SUBSCRIBE (SELECT k, v FROM wide WHERE k >= 0) WITH (progress)", true)
	defer func() {
		select {
		case err := <-ferr:
			t.Logf("fast subscriber ended: %v", err)
		default:
		}
	}()
	untilProgress(t, frows)

	const writes = 600
	start := time.Now()
	worst := slowWriters(t, ctx, s.DSN(), writes)
	t.Logf("%d writes of 8 kB rows in %v, slowest %v", writes, time.Since(start), worst)

	// The reading subscriber saw all of them, each as a -1/+1 pair.
	changes := 0
	for changes < 2*writes && !t.Failed() {
		for _, r := range untilProgress(t, frows) {
			if !r.progress {
				changes++
			}
		}
	}

	// FETCH first returns the rows that arrived before the cut (the
	// snapshot and subscribe_buffer commits), then the error.
	fetched := 0
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		var rows pgx.Rows
		if rows, err = lazy.Query(ctx, "FETCH ALL c"); err == nil {
			for rows.Next() {
				fetched++
			}
			err = rows.Err()
		}
	}
	if want := 4 + 2*16; fetched != want {
		t.Fatalf("the lazy cursor fetched %d rows before its error, want %d", fetched, want)
	}
	wantCode(t, err, "54000", "fell more than 16 commits behind")
	mustExec(t, ctx, lazy, "ROLLBACK")

	// The stuck client is cut off: its writes stay blocked past the
	// server's grace period (2s) after the overflow, so the server aborts
	// the connection; reading what it was sent ends with an error, not a
	// hang.
	time.Sleep(3 * time.Second)
	done := make(chan error, 1)
	go func() {
		_, err := stuckRes.ReadAll()
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the stuck subscriber's stream ended without an error")
		}
		t.Logf("stuck subscriber: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the stuck subscriber was never disconnected")
	}
	if !strings.Contains(s.Logs(), "client stopped reading") {
		t.Fatalf("the server did not log the abort:\n%s", s.Logs())
	}
	mustExec(t, ctx, w, "UPDATE wide SET v = 'done' WHERE k = 0")
}

// stalledConn connects to dsn through smallBufferDial: a client meant
// to stop reading.
func stalledConn(t testing.TB, ctx context.Context, dsn string) *pgconn.PgConn {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DialFunc = smallBufferDial
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// smallBufferDial connects with a 4 kB receive buffer, so a client that
// does not read fills its window at once.
func smallBufferDial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return errors.Join(err, serr)
	}}
	return d.DialContext(ctx, network, addr)
}

// TestSubscribeOracle checks that every subscription is consistent: after
// each of a random sequence of writes (one at a time), every subscription
// delivers exactly one logical time, the same time for all of them, and its
// rows accumulated so far equal the view queried ad hoc after that write,
// for a subscription to a materialized view, SUBSCRIBE (query), a cursor,
// and a snapshot = false subscription started halfway (which accumulates
// the difference since its start). Replay with -seed.
func TestSubscribeOracle(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(uint64(testSeed(t)), 0))
	w := pgconnCancellable(t, ctx, s.DSN())
	execText(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, g int, v int); "+
		"INSERT INTO t VALUES (1, 0, 3), (2, 1, 4); "+
		"CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g")

	type follower struct {
		name  string
		adhoc string
		next  func() []subRow // rows up to and including the next progress row
		acc   map[string]int64
		base  map[string]int64 // contents when a snapshot = false subscription began
	}
	stream := func(name, sub, adhoc string) *follower {
		rows, _ := streamSubscribe(t, ctx, pgconnCancellable(t, ctx, s.DSN()), sub, true)
		return &follower{name: name, adhoc: adhoc, acc: map[string]int64{}, next: func() []subRow { return untilProgress(t, rows) }}
	}
	fs := []*follower{
		stream("view", "SUBSCRIBE agg WITH (progress)", "SELECT * FROM agg"),
		stream("query", "SUBSCRIBE (SELECT k, v FROM t WHERE v % 3 = 0) WITH (progress)", "SELECT k, v FROM t WHERE v % 3 = 0"),
	}
	cur := pgconnCancellable(t, ctx, s.DSN())
	execText(t, ctx, cur, "BEGIN; DECLARE c CURSOR FOR SUBSCRIBE (SELECT g, max(v), min(k) FROM t GROUP BY g) WITH (progress)")
	var buffered []subRow
	fs = append(fs, &follower{name: "cursor", adhoc: "SELECT g, max(v), min(k) FROM t GROUP BY g", acc: map[string]int64{},
		next: func() []subRow {
			for {
				if i := slices.IndexFunc(buffered, func(r subRow) bool { return r.progress }); i >= 0 {
					out := buffered[:i+1]
					buffered = buffered[i+1:]
					return out
				}
				for _, vals := range execText(t, ctx, cur, "FETCH ALL c") {
					buffered = append(buffered, parseSubRow(t, vals, true))
				}
			}
		}})

	keys := map[int]bool{1: true, 2: true}
	last := int64(-1) // the logical time of the previous write
	const writes = 120
	for i := 0; i <= writes; i++ {
		if i == writes/2 {
			f := stream("snapshot=false", "SUBSCRIBE agg WITH (snapshot = false, progress)", "SELECT * FROM agg")
			f.base = multiset(execText(t, ctx, w, f.adhoc))
			fs = append(fs, f)
			// Without a snapshot it starts with a progress row at the
			// time of its (empty) snapshot: the last write's.
			if first := f.next(); len(first) != 1 || first[0].ts != last {
				t.Fatalf("snapshot = false subscription began with %v, want a progress row at %d", first, last)
			}
		}
		if i > 0 {
			sql := randomWrite(rng, keys)
			t.Logf("write %d: %s", i, sql)
			execText(t, ctx, w, sql)
		}
		var ts int64 = -1
		for _, f := range fs {
			rows := f.next()
			tf, _ := timeBlock(t, rows)
			if ts >= 0 && tf != ts {
				t.Fatalf("write %d: %s is at time %d, another subscription at %d", i, f.name, tf, ts)
			}
			ts = tf
			if tf <= last {
				t.Fatalf("write %d: %s at time %d, not after the previous %d", i, f.name, tf, last)
			}
			for _, r := range rows[:len(rows)-1] {
				accumulate(f.acc, r)
			}
			want := multiset(execText(t, ctx, w, f.adhoc))
			if f.base != nil {
				want = subtract(want, f.base)
			}
			if !maps.Equal(f.acc, want) {
				t.Fatalf("write %d, time %d: %s accumulated %v, ad hoc %v", i, ts, f.name, f.acc, want)
			}
		}
		last = ts
	}
}

// randomWrite returns a random write that changes t (so that it commits a
// new logical time): an insert, an update of v or g, a delete, or a
// transaction of several. keys tracks t's primary keys.
func randomWrite(rng *rand.Rand, keys map[int]bool) string {
	existing := slices.Sorted(maps.Keys(keys))
	pick := func() int { return existing[rng.IntN(len(existing))] }
	one := func() string {
		switch op := rng.IntN(5); {
		case op == 0 || len(existing) < 3:
			k := 3
			for keys[k] {
				k = rng.IntN(1000) + 3
			}
			keys[k] = true
			existing = append(existing, k)
			return fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", k, rng.IntN(4), rng.IntN(21)-10)
		case op == 1:
			k := pick()
			delete(keys, k)
			existing = slices.DeleteFunc(existing, func(x int) bool { return x == k })
			return fmt.Sprintf("DELETE FROM t WHERE k = %d", k)
		case op == 2:
			return fmt.Sprintf("UPDATE t SET g = (g + 1) %% 4 WHERE k = %d", pick())
		default:
			return fmt.Sprintf("UPDATE t SET v = v + %d WHERE k = %d", rng.IntN(9)+1, pick())
		}
	}
	if rng.IntN(4) > 0 {
		return one()
	}
	parts := []string{"BEGIN"}
	for range rng.IntN(3) + 2 {
		parts = append(parts, one())
	}
	return strings.Join(append(parts, "COMMIT"), "; ")
}

// execText runs sql over the simple protocol and returns the last
// result's rows as text (NULL as `\N`).
func execText(t testing.TB, ctx context.Context, c *pgconn.PgConn, sql string) [][]string {
	t.Helper()
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out [][]string
	for _, row := range res[len(res)-1].Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = string(v)
			if v == nil {
				vals[i] = `\N`
			}
		}
		out = append(out, vals)
	}
	return out
}

// multiset counts rows by their text.
func multiset(rows [][]string) map[string]int64 {
	m := map[string]int64{}
	for _, r := range rows {
		m[strings.Join(r, "|")]++
	}
	return m
}

// subtract returns a - b as a multiset with signed counts (zeros dropped).
func subtract(a, b map[string]int64) map[string]int64 {
	out := maps.Clone(a)
	for k, n := range b {
		out[k] -= n
		if out[k] == 0 {
			delete(out, k)
		}
	}
	return out
}

// accumulate adds a change to a multiset of rows (zeros dropped).
func accumulate(m map[string]int64, r subRow) {
	k := strings.Join(r.vals, "|")
	m[k] += r.diff
	if m[k] == 0 {
		delete(m, k)
	}
}
