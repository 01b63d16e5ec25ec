package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestIsolation checks REPEATABLE READ and SERIALIZABLE with two sessions,
// which sqllogictest files cannot: a block's snapshot does not move while
// another session commits (no non-repeatable reads, no phantoms, through
// tables, materialized views, point reads and cursors), a lost update and
// a write skew fail with 40001, and the isolation settings read back as
// PostgreSQL's. TestIsolationPostgres runs the same checks on PostgreSQL.
func TestIsolation(t *testing.T) { runIsolation(t, harness.StartTarget(t)) }

// TestIsolationPostgres runs TestIsolation's checks against PostgreSQL.
func TestIsolationPostgres(t *testing.T) { runIsolation(t, harness.StartPostgres(t)) }

func runIsolation(t *testing.T, s *harness.Server) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, a, b *pgx.Conn)
	}{
		{"Settings", isoSettings},
		{"NonRepeatableRead", isoNonRepeatable},
		{"Phantom", isoPhantom},
		{"LostUpdate", isoLostUpdate},
		{"DeleteConflict", isoDeleteConflict},
		{"UpsertConflict", isoUpsertConflict},
		{"WriteSkew", isoWriteSkew},
		{"DisjointKeys", isoDisjointKeys},
		{"RangeWriteSkew", isoRangeWriteSkew},
		{"CatalogSnapshot", isoCatalogSnapshot},
		{"LockTimeout", isoLockTimeout},
		{"DDLQueue", isoDDLQueue},
		{"DDLQueueAutocommit", isoDDLQueueAutocommit},
		{"ReadOnlyStable", isoReadOnlyStable},
		{"OwnWrites", isoOwnWrites},
		{"LockChangedRow", isoLockChangedRow},
		{"SkipLocked", isoSkipLocked},
		{"SubqueryLocks", isoSubqueryLocks},
		{"SubqueryLocksElsewhere", isoSubqueryLocksElsewhere},
		{"CorrelatedSubqueryLocks", isoCorrelatedSubqueryLocks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dsn := s.NewDatabase(t)
			tc.fn(t, ctx, connect(t, ctx, dsn), connect(t, ctx, dsn))
		})
	}
}

