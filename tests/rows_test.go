package tests

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// queryRows runs sql with the simple protocol and returns its rows as
// sorted "v1|v2|..." strings (NULL prints as NULL): a multiset that can be
// compared regardless of order.
func queryRows(ctx context.Context, c *pgconn.PgConn, sql string) ([]string, error) {
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s: no result", sql)
	}
	var rows []string
	for _, r := range res[len(res)-1].Rows {
		vals := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				vals[i] = "NULL"
			} else {
				vals[i] = string(v)
			}
		}
		rows = append(rows, strings.Join(vals, "|"))
	}
	sort.Strings(rows)
	return rows, nil
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
