package sql

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeyOrderAlterDurable: a view whose stored plan reads a table's own
// key order (a shared grouped Reduce, a shared join) keeps running it
// after DROP CONSTRAINT of the primary key and ADD PRIMARY KEY leave the
// order its lookups read intact, also across a crash and a restart, and
// equals the query recomputed; a key change that would reorder the rows
// under such a view is refused (0A000), not answered wrongly.
func TestKeyOrderAlterDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE li (o int, n int, q int, PRIMARY KEY (o, n));
INSERT INTO li VALUES (1, 1, 5), (1, 2, 7), (2, 1, 1), (3, 1, 9);
CREATE MATERIALIZED VIEW per_o AS SELECT o, sum(q) AS s, count(*) AS c FROM li GROUP BY o;
CREATE TABLE ja (a int, b int); CREATE TABLE jb (a int, c text);
INSERT INTO ja VALUES (1, 10), (2, 20); INSERT INTO jb VALUES (1, 'x'), (2, 'y');
CREATE MATERIALIZED VIEW jv AS SELECT ja.b, jb.c FROM ja JOIN jb ON ja.a = jb.a`)
	if plan := te.e.cat.lookup("", "per_o").Plan; !strings.Contains(plan, "shared=") {
		t.Fatalf("per_o does not read li's key order:\n%s", plan)
	}
	if plan := te.e.cat.lookup("", "jv").Plan; !strings.Contains(plan, "shared=") {
		t.Fatalf("jv does not read ja's own rows:\n%s", plan)
	}
	te.mustRun(`ALTER TABLE li DROP CONSTRAINT li_pkey; INSERT INTO li VALUES (1, 3, 100), (4, 1, 4)`)
	te.mustRun(`ALTER TABLE li ADD PRIMARY KEY (o, n); DELETE FROM li WHERE o = 2`)
	if out := te.run(`ALTER TABLE ja ADD PRIMARY KEY (b)`); !strings.Contains(out, "ERROR 0A000") {
		t.Fatalf("a key that reorders a shared join's rows: %q", out)
	}
	te.mustRun(`ALTER TABLE ja ADD PRIMARY KEY (a, b); INSERT INTO ja VALUES (3, 30); INSERT INTO jb VALUES (3, 'z'), (1, 'x2')`)
	for i, reopen := range []func(){te.crash, te.restart} {
		reopen()
		te.mustRun(fmt.Sprintf(`INSERT INTO li VALUES (5, %d, 50); UPDATE li SET q = q + 1 WHERE o = 1; INSERT INTO ja VALUES (2, %d)`, i+1, 21+i))
		if out := te.run(`INSERT INTO li VALUES (5, 1, 0)`); !strings.Contains(out, "ERROR 23505") {
			t.Fatalf("li's new key after reopening: %q", out)
		}
		view := te.mustRun(`SELECT * FROM per_o ORDER BY o`)
		query := te.mustRun(`SELECT o, sum(q) AS s, count(*) AS c FROM li GROUP BY o ORDER BY o`)
		if view != query || !strings.Contains(view, fmt.Sprintf("5 | %d | %d", 50*(i+1), i+1)) {
			t.Fatalf("per_o after reopening:\n%s\nrecomputed:\n%s", view, query)
		}
		view = te.mustRun(`SELECT * FROM jv ORDER BY b, c`)
		query = te.mustRun(`SELECT ja.b, jb.c FROM ja JOIN jb ON ja.a = jb.a ORDER BY b, c`)
		if view != query || !strings.Contains(view, "21 | y") {
			t.Fatalf("jv after reopening:\n%s\nrecomputed:\n%s", view, query)
		}
	}
}

// TestDropKeyUnderPermutedSharedReduce: dropping a primary key whose
// order a view reads by a column that does not lead the whole row (PK
// (n, o), GROUP BY n) is refused with 0A000: the rows stored by the whole
// row would no longer serve its lookups (writes used to fail inside
// storage after such a drop).
func TestDropKeyUnderPermutedSharedReduce(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE lp (o int, n int, q int, PRIMARY KEY (n, o));
INSERT INTO lp VALUES (1, 1, 5), (1, 2, 7), (2, 1, 1);
CREATE MATERIALIZED VIEW lpv AS SELECT n, sum(q) AS s FROM lp GROUP BY n`)
	if out := te.run(`ALTER TABLE lp DROP CONSTRAINT lp_pkey`); !strings.Contains(out, "ERROR 0A000") {
		t.Fatalf("drop of a key a shared Reduce reads: %q", out)
	}
	te.mustRun(`INSERT INTO lp VALUES (9, 2, 100); DELETE FROM lp WHERE o = 1`)
	if out := te.mustRun(`SELECT * FROM lpv ORDER BY n`); out != "n | s\n1 | 1\n2 | 100\nSELECT 2\n" {
		t.Fatalf("lpv:\n%s", out)
	}
}