// queryText returns the first column of every row of sql, as text.
func queryText(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) string {
	t.Helper()
	rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	out := ""
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if out != "" {
			out += ","
		}
		out += fmt.Sprint(vals[0])
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// expectText fails unless sql's first column reads want.
func expectText(t *testing.T, ctx context.Context, c *pgx.Conn, sql, want string) {
	t.Helper()
	if got := queryText(t, ctx, c, sql); got != want {
		t.Fatalf("%s = %q, want %q", sql, got, want)
	}
}

// sqlState returns the SQLSTATE of running sql ("" if it succeeds).
func sqlState(ctx context.Context, c *pgx.Conn, sql string) string {
	_, err := c.Exec(ctx, sql)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// expectState fails unless sql ends with SQLSTATE want ("": success).
func expectState(t *testing.T, ctx context.Context, c *pgx.Conn, sql, want string) {
	t.Helper()
	if got := sqlState(ctx, c, sql); got != want {
		t.Fatalf("%s: SQLSTATE %q, want %q", sql, got, want)
	}
}

// isoSettings: the ways to ask for an isolation level, read back with SHOW.
func isoSettings(t *testing.T, ctx context.Context, a, _ *pgx.Conn) {
	expectText(t, ctx, a, "SHOW transaction_isolation", "read committed")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SHOW transaction_isolation", "repeatable read")
	expectText(t, ctx, a, "SELECT current_setting('transaction_isolation')", "repeatable read")
	mustExec(t, ctx, a, "COMMIT")
	mustExec(t, ctx, a, "BEGIN", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	expectText(t, ctx, a, "SHOW transaction_isolation", "serializable")
	expectText(t, ctx, a, "SELECT 1", "1")
	expectState(t, ctx, a, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "25001")
	mustExec(t, ctx, a, "ROLLBACK")
	mustExec(t, ctx, a, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SHOW default_transaction_isolation", "repeatable read")
	mustExec(t, ctx, a, "BEGIN")
	expectText(t, ctx, a, "SHOW transaction_isolation", "repeatable read")
	mustExec(t, ctx, a, "COMMIT", "SET default_transaction_isolation = 'serializable'")
	mustExec(t, ctx, a, "START TRANSACTION READ ONLY, DEFERRABLE")
	expectText(t, ctx, a, "SHOW transaction_isolation", "serializable")
	mustExec(t, ctx, a, "COMMIT", "RESET default_transaction_isolation")
	expectText(t, ctx, a, "SHOW transaction_isolation", "read committed")
	expectState(t, ctx, a, "SET default_transaction_isolation = 'chaos'", "22023")
}

// isoNonRepeatable: a row another session updates keeps its value in the
// block, through a table scan, a point read by key, a view and a cursor,
// until COMMIT.
func isoNonRepeatable(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE acct (k int PRIMARY KEY, v int)",
		"CREATE VIEW acct_v AS SELECT k, v * 2 AS v2 FROM acct",
		"INSERT INTO acct VALUES (1, 10), (2, 20)")
	for _, level := range []string{"REPEATABLE READ", "SERIALIZABLE"} {
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL "+level)
		expectText(t, ctx, a, "SELECT v FROM acct WHERE k = 1", "10")
		mustExec(t, ctx, b, "UPDATE acct SET v = v + 1 WHERE k = 1")
		expectText(t, ctx, a, "SELECT v FROM acct WHERE k = 1", "10")
		expectText(t, ctx, a, "SELECT v FROM acct ORDER BY k", "10,20")
		expectText(t, ctx, a, "SELECT v2 FROM acct_v WHERE k = 1", "20")
		mustExec(t, ctx, a, "DECLARE cur CURSOR FOR SELECT v FROM acct ORDER BY k")
		expectText(t, ctx, a, "FETCH ALL FROM cur", "10,20")
		mustExec(t, ctx, a, "COMMIT")
		expectText(t, ctx, a, "SELECT v FROM acct WHERE k = 1", "11")
		mustExec(t, ctx, b, "UPDATE acct SET v = 10 WHERE k = 1")
	}
	// READ COMMITTED sees the commit at once.
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL READ COMMITTED")
	expectText(t, ctx, a, "SELECT v FROM acct WHERE k = 1", "10")
	mustExec(t, ctx, b, "UPDATE acct SET v = 12 WHERE k = 1")
	expectText(t, ctx, a, "SELECT v FROM acct WHERE k = 1", "12")
	mustExec(t, ctx, a, "COMMIT")
}

// isoPhantom: rows another session inserts or deletes do not appear or
// disappear in the block; a table created after the snapshot reads empty.
func isoPhantom(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE ev (id int, kind text)", "INSERT INTO ev VALUES (1, 'x'), (2, 'y'), (3, 'x')")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT count(*) FROM ev WHERE kind = 'x'", "2")
	mustExec(t, ctx, b, "INSERT INTO ev VALUES (4, 'x')", "DELETE FROM ev WHERE id = 1",
		"CREATE TABLE late (x int)", "INSERT INTO late VALUES (1)")
	expectText(t, ctx, a, "SELECT count(*) FROM ev WHERE kind = 'x'", "2")
	expectText(t, ctx, a, "SELECT id FROM ev ORDER BY id", "1,2,3")
	expectText(t, ctx, a, "SELECT count(*) FROM late", "0")
	mustExec(t, ctx, a, "COMMIT")
	expectText(t, ctx, a, "SELECT id FROM ev ORDER BY id", "2,3,4")
}

// isoLostUpdate: two read-modify-write blocks on one row; the second
// writer fails with 40001 instead of overwriting the first one's update.
func isoLostUpdate(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE ctr (k int PRIMARY KEY, n int)", "INSERT INTO ctr VALUES (1, 0), (2, 0)")
	for _, level := range []string{"REPEATABLE READ", "SERIALIZABLE"} {
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL "+level)
		mustExec(t, ctx, b, "BEGIN ISOLATION LEVEL "+level)
		expectText(t, ctx, a, "SELECT n FROM ctr WHERE k = 1", "0")
		expectText(t, ctx, b, "SELECT n FROM ctr WHERE k = 1", "0")
		mustExec(t, ctx, b, "UPDATE ctr SET n = n + 1 WHERE k = 1", "COMMIT")
		expectState(t, ctx, a, "UPDATE ctr SET n = n + 1 WHERE k = 1", "40001")
		expectState(t, ctx, a, "SELECT 1", "25P02")
		mustExec(t, ctx, a, "ROLLBACK")
		expectText(t, ctx, a, "SELECT n FROM ctr WHERE k = 1", "1")
		mustExec(t, ctx, a, "UPDATE ctr SET n = 0 WHERE k = 1")
	}
	// A row the other session did not touch updates fine.
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT n FROM ctr WHERE k = 2", "0")
	mustExec(t, ctx, b, "UPDATE ctr SET n = 5 WHERE k = 1")
	mustExec(t, ctx, a, "UPDATE ctr SET n = n + 1 WHERE k = 2", "COMMIT")
	expectText(t, ctx, a, "SELECT n FROM ctr ORDER BY k", "5,1")
}

// isoDeleteConflict: deleting (or updating) a row another session deleted
// or updated after the snapshot is 40001.
func isoDeleteConflict(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE d (k int PRIMARY KEY, v text)", "INSERT INTO d VALUES (1, 'a'), (2, 'b')")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT count(*) FROM d", "2")
	mustExec(t, ctx, b, "DELETE FROM d WHERE k = 1", "UPDATE d SET v = 'c' WHERE k = 2")
	expectState(t, ctx, a, "DELETE FROM d WHERE k = 1", "40001")
	mustExec(t, ctx, a, "ROLLBACK", "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT v FROM d", "c")
	mustExec(t, ctx, b, "UPDATE d SET v = 'e' WHERE k = 2")
	expectState(t, ctx, a, "UPDATE d SET v = 'f' WHERE v = 'c'", "40001")
	mustExec(t, ctx, a, "ROLLBACK")
}

// isoUpsertConflict: INSERT ... ON CONFLICT meeting a row committed after
// the snapshot is 40001 (DO UPDATE and DO NOTHING alike).
func isoUpsertConflict(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE u (k int PRIMARY KEY, v int)", "INSERT INTO u VALUES (1, 1)")
	for _, action := range []string{"DO UPDATE SET v = excluded.v", "DO NOTHING"} {
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
		expectText(t, ctx, a, "SELECT count(*) FROM u", "1")
		mustExec(t, ctx, b, "INSERT INTO u VALUES (2, 2)")
		expectState(t, ctx, a, "INSERT INTO u VALUES (2, 3) ON CONFLICT (k) "+action, "40001")
		mustExec(t, ctx, a, "ROLLBACK", "DELETE FROM u WHERE k = 2")
	}
	// A conflict with a row the snapshot shows is an ordinary upsert.
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT count(*) FROM u", "1")
	mustExec(t, ctx, a, "INSERT INTO u VALUES (1, 7) ON CONFLICT (k) DO UPDATE SET v = excluded.v", "COMMIT")
	expectText(t, ctx, a, "SELECT v FROM u", "7")
}

// isoWriteSkew: the on-call doctors. Each block reads that two doctors
// are on call and takes a different one off; under SERIALIZABLE one of
// them fails with 40001 (at its write or its COMMIT), under REPEATABLE
// READ both commit (snapshot isolation allows write skew, as in
// PostgreSQL).
func isoWriteSkew(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE doctors (name text PRIMARY KEY, on_call bool)")
	for _, tc := range []struct {
		level   string
		failure bool
	}{{"REPEATABLE READ", false}, {"SERIALIZABLE", true}} {
		mustExec(t, ctx, a, "DELETE FROM doctors", "INSERT INTO doctors VALUES ('alice', true), ('bob', true)")
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL "+tc.level)
		mustExec(t, ctx, b, "BEGIN ISOLATION LEVEL "+tc.level)
		expectText(t, ctx, a, "SELECT count(*) FROM doctors WHERE on_call", "2")
		expectText(t, ctx, b, "SELECT count(*) FROM doctors WHERE on_call", "2")
		mustExec(t, ctx, a, "UPDATE doctors SET on_call = false WHERE name = 'alice'")
		states := []string{sqlState(ctx, b, "UPDATE doctors SET on_call = false WHERE name = 'bob'"),
			sqlState(ctx, a, "COMMIT"), sqlState(ctx, b, "COMMIT")}
		failed := 0
		for _, st := range states {
			switch st {
			case "":
			case "40001":
				failed++
			case "25P02": // b's COMMIT after its failed UPDATE
			default:
				t.Fatalf("%s: unexpected SQLSTATE %s (%v)", tc.level, st, states)
			}
		}
		if failed != map[bool]int{true: 1, false: 0}[tc.failure] {
			t.Fatalf("%s: states %v, want %v failure", tc.level, states, tc.failure)
		}
		want := map[bool]string{true: "1", false: "0"}[tc.failure]
		expectText(t, ctx, a, "SELECT count(*) FROM doctors WHERE on_call", want)
		_, _ = b.Exec(ctx, "ROLLBACK")
	}
}

// isoDisjointKeys: SERIALIZABLE blocks that read and update different
// keys of one table, by key and by key range, both commit.
func isoDisjointKeys(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE kv (k int PRIMARY KEY, v int)",
		"INSERT INTO kv SELECT g, 0 FROM generate_series(1, 2000) g")
	for _, q := range []struct{ a, b string }{
		{"SELECT v FROM kv WHERE k = 1", "SELECT v FROM kv WHERE k = 1500"},
		{"SELECT sum(v) FROM kv WHERE k BETWEEN 1 AND 10", "SELECT sum(v) FROM kv WHERE k BETWEEN 1500 AND 1510"},
	} {
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL SERIALIZABLE")
		mustExec(t, ctx, b, "BEGIN ISOLATION LEVEL SERIALIZABLE")
		expectText(t, ctx, a, q.a, "0")
		expectText(t, ctx, b, q.b, "0")
		mustExec(t, ctx, a, "UPDATE kv SET v = v + 1 WHERE k = 1")
		mustExec(t, ctx, b, "UPDATE kv SET v = v + 1 WHERE k = 1500")
		mustExec(t, ctx, a, "COMMIT")
		mustExec(t, ctx, b, "COMMIT")
		expectText(t, ctx, a, "SELECT sum(v) FROM kv", "2")
		mustExec(t, ctx, a, "UPDATE kv SET v = 0")
	}
}

