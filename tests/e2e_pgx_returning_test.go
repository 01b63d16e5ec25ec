package tests

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pgxReturningSubquery runs writes whose RETURNING has subqueries over the
// extended protocol, with parameters: the result columns are described
// before execution, the subqueries read the tables as the statement found
// them, and the command tag is the write's.
func pgxReturningSubquery(t *testing.T, ctx context.Context, c *pgx.Conn) {
	mustExec(t, ctx, c, "CREATE TABLE rq (k int PRIMARY KEY, v int)", "CREATE TABLE rq_names (v int, name text)",
		"INSERT INTO rq_names VALUES (10, 'ten'), (20, 'twenty')", "INSERT INTO rq VALUES (1, 10)")
	var k, before int64
	var name string
	err := c.QueryRow(ctx, "INSERT INTO rq VALUES ($1, $2) RETURNING k, (SELECT count(*) FROM rq), (SELECT name FROM rq_names n WHERE n.v = rq.v)",
		2, 20).Scan(&k, &before, &name)
	if err != nil || k != 2 || before != 1 || name != "twenty" {
		t.Fatalf("insert returning: %d %d %q %v, want 2 1 twenty", k, before, name, err)
	}
	rows, err := c.Query(ctx, "UPDATE rq SET v = v + $1 RETURNING k, (SELECT sum(v) FROM rq)", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var k, sum int64
		if err := rows.Scan(&k, &sum); err != nil {
			t.Fatal(err)
		}
		if sum != 30 {
			t.Fatalf("update returning: k=%d sum=%d, want sum 30", k, sum)
		}
		n++
	}
	if rows.Err() != nil || n != 2 || rows.CommandTag().String() != "UPDATE 2" {
		t.Fatalf("update returning: %d rows, tag %q, %v; want 2 rows, UPDATE 2", n, rows.CommandTag(), rows.Err())
	}
	tag, err := c.Exec(ctx, "DELETE FROM rq WHERE k = $1 RETURNING (SELECT max(k) FROM rq)", 1)
	if err != nil || tag.String() != "DELETE 1" {
		t.Fatalf("delete returning: tag %q, %v; want DELETE 1", tag, err)
	}
}
