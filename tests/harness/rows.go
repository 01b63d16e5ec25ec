package harness

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// TextRows runs sql with the simple protocol and returns the rows of its
// last result in the order the server sent them, as "v1|v2|..." strings
// in the server's text format (NULL prints as NULL, numerics as printed).
func TextRows(ctx context.Context, c *pgconn.PgConn, sql string) ([]string, error) {
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(sql), "\n")
		return nil, fmt.Errorf("%s: no result", first)
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
	return rows, nil
}

// diffShownRows bounds how many differing rows DiffRows prints per side.
const diffShownRows = 8

// DiffRows reports how two results, rows as text, differ as multisets:
// the counts and a few rows only in each (sorted, with their surplus
// counts), or nil when they are equal. got is Eddy's, want PostgreSQL's.
func DiffRows(got, want []string) error {
	g, w := countRows(got), countRows(want)
	extra, missing := surplus(g, w), surplus(w, g)
	if len(extra) == 0 && len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("eddy has %d rows, postgres %d\n  only in eddy (%d):%s\n  only in postgres (%d):%s",
		len(got), len(want), len(extra), shownRows(extra), len(missing), shownRows(missing))
}

// countRows counts each distinct row.
func countRows(rows []string) map[string]int {
	m := map[string]int{}
	for _, r := range rows {
		m[r]++
	}
	return m
}

// surplus returns the rows a holds more often than b, each with how many
// more, sorted.
func surplus(a, b map[string]int) []string {
	var out []string
	for r, c := range a {
		if d := c - b[r]; d > 0 {
			out = append(out, fmt.Sprintf("%s (x%d)", r, d))
		}
	}
	sort.Strings(out)
	return out
}

// shownRows prints up to diffShownRows rows, one per line.
func shownRows(rows []string) string {
	var b strings.Builder
	for i, r := range rows {
		if i == diffShownRows {
			fmt.Fprintf(&b, "\n    ... %d more", len(rows)-i)
			break
		}
		b.WriteString("\n    " + r)
	}
	return b.String()
}
