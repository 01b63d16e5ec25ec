package lower

import (
	"fmt"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/optimizer"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/planner"
)

// manySubqueries is what BI tools generate: n correlated subqueries over
// one FROM item, in the select list (scalar ones only, or scalar, EXISTS
// and IN ones in turn) or as WHERE conjuncts (EXISTS and IN in turn,
// planned as semi-joins).
func manySubqueries(n int, form string) string {
	forms := map[string][]string{
		"scalar": {"(SELECT count(*) FROM u WHERE u.a = t.a AND u.a > %d)"},
		"mixed": {"(SELECT count(*) FROM u WHERE u.a = t.a AND u.a > %d)",
			"EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.a = %d)",
			"t.a + %d IN (SELECT u.a FROM u WHERE u.d = t.b)"},
		"where": {"EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.a > %d)",
			"t.a + %d IN (SELECT u.a FROM u WHERE u.d = t.b)"},
	}[form]
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(forms[i%len(forms)], i)
	}
	if form == "where" {
		return "SELECT a FROM t WHERE " + strings.Join(items, " AND ")
	}
	for i := range items {
		items[i] += fmt.Sprintf(" AS c%d", i)
	}
	return "SELECT " + strings.Join(items, ", ") + " FROM t"
}

// treeSize returns the number of nodes of rel's tree, counting a subtree
// shared by reference once per parent (as every tree walk visits it).
func treeSize(rel ir.Rel, memo map[ir.Rel]int) int {
	if n, ok := memo[rel]; ok {
		return n
	}
	n := 1
	for _, k := range rel.Children() {
		n += treeSize(k, memo)
	}
	memo[rel] = n
	return n
}

// TestManySubqueriesPlanLinearly plans, optimizes and lowers n
// correlated subqueries (manySubqueries) and bounds the work by counting:
// the plan's tree (shared subtrees counted once per parent) and the rule
// applications must grow linearly in n. Each subquery's domain used to
// read the previous subqueries' joins, so the tree grew as 3^n (2^n for
// WHERE conjuncts), and 12 scalar subqueries exhausted the prune phase's
// rules.MaxSteps (issue 6).
func TestManySubqueriesPlanLinearly(t *testing.T) {
	for _, form := range []string{"scalar", "mixed", "where"} {
		for _, n := range []int{1, 12, 32, 64} {
			t.Run(fmt.Sprintf("%s/%d", form, n), func(t *testing.T) {
				checkPlansLinearly(t, manySubqueries(n, form), n)
			})
		}
	}
}

// checkPlansLinearly plans, optimizes and lowers sql, which has n
// subqueries. A subquery adds at most 17 nodes and 10 rule applications;
// the bounds leave room for a few more per subquery, not for a factor.
func checkPlansLinearly(t *testing.T, sql string, n int) {
	res, err := pg_query.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	q, err := planner.PlanQuery(testCatalog(), res.Stmts[0].Stmt, planner.Options{MaterializedView: true})
	if err != nil {
		t.Fatal(err)
	}
	maxSize, maxSteps := 25*n+10, 16*n+10
	if size := treeSize(q.Rel, map[ir.Rel]int{}); size > maxSize {
		t.Fatalf("planned tree has %d nodes for %d subqueries, want at most %d", size, n, maxSize)
	}
	opt, trace, err := optimizer.OptimizeTrace(q.Rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d nodes, %d rule applications", treeSize(opt, map[ir.Rel]int{}), len(trace))
	if len(trace) > maxSteps {
		t.Fatalf("%d rule applications for %d subqueries, want at most %d", len(trace), n, maxSteps)
	}
	if size := treeSize(opt, map[ir.Rel]int{}); size > maxSize {
		t.Fatalf("optimized tree has %d nodes for %d subqueries, want at most %d", size, n, maxSize)
	}
	if _, err := Lower(opt); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkManySubqueries64 measures planning, optimizing and lowering 64
// correlated subqueries of each form of manySubqueries.
func BenchmarkManySubqueries64(b *testing.B) {
	for _, form := range []string{"scalar", "mixed", "where"} {
		b.Run(form, func(b *testing.B) {
			res, err := pg_query.Parse(manySubqueries(64, form))
			if err != nil {
				b.Fatal(err)
			}
			cat := testCatalog()
			for b.Loop() {
				q, err := planner.PlanQuery(cat, res.Stmts[0].Stmt, planner.Options{MaterializedView: true})
				if err != nil {
					b.Fatal(err)
				}
				opt, err := optimizer.Optimize(q.Rel)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Lower(opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
