package tests

import (
	"context"
	"sort"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// queryRows runs sql with the simple protocol and returns its rows as
// sorted "v1|v2|..." strings (harness.TextRows): a multiset that can be
// compared regardless of order.
func queryRows(ctx context.Context, c *pgconn.PgConn, sql string) ([]string, error) {
	rows, err := harness.TextRows(ctx, c, sql)
	sort.Strings(rows)
	return rows, err
}

// sameRows compares two sorted row lists.
func sameRows(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// refreshIfPostgres refreshes every materialized view when c talks to
// PostgreSQL, which does not maintain them; on Eddy it does nothing.
func refreshIfPostgres(ctx context.Context, c *pgconn.PgConn, isPostgres bool) error {
	if !isPostgres {
		return nil
	}
	_, err := c.Exec(ctx, refreshAllSQL).ReadAll()
	return err
}
