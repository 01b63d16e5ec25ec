package sql

import "testing"

// TestLookupCacheAcrossViews: two views that look up the same keys of one
// table's index in one commit share the lookups (the second is served
// from the commit's cache), and every view, including one that reads
// another view by an index of its contents, equals its query run ad hoc
// after a later commit changes rows the first one's lookups found.
func TestLookupCacheAcrossViews(t *testing.T) {
	te := newTestEngine(t)
	te.run(`CREATE TABLE cust (id int PRIMARY KEY, name text);
		CREATE TABLE ord (id int PRIMARY KEY, cust int, amount int);
		CREATE INDEX ord_cust ON ord (cust);
		INSERT INTO ord VALUES (10, 1, 5), (11, 1, 7), (12, 2, 1), (13, NULL, 4), (14, 9, 2);
		CREATE TABLE tag (name text, label text);`)
	views := map[string]string{
		"per_cust": "SELECT c.name, o.amount FROM cust c JOIN ord o ON o.cust = c.id",
		"totals":   "SELECT c.name, sum(o.amount) AS total, count(*) AS n FROM cust c JOIN ord o ON o.cust = c.id GROUP BY c.name",
		"tagged":   "SELECT t.label, p.amount FROM tag t JOIN per_cust p ON p.name = t.name",
	}
	for _, name := range []string{"per_cust", "totals"} {
		te.run("CREATE MATERIALIZED VIEW " + name + " AS " + views[name])
	}
	te.run("CREATE INDEX per_cust_name ON per_cust (name)")
	te.run("CREATE MATERIALIZED VIEW tagged AS " + views["tagged"])
	hits := te.e.lookupHits
	te.run(`BEGIN;
		INSERT INTO cust VALUES (1, 'ann'), (2, 'bob'), (3, 'cy');
		INSERT INTO tag VALUES ('ann', 'x'), ('bob', 'y');
		INSERT INTO ord VALUES (15, 3, 9);
		COMMIT`)
	if te.e.lookupHits == hits {
		t.Errorf("no lookup served from the commit's cache (hits %d)", te.e.lookupHits)
	}
	// A later commit looks up keys the first one cached, after their
	// entries changed: the cache must not outlive its commit.
	te.run(`BEGIN; INSERT INTO ord VALUES (16, 1, 3); UPDATE cust SET name = 'ann2' WHERE id = 1;
		DELETE FROM cust WHERE id = 2; INSERT INTO tag VALUES ('cy', 'z'), ('ann2', 'w'); COMMIT`)
	for name, q := range views {
		got, want := te.run("SELECT * FROM "+name+" ORDER BY 1, 2"), te.run(q+" ORDER BY 1, 2")
		if got != want {
			t.Errorf("%s:\n%s\nwant (ad hoc):\n%s", name, got, want)
		}
	}
}