// isoRangeWriteSkew: two SERIALIZABLE blocks read the same key range and
// each updates a different key in it: one of them fails with 40001.
func isoRangeWriteSkew(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE kv (k int PRIMARY KEY, v int)",
		"INSERT INTO kv SELECT g, 0 FROM generate_series(1, 2000) g")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	mustExec(t, ctx, b, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	expectText(t, ctx, a, "SELECT sum(v) FROM kv WHERE k BETWEEN 1 AND 10", "0")
	expectText(t, ctx, b, "SELECT sum(v) FROM kv WHERE k BETWEEN 1 AND 10", "0")
	mustExec(t, ctx, a, "UPDATE kv SET v = 1 WHERE k = 1")
	states := []string{sqlState(ctx, b, "UPDATE kv SET v = 1 WHERE k = 2"),
		sqlState(ctx, a, "COMMIT"), sqlState(ctx, b, "COMMIT")}
	failed := 0
	for _, st := range states {
		switch st {
		case "":
		case "40001":
			failed++
		case "25P02":
		default:
			t.Fatalf("unexpected SQLSTATE %s (%v)", st, states)
		}
	}
	if failed != 1 {
		t.Fatalf("states %v, want one 40001", states)
	}
	expectText(t, ctx, a, "SELECT sum(v) FROM kv", "1")
	_, _ = b.Exec(ctx, "ROLLBACK")
}

