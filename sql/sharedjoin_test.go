package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOwnOrderSharedJoins checks joins that read a relation's own key
// order as their shared arrangement: a primary key (whole, as a prefix,
// and with the join's key pairs in another order than the key's columns),
// the leading columns of a table without a primary key, and a
// materialized view's leading columns; and joins that read an automatic
// index. Views over them are maintained
// through random writes, rollbacks, crashes and restarts, and after each
// step every view and the same query run ad hoc must equal the query run
// with private arrangements only.
func TestOwnOrderSharedJoins(t *testing.T) {
	rng := indexTestRand(t, 7)
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 5})
	te.mustRun(`CREATE TABLE o (k int PRIMARY KEY, c int, note text);
CREATE TABLE l (k int, n int, q int, PRIMARY KEY (k, n));
CREATE TABLE ps (p int, s int, v int, PRIMARY KEY (p, s));
CREATE TABLE m (a int, b int);
CREATE MATERIALIZED VIEW agg AS SELECT k, sum(q) AS total FROM l GROUP BY k`)
	queries := map[string]string{
		"v_pk":     "SELECT o.k, o.c, l.n, l.q FROM o JOIN l ON l.k = o.k",
		"v_swap":   "SELECT l.k, ps.v FROM l JOIN ps ON ps.s = l.q AND ps.p = l.n",
		"v_multi":  "SELECT m.a, m.b, o.note FROM o JOIN m ON m.a = o.c",
		"v_view":   "SELECT o.k, agg.total FROM o JOIN agg ON agg.k = o.c WHERE o.note <> 'z'",
		"v_semi":   "SELECT k, c FROM o WHERE k IN (SELECT k FROM l WHERE q > 2)",
		"v_exists": "SELECT k FROM o WHERE EXISTS (SELECT 1 FROM l WHERE l.k = o.k AND l.q < o.c)",
		// No arrangement serves these keys: an automatic index does.
		"v_auto":  "SELECT o.k, l.n FROM o JOIN l ON l.q = o.c",
		"v_auto2": "SELECT m.b, ps.v FROM m JOIN ps ON ps.v = m.b",
		// A self-join: the same source node is both the shared and the
		// private input (an ad hoc query must still read it).
		"v_self": "SELECT x.a, y.a AS ya FROM m x JOIN m y ON x.b = y.b",
	}
	for name, q := range queries {
		te.mustRun(fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, q))
	}
	for name := range queries {
		if plan := te.e.cat.lookup("", name).Plan; !strings.Contains(plan, "shared=") {
			t.Fatalf("view %s reads no shared arrangement:\n%s", name, plan)
		}
	}
	for step := range 200 {
		stmt := randomOwnOrderWrite(rng)
		te.randomStep(rng, stmt, 30)
		for name, q := range queries {
			view, adhoc := te.mustRun("SELECT * FROM "+name), te.mustRun(q)
			disableSharedJoins = true
			private := te.mustRun(q)
			disableSharedJoins = false
			if sortedLines(view) != sortedLines(private) || sortedLines(adhoc) != sortedLines(private) {
				t.Fatalf("step %d (%s): %s\nview:\n%s\nad hoc:\n%s\nprivate arrangements:\n%s", step, stmt, name, view, adhoc, private)
			}
		}
	}
}

