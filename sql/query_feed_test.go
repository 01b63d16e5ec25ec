package sql

import (
	"strings"
	"testing"
)

// feedQueries are queries of every operator kind over tables larger than
// the (lowered) feed chunk, so their inputs are fed in many Steps.
var feedQueries = []string{
	"SELECT count(*), sum(x), min(s), max(s) FROM t",
	"SELECT x % 7, count(*), sum(y) FROM t GROUP BY 1 ORDER BY 1",
	"SELECT DISTINCT s FROM t ORDER BY 1 LIMIT 20",
	"SELECT * FROM t WHERE x % 1000 = 3",
	"SELECT t.x, u.z FROM t JOIN u ON t.y = u.k WHERE t.x + 0 < 300",
	"SELECT count(*) FROM t JOIN u ON t.y = u.k",
	"SELECT u.k, count(t.x) FROM u LEFT JOIN t ON t.y = u.k AND t.x < 50 GROUP BY 1 ORDER BY 1 LIMIT 30",
	"SELECT x, s FROM t ORDER BY s DESC, x LIMIT 15 OFFSET 5",
	"SELECT y FROM t EXCEPT SELECT k FROM u ORDER BY 1",
	"SELECT x, rank() OVER (PARTITION BY x % 3 ORDER BY y DESC) FROM t WHERE x + 0 < 40 ORDER BY 1",
	"SELECT count(*) FROM (SELECT y FROM t UNION ALL SELECT k FROM u) q",
	"SELECT * FROM u WHERE k NOT IN (SELECT y FROM t) ORDER BY 1",
	"SELECT y, s FROM t ORDER BY y % 10, s DESC LIMIT 50",
	"SELECT y FROM t ORDER BY y % 10 LIMIT 1200 OFFSET 10",
	"SELECT t.x, u.z FROM t JOIN u ON t.y = u.k ORDER BY u.z, t.x DESC LIMIT 7",
	"SELECT x FROM t ORDER BY x LIMIT 0",
	"SELECT t.x, w.n FROM t JOIN w ON t.y = w.m WHERE w.n % 3 = 0",
	"SELECT w.m, count(*) FROM w JOIN t ON t.y = w.m GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5",
	"SELECT count(*), sum(t.x) FROM t JOIN w ON t.y = w.m JOIN u ON u.k = w.m",
	"SELECT t.x, sm.name FROM t JOIN sm ON t.y = sm.v WHERE t.x % 10 = 1",
}

// TestQueryFeedChunked runs feedQueries with their inputs fed from O(1)
// snapshots in chunks and whole, outside and inside a block with pending
// writes (deletes too) and at REPEATABLE READ with a concurrent commit,
// and checks the answers are equal.
func TestQueryFeedChunked(t *testing.T) {
	defer func(n int) { feedChunk = n }(feedChunk)
	feedChunk = 700
	te := newTestEngine(t)
	te.run("CREATE TABLE t (x int, y int, s text)")
	te.run("CREATE TABLE u (k int PRIMARY KEY, z text)")
	te.run("INSERT INTO t SELECT i, i % 1500, 'r' || (i % 4321) FROM generate_series(1, 9000) AS g(i)")
	te.run("INSERT INTO u SELECT i, 'u' || i FROM generate_series(1, 2000) AS g(i)")
	te.run("CREATE TABLE sm (v int, name text)")
	te.run("INSERT INTO sm SELECT i, 'n' || i FROM generate_series(0, 99) AS g(i)")
	te.run("CREATE TABLE w (m int, n int)")
	te.run("INSERT INTO w SELECT i % 1200, i FROM generate_series(1, 1500) AS g(i)")
	probes := probeJoinCount.Load()
	compare := func(where string) {
		t.Helper()
		for _, q := range feedQueries {
			before := snapshotFeedCount.Load()
			chunked := te.run(q)
			if snapshotFeedCount.Load() == before {
				t.Errorf("%s: %s: no input read in chunks", where, q)
			}
			disableFeedSnapshots = true
			whole := te.run(q)
			disableFeedSnapshots = false
			if chunked != whole {
				t.Errorf("%s: %s:\nchunked:\n%s\nwhole:\n%s", where, q, chunked, whole)
			}
			if strings.Contains(chunked, "ERROR") {
				t.Errorf("%s: %s: %s", where, q, chunked)
			}
		}
	}
	compare("autocommit")
	te.run("BEGIN")
	te.run("DELETE FROM t WHERE x % 5 = 0")
	te.run("INSERT INTO t SELECT i, i % 1700, 'n' || i FROM generate_series(1, 3000) AS g(i)")
	te.run("DELETE FROM u WHERE k > 1900")
	compare("block with writes")
	te.run("ROLLBACK")
	te.run("BEGIN ISOLATION LEVEL REPEATABLE READ")
	te.run("SELECT 1 FROM u LIMIT 1")
	other := te.e.NewSession(map[string]string{"user": "eddy"})
	defer other.Close()
	mustSQL(t, other, "DELETE FROM t WHERE x < 4000")
	compare("repeatable read")
	te.run("COMMIT")
	if probeJoinCount.Load() == probes {
		t.Error("no join was probe-only")
	}
}

// TestDMLScanSnapshot checks that UPDATE and DELETE filtering a table
// they cannot read by key (read from an O(1) snapshot, filtered as it is
// scanned) change exactly the rows of the whole-copy path, with and
// without the block's earlier writes, and that an error of the filter
// fails the statement.
func TestDMLScanSnapshot(t *testing.T) {
	te := newTestEngine(t)
	te.run("CREATE TABLE t (x int, s text)")
	te.run("INSERT INTO t SELECT i, 'r' || i FROM generate_series(1, 5000) AS g(i)")
	script := []string{
		"UPDATE t SET s = s || '!' WHERE x % 100 = 7 RETURNING x, s",
		"DELETE FROM t WHERE s LIKE '%!' AND x > 2000 RETURNING *",
		"DELETE FROM t WHERE x % 1000 = 1 RETURNING *",
		"SELECT count(*), sum(x), max(s) FROM t",
	}
	run := func() string {
		var b strings.Builder
		for _, autocommit := range []bool{true, false} {
			if !autocommit {
				te.run("BEGIN")
				te.run("INSERT INTO t VALUES (7, 'pending')")
			}
			for _, q := range script {
				b.WriteString(te.run(q))
			}
			if !autocommit {
				te.run("ROLLBACK")
			}
		}
		b.WriteString(te.run("UPDATE t SET s = 'z' WHERE 1 / (x - 4999) > 0"))
		return b.String()
	}
	snap := run()
	te.run("TRUNCATE t")
	te.run("INSERT INTO t SELECT i, 'r' || i FROM generate_series(1, 5000) AS g(i)")
	disableFeedSnapshots = true
	whole := run()
	disableFeedSnapshots = false
	if snap != whole || !strings.Contains(snap, "22012") {
		t.Errorf("snapshot scans:\n%.2000s\nwhole copies:\n%.2000s", snap, whole)
	}
}