// isoCatalogSnapshot: a snapshot block's catalog queries show the
// catalog as of its snapshot: a table created since is not listed, one
// dropped since still is; after COMMIT both show as they are.
func isoCatalogSnapshot(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE gone (x int)")
	const q = "SELECT relname FROM pg_class WHERE relname IN ('gone', 'late') ORDER BY relname"
	const qi = "SELECT table_name FROM information_schema.tables WHERE table_name IN ('gone', 'late') ORDER BY 1"
	for _, level := range []string{"REPEATABLE READ", "SERIALIZABLE"} {
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL "+level)
		expectText(t, ctx, a, q, "gone")
		mustExec(t, ctx, b, "CREATE TABLE late (y int)", "DROP TABLE gone")
		expectText(t, ctx, a, q, "gone")
		expectText(t, ctx, a, qi, "gone")
		mustExec(t, ctx, a, "COMMIT")
		expectText(t, ctx, a, q, "late")
		mustExec(t, ctx, b, "DROP TABLE late", "CREATE TABLE gone (x int)")
	}
}

// isoLockTimeout: DDL that waits for another session's open block with
// DDL gives up after lock_timeout with 55P03, and runs once it ends.
func isoLockTimeout(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE lt (x int)", "BEGIN", "ALTER TABLE lt ADD COLUMN y int")
	mustExec(t, ctx, b, "SET lock_timeout = '200ms'")
	expectState(t, ctx, b, "DROP TABLE lt", "55P03")
	mustExec(t, ctx, a, "ROLLBACK")
	mustExec(t, ctx, b, "DROP TABLE lt", "RESET lock_timeout")
}

