package tpcds

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// queryRows runs sql with the simple protocol and returns its rows in the
// order the server sent them, as "v1|v2|..." strings in the server's text
// format (NULL prints as NULL; numerics as printed, as tests/tpch compares
// them).
func queryRows(ctx context.Context, c *pgconn.PgConn, sql string) ([]string, error) {
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("no result")
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

// sorted returns a sorted copy of rows: the multiset form.
func sorted(rows []string) []string {
	s := slices.Clone(rows)
	sort.Strings(s)
	return s
}

// topLevelOrderBy reports whether sql ends in an ORDER BY of its own (one
// outside parentheses), so that its rows are compared as a list.
func topLevelOrderBy(sql string) bool {
	u := strings.ToUpper(sql)
	depth := 0
	for i := range len(u) {
		switch u[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 && strings.HasPrefix(u[i:], "ORDER BY") {
			return true
		}
	}
	return false
}

// maxDiffRows bounds how many differing rows a mismatch prints per side.
const maxDiffRows = 6

// diffList reports where two ordered results first differ, or nil.
func diffList(got, want []string) error {
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			g, w := "(end)", "(end)"
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			return fmt.Errorf("eddy has %d rows, postgres %d; row %d differs:\n  eddy:     %s\n  postgres: %s", len(got), len(want), i+1, g, w)
		}
	}
	return nil
}

// diffMultiset reports how two results differ as multisets (a few rows
// of each side), or nil when they are equal.
func diffMultiset(got, want []string) error {
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
