package tpch

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