// isoDDLQueue: DDL waiting for another session's open block with DDL
// shows as waiting for a lock in pg_stat_activity, gives up at
// statement_timeout with 57014, and the waiters run in arrival order,
// each once the block before it ends.
func isoDDLQueue(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	dsn := a.Config().ConnString()
	c, d := connect(t, ctx, dsn), connect(t, ctx, dsn)
	mustExec(t, ctx, a, "CREATE TABLE lq (x int)", "BEGIN", "ALTER TABLE lq ADD COLUMN a1 int")
	mustExec(t, ctx, d, "SET statement_timeout = '200ms'")
	expectState(t, ctx, d, "ALTER TABLE lq ADD COLUMN d1 int", "57014")
	mustExec(t, ctx, d, "RESET statement_timeout")
	waitFor := func(conn *pgx.Conn, col string) chan error {
		pid := queryText(t, ctx, conn, "SELECT pg_backend_pid()")
		done := make(chan error, 1)
		mustExec(t, ctx, conn, "BEGIN")
		go func() { _, err := conn.Exec(ctx, "ALTER TABLE lq ADD COLUMN "+col+" int"); done <- err }()
		for queryText(t, ctx, d, "SELECT count(*) FROM pg_stat_activity WHERE pid = "+pid+" AND wait_event_type = 'Lock'") != "1" {
			time.Sleep(10 * time.Millisecond)
		}
		return done
	}
	bDone := waitFor(b, "b1")
	cDone := waitFor(c, "c1")
	mustExec(t, ctx, a, "COMMIT")
	if err := <-bDone; err != nil {
		t.Fatalf("b's ALTER: %v", err)
	}
	select {
	case err := <-cDone:
		t.Fatalf("c's ALTER ran (%v) while b's block holds the table", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, ctx, b, "COMMIT")
	if err := <-cDone; err != nil {
		t.Fatalf("c's ALTER: %v", err)
	}
	mustExec(t, ctx, c, "COMMIT")
	expectText(t, ctx, d, "SELECT column_name FROM information_schema.columns WHERE table_name = 'lq' ORDER BY ordinal_position", "x,a1,b1,c1")
}

// isoDDLQueueAutocommit: autocommit DDL and a block's DDL waiting for
// another session's open block with DDL run in their arrival order: the
// autocommit ALTER that waited first runs when the block ends, before
// the block that asked after it; one that asks after a waiting block
// waits for that block's end.
func isoDDLQueueAutocommit(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	dsn := a.Config().ConnString()
	c, d := connect(t, ctx, dsn), connect(t, ctx, dsn)
	mustExec(t, ctx, a, "CREATE TABLE lqa (x int)", "BEGIN", "ALTER TABLE lqa ADD COLUMN a1 int")
	alter := func(conn *pgx.Conn, col string) chan error {
		pid := queryText(t, ctx, conn, "SELECT pg_backend_pid()")
		done := make(chan error, 1)
		go func() { _, err := conn.Exec(ctx, "ALTER TABLE lqa ADD COLUMN "+col+" int"); done <- err }()
		for queryText(t, ctx, d, "SELECT count(*) FROM pg_stat_activity WHERE pid = "+pid+" AND wait_event_type = 'Lock'") != "1" {
			time.Sleep(10 * time.Millisecond)
		}
		return done
	}
	wait := func(done chan error, who string) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s's ALTER: %v", who, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s's ALTER still waits", who)
		}
	}
	cDone := alter(c, "c1") // autocommit, first in line
	mustExec(t, ctx, b, "BEGIN")
	bDone := alter(b, "b1")
	mustExec(t, ctx, a, "COMMIT")
	wait(cDone, "c")
	wait(bDone, "b")
	cDone = alter(c, "c2") // autocommit, behind b's open block
	select {
	case err := <-cDone:
		t.Fatalf("c's ALTER ran (%v) while b's block holds the table", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, ctx, b, "COMMIT")
	wait(cDone, "c")
	expectText(t, ctx, d, "SELECT column_name FROM information_schema.columns WHERE table_name = 'lqa' ORDER BY ordinal_position", "x,a1,c1,b1,c2")
}

// isoReadOnlyStable: a read-only block's answers stay the same while
// another session keeps writing, then catch up after COMMIT.
func isoReadOnlyStable(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE bal (k int PRIMARY KEY, v int)",
		"INSERT INTO bal SELECT g, 100 FROM generate_series(1, 50) g")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE")
	expectText(t, ctx, a, "SELECT sum(v) FROM bal", "5000")
	for i := range 20 {
		mustExec(t, ctx, b, fmt.Sprintf("UPDATE bal SET v = v + 1 WHERE k = %d", i%50+1),
			fmt.Sprintf("INSERT INTO bal VALUES (%d, 1)", 100+i))
		expectText(t, ctx, a, "SELECT sum(v) FROM bal", "5000")
		expectText(t, ctx, a, "SELECT count(*) FROM bal", "50")
	}
	mustExec(t, ctx, a, "COMMIT")
	expectText(t, ctx, a, "SELECT sum(v) FROM bal", "5040")
}

// isoOwnWrites: a snapshot block reads its own writes over its snapshot.
func isoOwnWrites(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE w (k int PRIMARY KEY, v int)", "INSERT INTO w VALUES (1, 1), (2, 2)")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT sum(v) FROM w", "3")
	mustExec(t, ctx, b, "INSERT INTO w VALUES (3, 3)")
	mustExec(t, ctx, a, "INSERT INTO w VALUES (4, 4)", "UPDATE w SET v = v * 10 WHERE k IN (1, 4)")
	expectText(t, ctx, a, "SELECT v FROM w ORDER BY k", "10,2,40")
	expectState(t, ctx, a, "INSERT INTO w VALUES (3, 30)", "23505")
	mustExec(t, ctx, a, "ROLLBACK")
	expectText(t, ctx, a, "SELECT v FROM w ORDER BY k", "1,2,3")
}

