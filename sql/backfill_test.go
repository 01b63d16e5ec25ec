package sql

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestBackfillConcurrent holds a CREATE MATERIALIZED VIEW in the middle of
// its backfill (outside the engine lock) and meanwhile, from another
// session: eddy_backfills lists it; DROP, ALTER and RENAME of its input
// fail with 55006; its name is taken (42P07) but not yet readable
// (42P01); inserts, updates and deletes to its inputs commit. Released,
// the view equals its query recomputed, also after a restart. With a tail
// bound of one byte. (The joins read t from its index, a shared
// arrangement, which the backfill serves from the rows fed so far: a
// self-join over the whole snapshot would count pairs twice.) the writes overflow the tail and the install
// backfills again under the lock, with the same result; with every
// collection spilled (EDDY_SPILL_ALL) the snapshots read a Pebble snapshot.
func TestBackfillConcurrent(t *testing.T) {
	for _, tc := range []struct {
		tail  int64
		spill bool
	}{{backfillTailBytes, false}, {1, false}, {backfillTailBytes, true}} {
		t.Run(fmt.Sprintf("tail=%d,spill=%v", tc.tail, tc.spill), func(t *testing.T) { testBackfillConcurrent(t, tc.tail, tc.spill) })
	}
}

const backfillTestQuery = "SELECT t.g, u.name, count(*) AS n, sum(t.x) AS total FROM t JOIN u ON t.g = u.g GROUP BY t.g, u.name"

func testBackfillConcurrent(t *testing.T, tail int64, spill bool) {
	defer func(chunk int, tail int64) { backfillChunk, backfillTailBytes, backfillStepped = chunk, tail, nil }(backfillChunk, backfillTailBytes)
	backfillChunk, backfillTailBytes = 7, tail
	te := newTestEngine(t)
	te.e.spill.all = spill
	runAll(t, te, `CREATE TABLE t (id int PRIMARY KEY, g int, x int);
CREATE TABLE u (g int PRIMARY KEY, name text);
CREATE INDEX t_g ON t (g);
INSERT INTO t SELECT i, i % 5, i FROM generate_series(1, 100) i;
INSERT INTO u SELECT i, 'n' || i FROM generate_series(0, 3) i`)
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	backfillStepped = func() { once.Do(func() { close(reached); <-release }) }
	done := make(chan string, 1)
	go func() { done <- te.run("CREATE MATERIALIZED VIEW v AS " + backfillTestQuery) }()
	<-reached
	if spilled := te.e.colls[te.e.cat.lookup("", "t").ID].Spilled(); spilled != spill {
		t.Fatalf("t spilled: %v, want %v", spilled, spill)
	}
	other := &testEngine{t: t, e: te.e, s: te.e.NewSession(map[string]string{"user": "eddy"})}
	if got := other.run("SELECT viewname, inputs, rows_done, phase FROM eddy_catalog.eddy_backfills"); !strings.Contains(got, "v | public.t, public.u | 7 | snapshot") {
		t.Errorf("eddy_backfills mid-backfill:\n%s", got)
	}
	for stmt, code := range map[string]string{"DROP TABLE t": "55006", "ALTER TABLE u ADD COLUMN y int": "55006",
		"ALTER TABLE t RENAME TO t2": "55006", "CREATE TABLE v (x int)": "42P07",
		"CREATE MATERIALIZED VIEW v AS SELECT 1": "42P07", "SELECT * FROM v": "42P01"} {
		if got := other.run(stmt); !strings.Contains(got, code) {
			t.Errorf("%s during the backfill: %s, want %s", stmt, got, code)
		}
	}
	runAll(t, other, `INSERT INTO t VALUES (101, 1, 1000), (102, 4, 7);
UPDATE t SET x = x * 2 WHERE id < 20;
DELETE FROM t WHERE id BETWEEN 50 AND 60;
INSERT INTO u VALUES (4, 'four');
UPDATE u SET name = 'zero' WHERE g = 0`)
	close(release)
	if got := <-done; got != "CREATE MATERIALIZED VIEW\n" {
		t.Fatalf("CREATE MATERIALIZED VIEW: %s", got)
	}
	backfillSameAsQuery(t, te)
	if got := te.run("SELECT count(*) FROM eddy_catalog.eddy_backfills"); got != "count\n0\nSELECT 1\n" {
		t.Errorf("eddy_backfills after the backfill:\n%s", got)
	}
	runAll(t, te, "DELETE FROM t WHERE id > 90; INSERT INTO u VALUES (5, 'five')")
	backfillSameAsQuery(t, te)
	te.restart()
	backfillSameAsQuery(t, te)
	const self = "SELECT a.g, count(*) AS n FROM t a JOIN t b ON a.g = b.g GROUP BY a.g"
	runAll(t, te, "CREATE MATERIALIZED VIEW s AS "+self)
	if view, query := te.run("SELECT * FROM s ORDER BY 1"), te.run(self+" ORDER BY 1"); view != query {
		t.Fatalf("self-join view:\n%s\nquery:\n%s", view, query)
	}
}

// backfillSameAsQuery fails unless v holds what its query computes.
func backfillSameAsQuery(t *testing.T, te *testEngine) {
	t.Helper()
	view, query := te.run("SELECT * FROM v ORDER BY 1, 2"), te.run(backfillTestQuery+" ORDER BY 1, 2")
	if view != query || strings.Contains(view, "ERROR") {
		t.Fatalf("view:\n%s\nquery:\n%s", view, query)
	}
}
