package tpch

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// queryRows runs sql with the simple protocol and returns its rows as
// sorted "v1|v2|..." strings in the server's text format (NULL prints as
// NULL): a multiset compared regardless of order, numerics as printed. (The
// same as tests/rows_test.go, which a test package outside tests cannot
// import.)
func queryRows(ctx context.Context, c *pgconn.PgConn, sql string) ([]string, error) {
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s: no result", firstLine(sql))
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