// isoLockChangedRow: at REPEATABLE READ, SELECT ... FOR UPDATE (or FOR
// SHARE) of a row another session changed after the snapshot is 40001;
// a row nobody changed locks and updates fine.
func isoLockChangedRow(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE lk (k int PRIMARY KEY, v int)", "INSERT INTO lk VALUES (1, 0), (2, 0)")
	for _, strength := range []string{"UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"} {
		mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
		expectText(t, ctx, a, "SELECT count(*) FROM lk", "2")
		mustExec(t, ctx, b, "UPDATE lk SET v = v + 1 WHERE k = 1")
		if strength == "KEY SHARE" { // a change that keeps the key does not conflict
			expectText(t, ctx, a, "SELECT v FROM lk WHERE k = 1 FOR "+strength, "3")
		} else {
			expectState(t, ctx, a, "SELECT v FROM lk WHERE k = 1 FOR "+strength, "40001")
		}
		mustExec(t, ctx, a, "ROLLBACK")
	}
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT count(*) FROM lk", "2")
	mustExec(t, ctx, b, "UPDATE lk SET k = 3 WHERE k = 1")
	expectState(t, ctx, a, "SELECT v FROM lk WHERE k = 1 FOR KEY SHARE", "40001")
	mustExec(t, ctx, a, "ROLLBACK", "UPDATE lk SET k = 1, v = 0 WHERE k = 3")
	mustExec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	expectText(t, ctx, a, "SELECT v FROM lk WHERE k = 2 FOR UPDATE", "0")
	mustExec(t, ctx, b, "UPDATE lk SET v = 9 WHERE k = 1")
	mustExec(t, ctx, a, "UPDATE lk SET v = 1 WHERE k = 2", "COMMIT")
	expectText(t, ctx, a, "SELECT v FROM lk ORDER BY k", "9,1")
}

// TestForUpdateConflict checks Eddy's optimistic row locks with two
// sessions at READ COMMITTED (PostgreSQL would make the second writer
// wait instead, so this runs against Eddy only): a block that read a row
// FOR UPDATE or FOR SHARE fails its COMMIT with 40001 when another
// session committed a change to that row meanwhile, and commits when the
// other session changed other rows or when the block wrote nothing.
func TestForUpdateConflict(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := s.NewDatabase(t)
	a, b := connect(t, ctx, dsn), connect(t, ctx, dsn)
	mustExec(t, ctx, a, "CREATE TABLE jobs (id int PRIMARY KEY, state text)", "CREATE TABLE log (id int, who text)",
		"INSERT INTO jobs VALUES (1, 'new'), (2, 'new')")
	for _, tc := range []struct{ strength, change string }{
		{"UPDATE", "UPDATE jobs SET state = 'taken' WHERE id = 1"},
		{"NO KEY UPDATE", "UPDATE jobs SET state = 'taken' WHERE id = 1"},
		{"SHARE", "UPDATE jobs SET state = 'taken' WHERE id = 1"},
		{"KEY SHARE", "UPDATE jobs SET id = 10 WHERE id = 1"},
	} {
		// The other session changes the locked row: the locker's COMMIT fails.
		mustExec(t, ctx, a, "BEGIN")
		expectText(t, ctx, a, "SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR "+tc.strength, "1")
		mustExec(t, ctx, a, "INSERT INTO log VALUES (1, 'a')")
		mustExec(t, ctx, b, tc.change)
		expectState(t, ctx, a, "COMMIT", "40001")
		expectText(t, ctx, a, "SELECT count(*) FROM log", "0")
		mustExec(t, ctx, b, "DELETE FROM jobs WHERE id IN (1, 10)", "INSERT INTO jobs VALUES (1, 'new')")
	}
	// FOR KEY SHARE lets others change the row's other columns.
	mustExec(t, ctx, a, "BEGIN")
	expectText(t, ctx, a, "SELECT id FROM jobs WHERE id = 1 FOR KEY SHARE", "1")
	mustExec(t, ctx, b, "UPDATE jobs SET state = 'busy' WHERE id = 1")
	mustExec(t, ctx, a, "INSERT INTO log VALUES (2, 'a')", "COMMIT")
	mustExec(t, ctx, a, "DELETE FROM log", "UPDATE jobs SET state = 'new' WHERE id = 1")
	// Deleting the locked row conflicts too; so does a cursor's lock.
	mustExec(t, ctx, a, "BEGIN", "DECLARE c CURSOR FOR SELECT id FROM jobs WHERE id = 2 FOR UPDATE")
	expectText(t, ctx, a, "FETCH ALL FROM c", "2")
	mustExec(t, ctx, a, "UPDATE jobs SET state = 'mine' WHERE id = 1")
	mustExec(t, ctx, b, "DELETE FROM jobs WHERE id = 2")
	expectState(t, ctx, a, "COMMIT", "40001")
	expectText(t, ctx, a, "SELECT state FROM jobs ORDER BY id", "new")
	mustExec(t, ctx, b, "INSERT INTO jobs VALUES (2, 'new')")
	// A change to another row does not conflict: the lock is per row.
	mustExec(t, ctx, a, "BEGIN")
	expectText(t, ctx, a, "SELECT id FROM jobs WHERE id = 1 FOR UPDATE", "1")
	mustExec(t, ctx, b, "UPDATE jobs SET state = 'other' WHERE id = 2")
	mustExec(t, ctx, a, "UPDATE jobs SET state = 'mine' WHERE id = 1", "COMMIT")
	expectText(t, ctx, a, "SELECT state FROM jobs ORDER BY id", "mine,other")
	// A block that writes nothing has nothing to validate.
	mustExec(t, ctx, a, "BEGIN")
	expectText(t, ctx, a, "SELECT id FROM jobs WHERE id = 1 FOR UPDATE", "1")
	mustExec(t, ctx, b, "UPDATE jobs SET state = 'again' WHERE id = 1")
	mustExec(t, ctx, a, "COMMIT")
	// Outside a block a lock ends with its statement.
	expectText(t, ctx, a, "SELECT id FROM jobs WHERE id = 1 FOR UPDATE", "1")
	mustExec(t, ctx, b, "UPDATE jobs SET state = 'free' WHERE id = 1")
	mustExec(t, ctx, a, "INSERT INTO log VALUES (3, 'a')")
	expectText(t, ctx, a, "SELECT count(*) FROM log", "1")
}

