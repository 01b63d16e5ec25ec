package sql

import (
	"testing"
)

// TestDirectPointReads checks which queries the direct point path
// (pointplan.go) answers and that each answers exactly as the same query
// through a built dataflow: the same rows in the same order, the same
// tag, the same error.
func TestDirectPointReads(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE t (id int PRIMARY KEY, g int NOT NULL, x int, s text);
INSERT INTO t SELECT i, i % 10, i % 7, 'v' || i FROM generate_series(1, 200) i;
CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(x) AS total FROM t GROUP BY g;
CREATE MATERIALIZED VIEW dup AS SELECT x, g FROM t;
CREATE INDEX t_s ON t (s)`)
	for _, c := range []struct {
		q      string
		direct bool
	}{
		{"SELECT n, total FROM agg WHERE g = 3", true},
		{"SELECT total, n, g FROM agg WHERE g IN (3, 4, 4, 11)", true},
		{"SELECT g FROM dup WHERE x = 2", true},                         // a multiset's repeats
		{"SELECT g, count(*) FROM dup WHERE x = 2 GROUP BY g", false},   // a Reduce after the read
		{"SELECT g + 1, x * 2 FROM dup WHERE x = 2 AND g > 3", true},    // maps and a residual filter
		{"SELECT g FROM dup WHERE x = 2 ORDER BY g DESC LIMIT 3", true}, // sorted and windowed after
		{"SELECT x FROM dup WHERE x = 2 OFFSET 5", true},
		{"SELECT s, x FROM t WHERE id BETWEEN 5 AND 9", true},
		{"SELECT id FROM t WHERE s = 'v17'", true}, // through an index
		{"SELECT 10 / (x - x) FROM t WHERE id = 7", true},
		{"SELECT id FROM t WHERE g = 3", false},             // no access path
		{"SELECT id FROM t WHERE id = 3 FOR UPDATE", false}, // row locks
		{"SELECT * FROM agg a JOIN agg b USING (g) WHERE a.g = 2", false},
	} {
		before := directPointCount.Load()
		fast := te.run(c.q)
		if got := directPointCount.Load() > before; got != c.direct {
			t.Errorf("%s: direct path %v, want %v", c.q, got, c.direct)
		}
		disableDirectPoints = true
		built := te.run(c.q)
		disableDirectPoints = false
		if fast != built {
			t.Errorf("%s: direct\n%s\nthrough a dataflow\n%s", c.q, fast, built)
		}
	}
}

// TestDirectPointReadsInBlock checks that a transaction that wrote to the
// collection reads its own writes (through the general path) and one
// that did not still takes the direct path.
func TestDirectPointReadsInBlock(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE kv (k int PRIMARY KEY, v text);
INSERT INTO kv VALUES (1, 'one'), (2, 'two');
CREATE TABLE other (k int PRIMARY KEY)`)
	te.mustRun("BEGIN")
	te.mustRun("INSERT INTO other VALUES (1)")
	before := directPointCount.Load()
	if got, want := te.run("SELECT v FROM kv WHERE k = 2"), "v\ntwo\nSELECT 1\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if directPointCount.Load() == before {
		t.Fatalf("a block that did not write kv did not read it directly")
	}
	te.mustRun("UPDATE kv SET v = 'deux' WHERE k = 2")
	before = directPointCount.Load()
	if got, want := te.run("SELECT v FROM kv WHERE k = 2"), "v\ndeux\nSELECT 1\n"; got != want {
		t.Fatalf("own write: got\n%s\nwant\n%s", got, want)
	}
	if directPointCount.Load() != before {
		t.Fatalf("a block that wrote kv read it directly")
	}
	te.mustRun("ROLLBACK")
	if got, want := te.run("SELECT v FROM kv WHERE k = 2"), "v\ntwo\nSELECT 1\n"; got != want {
		t.Fatalf("after ROLLBACK: got\n%s\nwant\n%s", got, want)
	}
}
