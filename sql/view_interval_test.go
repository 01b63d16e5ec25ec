package sql

import "testing"

// TestViewIntervalStyleRestart: interval constants a view read in
// IntervalStyle sql_standard keep that reading after a restart (which
// starts every session in the postgres style) and after ALTERs that
// rewrite and plan the view again, and the view stays equal to its query written
// with explicit signs.
func TestViewIntervalStyleRestart(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE t (k int, i interval)`)
	te.mustRun(`INSERT INTO t VALUES (1, '1 day'), (2, '-1 day 2 hours')`)
	te.mustRun(`SET IntervalStyle = sql_standard`)
	te.mustRun(`CREATE MATERIALIZED VIEW mv AS SELECT k, i + interval '-1 2:03:04' AS j, i = interval '-1 2' day to hour AS eq FROM t`)
	te.mustRun(`CREATE VIEW v AS SELECT k, i + '-1 2:03:04' AS j FROM t`)
	want := `SELECT k, i + interval '-1 day -2:03:04' AS j, i = interval '-1 day -2 hours' AS eq FROM t ORDER BY k`
	check := func(step string) {
		t.Helper()
		if got, exp := te.mustRun(`SELECT * FROM mv ORDER BY k`), te.mustRun(want); got != exp {
			t.Fatalf("%s: view\n%s\nwant\n%s", step, got, exp)
		}
		if got, exp := te.mustRun(`SELECT * FROM v ORDER BY k`), te.mustRun(`SELECT k, j FROM (`+want+`) x`); got != exp {
			t.Fatalf("%s: plain view\n%s\nwant\n%s", step, got, exp)
		}
	}
	check("created")
	te.restart()
	te.mustRun(`INSERT INTO t VALUES (3, '-1 day -2 hours')`)
	check("restarted")
	te.mustRun(`ALTER TABLE t RENAME COLUMN k TO kk`)
	te.mustRun(`ALTER TABLE t RENAME COLUMN kk TO k`)
	te.mustRun(`DELETE FROM t WHERE k = 1`)
	check("altered")
	te.restart()
	check("restarted twice")
}