// TestModifyingWithExtended runs data-modifying WITH statements, UPDATE
// ... FROM and SELECT ... FOR UPDATE through the extended protocol (Parse
// describes them before they run), on Eddy and on PostgreSQL.
func TestModifyingWithExtended(t *testing.T) {
	for _, s := range []*harness.Server{harness.StartTarget(t), harness.StartPostgres(t)} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := connect(t, ctx, s.NewDatabase(t))
		mustExec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, v text)", "CREATE TABLE u (id int, w text)",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')", "INSERT INTO u VALUES (2, 'B')")
		var id int
		var v string
		err := c.QueryRow(ctx, "WITH d AS (DELETE FROM t WHERE id = $1 RETURNING *) SELECT id, v FROM d", 1).Scan(&id, &v)
		if err != nil || id != 1 || v != "a" {
			t.Fatalf("%s: WITH DELETE: %d %q %v", s.Kind(), id, v, err)
		}
		err = c.QueryRow(ctx, "UPDATE t SET v = u.w FROM u WHERE u.id = t.id AND t.id = $1 RETURNING t.v", 2).Scan(&v)
		if err != nil || v != "B" {
			t.Fatalf("%s: UPDATE FROM: %q %v", s.Kind(), v, err)
		}
		err = c.QueryRow(ctx, "SELECT v FROM t WHERE id = $1 FOR UPDATE", 3).Scan(&v)
		if err != nil || v != "c" {
			t.Fatalf("%s: FOR UPDATE: %q %v", s.Kind(), v, err)
		}
		expectText(t, ctx, c, "SELECT string_agg(v, ',' ORDER BY id) FROM t", "B,c")
	}
}

// isoSkipLocked: the job queue. Two workers claim jobs with FOR UPDATE
// SKIP LOCKED and get different ones; NOWAIT on a row another block
// locked (by a locking read or by updating it) is 55P03; FOR KEY SHARE
// is compatible with an update that keeps the key; locks end with the
// block.
func isoSkipLocked(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE q (id int PRIMARY KEY, state text)", "INSERT INTO q VALUES (1, 'new'), (2, 'new'), (3, 'new')")
	claim := "SELECT id FROM q WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
	mustExec(t, ctx, a, "BEGIN")
	expectText(t, ctx, a, claim, "1")
	mustExec(t, ctx, b, "BEGIN")
	expectText(t, ctx, b, claim, "2")
	expectText(t, ctx, b, "SELECT id FROM q ORDER BY id FOR SHARE SKIP LOCKED", "2,3") // its own lock does not hide a row
	expectState(t, ctx, b, "SELECT id FROM q WHERE id = 1 FOR UPDATE NOWAIT", "55P03")
	mustExec(t, ctx, b, "ROLLBACK")
	mustExec(t, ctx, a, "UPDATE q SET state = 'done' WHERE id = 1", "COMMIT")
	mustExec(t, ctx, b, "BEGIN")
	expectText(t, ctx, b, claim, "2")
	mustExec(t, ctx, b, "COMMIT")
	// A block's update locks the row it changes.
	mustExec(t, ctx, a, "BEGIN", "UPDATE q SET state = 'busy' WHERE id = 3")
	expectText(t, ctx, b, "SELECT id FROM q WHERE id = 3 FOR UPDATE SKIP LOCKED", "")
	expectState(t, ctx, b, "SELECT id FROM q WHERE id = 3 FOR SHARE NOWAIT", "55P03")
	expectText(t, ctx, b, "SELECT id FROM q WHERE id = 3 FOR KEY SHARE NOWAIT", "3")
	mustExec(t, ctx, a, "ROLLBACK")
	expectText(t, ctx, b, "SELECT id FROM q WHERE id = 3 FOR UPDATE NOWAIT", "3")
}

