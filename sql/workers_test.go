package sql

import (
	"fmt"
	"strings"
	"testing"
)

// workerViews are views whose dataflows have sharded nodes: a GROUP BY,
// a join then GROUP BY, DISTINCT, EXCEPT ALL and a top-k per group; and
// global aggregates of every kind that folds in parts on each worker.
var workerViews = map[string]string{
	"a": `SELECT 1 AS q, count(*) AS n, sum(v) AS s, min(b) AS lo, max(v) AS hi, avg(v) AS m, bool_and(v > 3) AS ba,
	        bit_or(v) AS bo, bit_xor(k) AS bx, count(DISTINCT b) AS cb, sum(DISTINCT v % 10) AS sd, stddev_pop(v) AS sp,
	        var_samp(k::numeric / 7) AS vn, sum(k::numeric / 4) AS sn FROM t
	      UNION ALL SELECT 2, count(w), sum(w), min(w::text), max(k), avg(k), bool_or(w > 15), bit_and(w), bit_or(k),
	        count(DISTINCT w), sum(DISTINCT w), stddev_samp(k), var_pop(w::numeric / 3), avg(w::numeric / 8) FROM u
	      UNION ALL SELECT 3, count(*), sum(k), max(b), min(v), avg(k), bool_or(b = 'x3'), bit_and(k), bit_xor(v),
	        count(DISTINCT v), sum(DISTINCT k % 3), var_pop(v), stddev_samp(v::numeric), sum(v::numeric / 3) FROM t WHERE v < 500`,
	"g": "SELECT k % 97 AS g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(b) AS hi FROM t GROUP BY k % 97",
	"j": "SELECT t.k % 13 AS g, count(*) AS n, sum(u.w) AS s FROM t JOIN u ON t.k = u.k GROUP BY t.k % 13",
	"d": "SELECT DISTINCT v % 50 AS v FROM t",
	"e": "SELECT v % 20 AS v FROM t EXCEPT ALL SELECT w % 20 FROM u",
	"k": "SELECT g * 1000 + v AS gv, g, v FROM (SELECT k % 7 AS g, v, row_number() OVER (PARTITION BY k % 7 ORDER BY v DESC, k) AS r FROM t) x WHERE r <= 2",
}

// TestViewsAcrossWorkerCounts checks that views maintained on 2 workers,
// in Steps large enough to run the shards concurrently, equal their
// queries run ad hoc, and still do after restarts on 1 and then 4
// workers (from a checkpoint, and from the input log without one), with
// writes in between: the state a restart restores is keyed by key, not
// by worker.
func TestViewsAcrossWorkerCounts(t *testing.T) {
	t.Setenv("EDDY_WORKERS", "")
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{Workers: 2}}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	for _, q := range []string{
		"CREATE TABLE t (k int, v int, b text)",
		"CREATE TABLE u (k int, w int)",
	} {
		mustRun(t, te, q)
	}
	for name, q := range workerViews {
		mustRun(t, te, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, q))
	}
	for _, mv := range te.e.views {
		if w := mv.df.Workers(); w != 2 {
			t.Fatalf("view %s runs on %d workers, want 2", mv.obj.Name, w)
		}
	}
	write := func(from, to int) {
		mustRun(t, te, fmt.Sprintf("INSERT INTO t SELECT i, (i * 7919) %% 1000, 'x' || (i %% 31) FROM generate_series(%d, %d) i", from, to))
		mustRun(t, te, fmt.Sprintf("INSERT INTO u SELECT i, i %% 17 FROM generate_series(%d, %d, 3) i", from, to))
		mustRun(t, te, fmt.Sprintf("DELETE FROM t WHERE k %% 11 = 0 AND k BETWEEN %d AND %d", from, to))
		mustRun(t, te, fmt.Sprintf("UPDATE u SET w = w + 1 WHERE k %% 5 = 0 AND k BETWEEN %d AND %d", from, to))
	}
	write(1, 3000)
	checkWorkerViews(t, te, "on 2 workers")
	te.opts.Workers = 1
	te.restart()
	checkWorkerViews(t, te, "restarted on 1 worker")
	write(2001, 5000)
	checkWorkerViews(t, te, "written on 1 worker")
	if err := te.e.CloseWithoutCheckpoint(); err != nil {
		t.Fatal(err)
	}
	te.opts.Workers = 4
	te.open()
	checkWorkerViews(t, te, "replayed on 4 workers")
	write(4001, 7000)
	checkWorkerViews(t, te, "written on 4 workers")
}

// checkWorkerViews compares every view with its query run ad hoc.
func checkWorkerViews(t *testing.T, te *testEngine, when string) {
	t.Helper()
	for name, q := range workerViews {
		got := te.run(fmt.Sprintf("SELECT * FROM %s ORDER BY 1", name))
		want := te.run(fmt.Sprintf("SELECT * FROM (%s) q ORDER BY 1", q))
		if got != want || strings.Contains(got, "ERROR") {
			t.Fatalf("%s: view %s:\n%s\nits query:\n%s", when, name, got, want)
		}
		if strings.Count(got, "\n") < 3 {
			t.Fatalf("%s: view %s is nearly empty:\n%s", when, name, got)
		}
	}
}