// randomOwnOrderWrite returns a random write to the tables of
// TestOwnOrderSharedJoins.
func randomOwnOrderWrite(rng *rand.Rand) string {
	k, n, q := rng.IntN(8), rng.IntN(4), rng.IntN(5)
	switch rng.IntN(9) {
	case 0, 1:
		return fmt.Sprintf("INSERT INTO o VALUES (%d, %d, '%c')", k, rng.IntN(8), 'w'+rune(rng.IntN(4)))
	case 2, 3:
		return fmt.Sprintf("INSERT INTO l VALUES (%d, %d, %d), (%d, %d, %d)", k, n, q, k, n+4, rng.IntN(5))
	case 4:
		return fmt.Sprintf("INSERT INTO ps VALUES (%d, %d, %d)", n, q, rng.IntN(100))
	case 5:
		if rng.IntN(4) == 0 {
			return fmt.Sprintf("INSERT INTO m VALUES (NULL, %d)", q)
		}
		return fmt.Sprintf("INSERT INTO m VALUES (%d, %d), (%d, %d)", k, q, k, q)
	case 6:
		return fmt.Sprintf("UPDATE l SET q = %d WHERE k = %d", q, k)
	case 7:
		return fmt.Sprintf("UPDATE o SET c = %d WHERE k BETWEEN %d AND %d", rng.IntN(8), k, k+2)
	}
	tables := []string{"o WHERE k = %d", "l WHERE k = %d", "ps WHERE p = %d", "m WHERE a = %d"}
	return "DELETE FROM " + fmt.Sprintf(tables[rng.IntN(len(tables))], k%4)
}

// TestAutoIndexLifecycle checks that a view whose join no arrangement
// serves creates an automatic index and reads it, that a second view with
// that join key reuses it, that EXPLAIN announces it, and that it goes with
// the last view reading it (and survives a restart meanwhile).
func TestAutoIndexLifecycle(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE d (id int PRIMARY KEY, name text);
CREATE TABLE f (id int PRIMARY KEY, d_id int, amount int);
INSERT INTO d VALUES (1, 'a'), (2, 'b');
INSERT INTO f VALUES (10, 1, 5), (11, 1, 7), (12, 2, 1)`)
	const join = "SELECT d.name, f.amount FROM d JOIN f ON f.d_id = d.id"
	if out := te.mustRun("EXPLAIN (DATAFLOW) CREATE MATERIALIZED VIEW v1 AS " + join); !strings.Contains(out, "automatic index on f (d_id), shared") {
		t.Fatalf("EXPLAIN does not announce the automatic index:\n%s", out)
	}
	te.mustRun("CREATE MATERIALIZED VIEW v1 AS " + join)
	ix := te.e.cat.lookup("", "f_d_id_auto_idx")
	if ix == nil || ix.Index == nil || !ix.Index.Implicit {
		t.Fatalf("no automatic index f_d_id_auto_idx: %+v", ix)
	}
	if plan := te.e.cat.lookup("", "v1").Plan; !strings.Contains(plan, fmt.Sprintf("shared=right:%d", ix.ID)) && !strings.Contains(plan, fmt.Sprintf("shared=left:%d", ix.ID)) {
		t.Fatalf("v1 does not read the automatic index %d:\n%s", ix.ID, plan)
	}
	te.mustRun("CREATE MATERIALIZED VIEW v2 AS SELECT f.id, d.name FROM f JOIN d ON d.id = f.d_id WHERE f.amount > 0")
	if n := strings.Count(te.mustRun("SELECT indexname FROM pg_indexes WHERE tablename = 'f'"), "auto"); n != 1 {
		t.Fatalf("%d automatic indexes on f, want 1 (shared by both views)", n)
	}
	te.restart()
	te.mustRun("INSERT INTO f VALUES (13, 2, 4); DELETE FROM f WHERE id = 10")
	if got, want := sortedLines(te.mustRun("SELECT * FROM v1")), sortedLines(te.mustRun(join)); got != want {
		t.Fatalf("v1 after a restart:\n%s\nwant:\n%s", got, want)
	}
	te.mustRun("DROP MATERIALIZED VIEW v1")
	if te.e.cat.lookup("", "f_d_id_auto_idx") == nil {
		t.Fatal("the automatic index went while v2 still reads it")
	}
	te.mustRun("DROP MATERIALIZED VIEW v2")
	if te.e.cat.lookup("", "f_d_id_auto_idx") != nil {
		t.Fatal("the automatic index outlived the last view reading it")
	}
}
