package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// TestDDLBlockIdle opens a block with DDL in one session and leaves it
// idle: another session keeps reading and writing other tables at once
// (within a second, where it used to wait for the block's end), and does
// not see the block's new table before COMMIT. A commit that changes a
// table the block's new view reads makes the block's next statement fail
// with 40001. After commits interleaved with a committed block, a kill -9
// and restart, the block's view counts every row once.
func TestDDLBlockIdle(t *testing.T) {
	s := harness.StartEddy(t, harness.WithEnv("EDDY_CHECKPOINT_COMMITS=1000000"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, b := connect(t, ctx, s.DSN()), connect(t, ctx, s.DSN())
	mustExec(t, ctx, a, "CREATE TABLE other (x int)", "INSERT INTO other VALUES (1)")
	mustExec(t, ctx, a, "BEGIN", "CREATE TABLE fresh (y int)", "INSERT INTO fresh VALUES (1)")
	quick, stop := context.WithTimeout(ctx, time.Second)
	mustExec(t, quick, b, "INSERT INTO other VALUES (2)", "UPDATE other SET x = x * 10")
	expectText(t, quick, b, "SELECT sum(x) FROM other", "30")
	expectText(t, quick, b, "SELECT count(*) FROM pg_class WHERE relname = 'fresh'", "0")
	mustExec(t, quick, b, "BEGIN", "INSERT INTO other VALUES (3)", "COMMIT")
	stop()
	// The block's view reads the commits made while it was idle, once.
	mustExec(t, ctx, a, "CREATE MATERIALIZED VIEW other_n AS SELECT count(*) AS n, sum(x) AS s FROM other", "COMMIT")
	expectText(t, ctx, b, "SELECT count(*) FROM pg_class WHERE relname = 'fresh'", "1")
	expectText(t, ctx, b, "SELECT s FROM other_n", "33")

	// A commit to a table the block's new view reads outdates the block.
	mustExec(t, ctx, a, "BEGIN", "CREATE MATERIALIZED VIEW other_max AS SELECT max(x) AS m FROM other")
	mustExec(t, ctx, b, "INSERT INTO other VALUES (100)")
	expectState(t, ctx, a, "SELECT 1", "40001")
	expectState(t, ctx, a, "COMMIT", "")
	expectText(t, ctx, b, "SELECT count(*) FROM pg_class WHERE relname = 'other_max'", "0")

	// Interleaved commits survive a crash with the block's DDL once.
	mustExec(t, ctx, a, "BEGIN", "CREATE TABLE fresh2 (y int)")
	mustExec(t, ctx, b, "INSERT INTO other VALUES (1000)")
	mustExec(t, ctx, a, "CREATE MATERIALIZED VIEW other_all AS SELECT sum(x) AS s FROM other", "COMMIT")
	mustExec(t, ctx, b, "INSERT INTO other VALUES (10000)")
	s.Kill()
	s.Restart()
	c := connect(t, ctx, s.DSN())
	expectText(t, ctx, c, "SELECT s FROM other_all", "11133")
	expectText(t, ctx, c, "SELECT s FROM other_n", "11133")
	expectText(t, ctx, c, "SELECT sum(x) FROM other", "11133")
}

// TestDDLBlockIdleSource leaves a block with DDL idle while a datagen
// source feeds a table and a view: the source goes on (where it used to
// wait for the block's end), checkpoints run meanwhile, and after the
// block's COMMIT, a kill -9 and a restart, the table and its view hold
// every generated row exactly once and the block's DDL is there.
func TestDDLBlockIdleSource(t *testing.T) {
	s := harness.StartEddy(t, harness.WithEnv("EDDY_CHECKPOINT_COMMITS=3"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, b := connect(t, ctx, s.DSN()), connect(t, ctx, s.DSN())
	mustExec(t, ctx, a, "CREATE TABLE g (id int PRIMARY KEY, v int) WITH (connector = 'datagen', "+
		"fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '4000', datagen.rows.per.second = '500')",
		"CREATE MATERIALIZED VIEW gn AS SELECT count(*) AS n FROM g")
	mustExec(t, ctx, a, "BEGIN", "CREATE TABLE fresh (y int)", "INSERT INTO fresh VALUES (1)")
	before := queryText(t, ctx, b, "SELECT n FROM gn")
	for deadline := time.Now().Add(3 * time.Second); queryText(t, ctx, b, "SELECT n FROM gn") == before; {
		if time.Now().After(deadline) {
			t.Fatalf("the source stays at %s rows while a block with DDL is idle", before)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustExec(t, ctx, a, "CREATE MATERIALIZED VIEW fresh_n AS SELECT count(*) AS n FROM fresh", "COMMIT")
	s.Kill()
	s.Restart()
	c := connect(t, ctx, s.DSN())
	for deadline := time.Now().Add(time.Minute); queryText(t, ctx, c, "SELECT count(*) FROM g") != "4000"; {
		if time.Now().After(deadline) {
			t.Fatal("the source did not finish after the restart")
		}
		time.Sleep(100 * time.Millisecond)
	}
	expectText(t, ctx, c, "SELECT n FROM gn", "4000")
	expectText(t, ctx, c, "SELECT count(DISTINCT id) FROM g", "4000")
	expectText(t, ctx, c, "SELECT n FROM fresh_n", "1")
}
