package sql

import (
	"testing"

	"github.com/eddydb/eddy/sql/parse"
)

// TestWithoutLiteralRows checks which VALUES rows the name walks skip:
// rows of literals only, never a row that names a relation or a column,
// and nothing of a VALUES with more than rows; the statement itself is
// left whole.
func TestWithoutLiteralRows(t *testing.T) {
	for _, c := range []struct {
		sql  string
		rows int // rows of the walked VALUES; -1: the statement itself
	}{
		{"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (NULL, -3)", 0},
		{"INSERT INTO t VALUES (1, 'a'), ((SELECT max(x) FROM u), 'b'), (3, c)", 2},
		{"INSERT INTO t VALUES (1, 'a')", -1},
		{"INSERT INTO t VALUES (1, 'a'), (2, 'b') ORDER BY 1 LIMIT 1", -1},
		{"INSERT INTO t SELECT * FROM u", -1},
		{"SELECT 1", -1},
	} {
		stmts, err := parse.Parse(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		n := stmts[0].AST
		before := len(n.GetInsertStmt().GetSelectStmt().GetSelectStmt().GetValuesLists())
		got := withoutLiteralRows(n)
		rows := len(got.GetInsertStmt().GetSelectStmt().GetSelectStmt().GetValuesLists())
		if got == n {
			rows = -1
		}
		if rows != c.rows {
			t.Errorf("%s: walked %d rows, want %d", c.sql, rows, c.rows)
		}
		if after := len(n.GetInsertStmt().GetSelectStmt().GetSelectStmt().GetValuesLists()); after != before {
			t.Errorf("%s: the statement lost rows: %d, was %d", c.sql, after, before)
		}
		if got != n && got.GetInsertStmt().Relation != n.GetInsertStmt().Relation {
			t.Errorf("%s: the walked statement does not share the target's RangeVar", c.sql)
		}
	}
}
