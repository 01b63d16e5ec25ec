package tpcds

import (
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

// TestTopLevelOrderBy checks which queries are compared as lists: an
// ORDER BY inside a window, a subquery or a CTE does not count.
func TestTopLevelOrderBy(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a LIMIT 5", true},
		{"SELECT rank() OVER (PARTITION BY a ORDER BY b) FROM t", false},
		{"WITH x AS (SELECT a FROM t ORDER BY a) SELECT * FROM x", false},
		{"SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) s", false},
		{"select a from t order by 1", true},
	} {
		if got := topLevelOrderBy(c.sql); got != c.want {
			t.Errorf("topLevelOrderBy(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
	ordered := 0
	for _, q := range Queries() {
		if topLevelOrderBy(q.SQL) {
			ordered++
		}
	}
	if ordered < 90 {
		t.Errorf("only %d of the 99 queries end in ORDER BY; the parser of the query files is off", ordered)
	}
}

// TestDiff checks the two comparisons: lists differ by order, multisets
// by multiplicity.
func TestDiff(t *testing.T) {
	a, b := []string{"1|x", "2|y"}, []string{"2|y", "1|x"}
	if diffList(a, a) != nil || diffList(a, b) == nil || diffList(a, a[:1]) == nil {
		t.Error("diffList: equal lists must match, reordered or shorter ones not")
	}
	if harness.DiffRows(sorted(a), sorted(b)) != nil {
		t.Error("diffMultiset: a reordering must match")
	}
	if harness.DiffRows(sorted([]string{"1", "1"}), sorted([]string{"1"})) == nil {
		t.Error("diffMultiset: a duplicate must not match")
	}
}
