package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDeltaJoinViews maintains views whose multiway joins are delta
// joins (a chain read through primary keys, automatic indexes and a
// filtered private input; a cycle; a self-join; one equivalence class)
// and a view created with binary joins before delta joins existed (the
// knob), through random
// transactions that write several tables at once (inserts, deletes,
// updates of join keys), rollbacks, crashes and restarts, and checks after
// each step that every view equals its query run ad hoc (binary joins)
// and that the old view kept its stored binary plan.
func TestDeltaJoinViews(t *testing.T) {
	rng := indexTestRand(t, 11)
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 5})
	te.mustRun(`CREATE TABLE c (id int PRIMARY KEY, region int, name text);
CREATE TABLE o (id int PRIMARY KEY, cust int, day int);
CREATE TABLE l (ord int, line int, qty int, PRIMARY KEY (ord, line));
CREATE TABLE r (id int, label text)`)
	queries := map[string]string{
		"v_chain": "SELECT c.name, o.id, l.line, l.qty, r.label FROM c, o, l, r WHERE o.cust = c.id AND l.ord = o.id AND r.id = c.region AND l.qty > 1",
		"v_cycle": "SELECT o.id, l.line, c.id AS cid FROM o, l, c WHERE l.ord = o.id AND o.cust = c.id AND c.region = l.qty AND c.name <> o.day::text",
		"v_self":  "SELECT x.id, y.id AS yid, c.name FROM o x, o y, c WHERE x.cust = y.cust AND c.id = x.cust AND x.day <= y.day",
		// One equivalence class over three inputs: lookups by implied equalities.
		"v_class": "SELECT o.id, l.line, c.name FROM o, l, c WHERE o.id = l.ord AND l.ord = c.id AND l.qty > 0",
	}
	disableDeltaJoins = true
	te.mustRun("CREATE MATERIALIZED VIEW v_old AS " + queries["v_chain"])
	disableDeltaJoins = false
	queries["v_old"] = queries["v_chain"]
	for name, q := range queries {
		if name != "v_old" {
			te.mustRun(fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, q))
		}
	}
	checkPlans := func() {
		for name := range queries {
			plan := te.e.cat.lookup("", name).Plan
			if strings.Contains(plan, "DeltaJoin") != (name != "v_old") {
				t.Fatalf("view %s has the wrong kind of join:\n%s", name, plan)
			}
		}
	}
	checkPlans()
	for step := range 150 {
		stmt := randomDeltaWrite(rng)
		te.randomStep(rng, stmt, 25)
		te.run("ROLLBACK") // a transaction a failed statement left open
		for name, q := range queries {
			view, adhoc := te.mustRun("SELECT * FROM "+name), te.mustRun(q)
			if sortedLines(view) != sortedLines(adhoc) {
				t.Fatalf("step %d (%s): %s\nview:\n%s\nad hoc:\n%s", step, stmt, name, view, adhoc)
			}
		}
	}
	checkPlans()
}

// randomDeltaWrite returns a random write of TestDeltaJoinViews' tables:
// often one transaction writing several of them.
func randomDeltaWrite(rng *rand.Rand) string {
	one := func() string {
		k, n := rng.IntN(6), rng.IntN(4)
		switch rng.IntN(10) {
		case 0:
			return fmt.Sprintf("INSERT INTO c VALUES (%d, %d, '%d') ON CONFLICT (id) DO UPDATE SET region = excluded.region", k, rng.IntN(3), rng.IntN(3))
		case 1:
			return fmt.Sprintf("INSERT INTO o VALUES (%d, %d, %d) ON CONFLICT (id) DO NOTHING", k, rng.IntN(6), rng.IntN(3))
		case 2, 3:
			return fmt.Sprintf("INSERT INTO l VALUES (%d, %d, %d) ON CONFLICT (ord, line) DO NOTHING", k, n, rng.IntN(4))
		case 4:
			return fmt.Sprintf("INSERT INTO r VALUES (%d, 'r%d')", rng.IntN(3), rng.IntN(3))
		case 5:
			return fmt.Sprintf("UPDATE o SET cust = %d WHERE id = %d", rng.IntN(6), k)
		case 6:
			to := rng.IntN(6)
			return fmt.Sprintf("UPDATE l SET qty = qty + 1, ord = %d WHERE ord = %d AND line = %d AND NOT EXISTS (SELECT 1 FROM l WHERE ord = %d AND line = %d)", to, k, n, to, n)
		case 7:
			return fmt.Sprintf("DELETE FROM %s WHERE id = %d", [3]string{"c", "o", "r"}[rng.IntN(3)], k)
		case 8:
			return fmt.Sprintf("DELETE FROM l WHERE ord = %d", k)
		}
		return fmt.Sprintf("UPDATE c SET id = id + 10 WHERE id = %d", k)
	}
	if rng.IntN(2) == 0 {
		return one()
	}
	stmts := []string{"BEGIN"}
	for i := 1 + rng.IntN(5); i > 0; i-- {
		stmts = append(stmts, one())
	}
	return strings.Join(append(stmts, "COMMIT"), "; ")
}
