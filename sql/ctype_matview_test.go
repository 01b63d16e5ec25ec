package sql

import (
	"fmt"
	"strings"
	"testing"
)

// TestAlterTypeUnderMatviewDurable: materialized views reading fields of
// a composite type keep their stored plans across ALTER TYPE ... ADD,
// RENAME (also of the fields they name) and DROP ATTRIBUTE, a crash and a
// restart, and equal their
// queries recomputed; a view whose rows or state hold values of the type,
// or whose plan reads the type's shape, is recomputed under the new shape.
func TestAlterTypeUnderMatviewDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	views := map[string]string{
		"f": `SELECT id, (v).a, (v).b FROM u`,
		"g": `SELECT (v).b AS b, count(*) AS n, sum((v).a) AS s FROM u GROUP BY (v).b`,
	}
	te.mustRun(`CREATE TYPE ct AS (a int, b text); CREATE TABLE u (id int PRIMARY KEY, v ct)`)
	for name, q := range views {
		te.mustRun(fmt.Sprintf(`CREATE MATERIALIZED VIEW %s AS %s`, name, q))
	}
	te.mustRun(`INSERT INTO u VALUES (1, ROW(1, 'x')), (2, ROW(2, 'y')), (3, NULL)`)
	te.mustRun(`ALTER TYPE ct ADD ATTRIBUTE z int; INSERT INTO u VALUES (4, ROW(4, 'x', 40))`)
	te.mustRun(`ALTER TYPE ct RENAME ATTRIBUTE z TO zz; UPDATE u SET v = ROW((v).a + 10, (v).b, 5) WHERE id IN (1, 4)`)
	te.mustRun(`ALTER TYPE ct DROP ATTRIBUTE zz; DELETE FROM u WHERE id = 2`)
	// Renaming fields the views name rewrites their stored queries.
	te.mustRun(`ALTER TYPE ct RENAME ATTRIBUTE a TO aa; ALTER TYPE ct RENAME ATTRIBUTE b TO bb`)
	views = map[string]string{
		"f": `SELECT id, (v).aa AS a, (v).bb AS b FROM u`,
		"g": `SELECT (v).bb AS b, count(*) AS n, sum((v).aa) AS s FROM u GROUP BY (v).bb`,
	}
	for i, reopen := range []func(){te.crash, te.restart} {
		reopen()
		te.mustRun(fmt.Sprintf(`INSERT INTO u VALUES (%d, ROW(%d, 'y')); UPDATE u SET v = ROW((v).aa + 1, 'w') WHERE id = 1`, 10+i, 10+i))
		if out := te.mustRun(`SELECT a, b FROM f WHERE id = 1`); !strings.Contains(out, "| w") {
			t.Fatalf("f's columns after renames and reopening:\n%s", out)
		}
		for name, q := range views {
			view := te.mustRun(`SELECT * FROM ` + name + ` ORDER BY 1, 2`)
			query := te.mustRun(q + ` ORDER BY 1, 2`)
			if view != query {
				t.Fatalf("%s after reopening:\n%s\nrecomputed:\n%s", name, view, query)
			}
		}
	}
	// A view whose rows or state hold values of the type is recomputed
	// under the new attributes (as PostgreSQL's would read them), in the
	// same change, and stays equal to its query.
	for _, q := range []string{`SELECT id, v FROM u`, `SELECT id FROM u WHERE v IS NOT NULL`, `SELECT DISTINCT v FROM u`} {
		te.mustRun(`CREATE MATERIALIZED VIEW whole AS ` + q)
		for _, alter := range []string{`ALTER TYPE ct ADD ATTRIBUTE c int`, `ALTER TYPE ct DROP ATTRIBUTE c`} {
			te.mustRun(alter)
			te.mustRun(`INSERT INTO u SELECT max(id) + 1, (SELECT v FROM u WHERE id = 1) FROM u; DELETE FROM u WHERE id = 3`)
			view, query := te.mustRun(`SELECT * FROM whole ORDER BY 1`), te.mustRun(q+` ORDER BY 1`)
			if view != query {
				t.Fatalf("%q after %s:\n%s\nrecomputed:\n%s", q, alter, view, query)
			}
		}
		te.mustRun(`DROP MATERIALIZED VIEW whole`)
	}
}
