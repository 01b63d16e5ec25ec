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

// maxDiffRows bounds how many differing rows a mismatch prints per side.
const maxDiffRows = 8

// diffRows reports how two sorted multisets differ (a few rows of each
// side), or nil when they are equal.
func diffRows(got, want []string) error {
	count := func(rows []string) map[string]int {
		m := map[string]int{}
		for _, r := range rows {
			m[r]++
		}
		return m
	}
	g, w := count(got), count(want)
	var extra, missing []string
	for r, c := range g {
		if d := c - w[r]; d > 0 {
			extra = append(extra, fmt.Sprintf("%s (x%d)", r, d))
		}
	}
	for r, c := range w {
		if d := c - g[r]; d > 0 {
			missing = append(missing, fmt.Sprintf("%s (x%d)", r, d))
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		return nil
	}
	sort.Strings(extra)
	sort.Strings(missing)
	return fmt.Errorf("eddy has %d rows, postgres %d\n  only in eddy (%d):%s\n  only in postgres (%d):%s",
		len(got), len(want), len(extra), list(extra), len(missing), list(missing))
}

// list prints up to maxDiffRows rows, one per line.
func list(rows []string) string {
	var b strings.Builder
	for i, r := range rows {
		if i == maxDiffRows {
			fmt.Fprintf(&b, "\n    ... %d more", len(rows)-i)
			break
		}
		b.WriteString("\n    " + r)
	}
	return b.String()
}
