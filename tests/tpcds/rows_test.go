package tpcds

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

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