// isoSubqueryLocks: locking blocks below the top level lock as the
// top-level form does. Two workers claim different jobs through a
// subquery in FROM, a WITH query and an UPDATE's sublink; NOWAIT in a
// view's definition meets the other block's lock.
func isoSubqueryLocks(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE q (id int PRIMARY KEY, state text)", "INSERT INTO q VALUES (1, 'new'), (2, 'new'), (3, 'new')",
		"CREATE VIEW q_next AS SELECT id FROM q WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE NOWAIT")
	next := "SELECT id FROM q WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
	mustExec(t, ctx, a, "BEGIN")
	expectText(t, ctx, a, "SELECT id FROM ("+next+") s", "1")
	mustExec(t, ctx, b, "BEGIN")
	expectText(t, ctx, b, "WITH c AS ("+next+") SELECT id FROM c", "2")
	expectState(t, ctx, b, "SELECT * FROM q_next", "55P03")
	mustExec(t, ctx, b, "ROLLBACK", "BEGIN")
	expectText(t, ctx, b, "UPDATE q SET state = 'busy' WHERE id = ("+next+") RETURNING id", "2")
	mustExec(t, ctx, b, "COMMIT")
	expectText(t, ctx, a, "SELECT id FROM q WHERE id IN (SELECT id FROM q WHERE state = 'new' FOR SHARE) ORDER BY id", "1,3")
	mustExec(t, ctx, a, "COMMIT")
}

// isoSubqueryLocksElsewhere: a locking block below the top level of a
// cursor's query and of COPY (query) TO locks its rows (Eddy when the
// cursor is declared, PostgreSQL as it is read: the same once it is
// read), and EXPLAIN of such a query locks nothing.
func isoSubqueryLocksElsewhere(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE q (id int PRIMARY KEY, state text)", "INSERT INTO q VALUES (1, 'new'), (2, 'new'), (3, 'new')")
	next := "SELECT id FROM q WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
	mustExec(t, ctx, a, "BEGIN", "EXPLAIN SELECT id FROM ("+next+") s")
	mustExec(t, ctx, b, "BEGIN")
	expectText(t, ctx, b, "WITH c AS ("+next+") SELECT id FROM c", "1")
	mustExec(t, ctx, b, "ROLLBACK")
	mustExec(t, ctx, a, "DECLARE c CURSOR FOR SELECT id FROM ("+next+") s")
	expectText(t, ctx, a, "FETCH ALL FROM c", "1")
	mustExec(t, ctx, b, "BEGIN")
	expectText(t, ctx, b, "WITH c AS ("+next+") SELECT id FROM c", "2")
	mustExec(t, ctx, b, "ROLLBACK")
	mustExec(t, ctx, a, "ROLLBACK", "BEGIN")
	var out bytes.Buffer
	if _, err := a.PgConn().CopyTo(ctx, &out, "COPY (SELECT id FROM ("+next+") s) TO STDOUT"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\n" {
		t.Fatalf("COPY returned %q, want \"1\\n\"", out.String())
	}
	mustExec(t, ctx, b, "BEGIN")
	expectText(t, ctx, b, "SELECT id FROM ("+next+") s", "2")
	mustExec(t, ctx, b, "ROLLBACK")
	mustExec(t, ctx, a, "ROLLBACK")
}

// isoCorrelatedSubqueryLocks: a locking block reading the enclosing
// query's columns (EXISTS, a scalar subquery, LATERAL) locks the rows it
// returns for the enclosing rows, which another block's SKIP LOCKED then
// skips.
func isoCorrelatedSubqueryLocks(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	mustExec(t, ctx, a, "CREATE TABLE q (id int PRIMARY KEY, ref int)", "CREATE TABLE q2 (id int PRIMARY KEY)",
		"INSERT INTO q VALUES (1, 10), (2, 20), (3, 30)", "INSERT INTO q2 VALUES (10), (20), (30), (40)")
	free := "SELECT id FROM q2 ORDER BY id FOR UPDATE SKIP LOCKED"
	for _, c := range []struct{ sql, want, free string }{
		{"SELECT id FROM q WHERE id < 3 AND EXISTS (SELECT 1 FROM q2 WHERE q2.id = q.ref FOR UPDATE) ORDER BY id", "1,2", "30,40"},
		{"SELECT (SELECT q2.id FROM q2 WHERE q2.id = q.ref FOR NO KEY UPDATE) FROM q WHERE id = 3", "30", "10,20,40"},
		{"SELECT s.id FROM q, LATERAL (SELECT * FROM q2 WHERE q2.id = q.ref + 10 FOR UPDATE) s ORDER BY 1", "20,30,40", "10"},
	} {
		mustExec(t, ctx, a, "BEGIN")
		expectText(t, ctx, a, c.sql, c.want)
		mustExec(t, ctx, b, "BEGIN")
		expectText(t, ctx, b, free, c.free)
		mustExec(t, ctx, b, "ROLLBACK")
		mustExec(t, ctx, a, "COMMIT")
	}
}
