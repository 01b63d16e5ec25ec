package sql

import (
	"strings"
	"testing"
)

// TestAlterAfterData checks that ALTER TABLE ADD COLUMN on the tables of a
// join view created before its data is allowed once the data is in (the
// view's plan is checked with the sizes it was planned with, not today's,
// which could reorder its joins), one table after another (the stored plan
// keeps the first table's old column list), also of a table whose every
// column a join reads, and that the views stay equal to their queries.
func TestAlterAfterData(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE a (id int PRIMARY KEY, x int, pad text);
CREATE TABLE b (id int PRIMARY KEY, a_id int, y int, pad text);
CREATE TABLE c (id int PRIMARY KEY, b_id int, pad text);
CREATE MATERIALIZED VIEW v AS SELECT a.x, b.y, c.id FROM a JOIN b ON b.a_id = a.id JOIN c ON c.b_id = b.id;
CREATE TABLE d (id int PRIMARY KEY, v int);
CREATE MATERIALIZED VIEW dv AS SELECT d.id, d.v, a.x FROM d JOIN a ON a.id = d.v`)
	te.mustRun(`INSERT INTO a SELECT g, g, 'p' FROM generate_series(1, 300) g;
INSERT INTO b SELECT g, g % 300 + 1, g, 'q' FROM generate_series(1, 2000) g;
INSERT INTO c SELECT g, g % 2000 + 1, 'r' FROM generate_series(1, 10) g`)
	if len(te.e.cat.lookup("", "v").PlanRows) != 0 {
		t.Fatalf("a view planned over empty tables recorded sizes: %v", te.e.cat.lookup("", "v").PlanRows)
	}
	te.mustRun("INSERT INTO d SELECT g, g % 300 + 1 FROM generate_series(1, 50) g")
	// d's every column is read by dv's join: still allowed (isolateSources).
	for _, stmt := range []string{"ALTER TABLE a ADD COLUMN z int", "ALTER TABLE c ADD COLUMN w int", "ALTER TABLE b ADD COLUMN k int", "ALTER TABLE d ADD COLUMN u int"} {
		if out := te.run(stmt); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", stmt, out)
		}
	}
	te.mustRun("INSERT INTO c VALUES (100, 7, 'r', 1); UPDATE b SET y = -y WHERE id <= 7; INSERT INTO d VALUES (99, 3, 1); DELETE FROM d WHERE id = 1")
	te.restart()
	const q = "SELECT a.x, b.y, c.id FROM a JOIN b ON b.a_id = a.id JOIN c ON c.b_id = b.id"
	if got, want := sortedLines(te.mustRun("SELECT * FROM v")), sortedLines(te.mustRun(q)); got != want {
		t.Fatalf("view after ALTERs and a restart:\n%s\nwant:\n%s", got, want)
	}
	const dq = "SELECT d.id, d.v, a.x FROM d JOIN a ON a.id = d.v"
	if got, want := sortedLines(te.mustRun("SELECT * FROM dv")), sortedLines(te.mustRun(dq)); got != want {
		t.Fatalf("dv after ALTERs and a restart:\n%s\nwant:\n%s", got, want)
	}
	te.mustRun("CREATE MATERIALIZED VIEW w AS " + q)
	if len(te.e.cat.lookup("", "w").PlanRows) == 0 {
		t.Fatal("a view planned over data recorded no sizes")
	}
}
