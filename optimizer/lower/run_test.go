package lower

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// TestRun executes lowered plans on exec's runtime: the input is INSERT
// statements (each planned, lowered and run to produce its rows) followed
// by one query, whose result rows are printed sorted. It checks the
// semantics of lowering and decorrelation end to end (NULLs, empty groups,
// multiplicities).
func TestRun(t *testing.T) { runScripts(t, "testdata/run", testCatalog()) }

// runScripts runs the datadriven scripts of path against cat: INSERTs
// (planned, lowered and run to produce their rows) followed by one query,
// whose result rows are printed sorted.
func runScripts(t *testing.T, path string, cat catalog) {
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		res, err := pg_query.Parse(d.Input)
		if err != nil {
			t.Fatal(err)
		}
		data := map[repr.CollectionID][]repr.Update{}
		stmts := res.Stmts
		for _, s := range stmts[:len(stmts)-1] {
			ins, err := planner.PlanInsert(cat, s.Stmt.GetInsertStmt(), planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := runRel(t, ins.Source.WithRel(), nil)
			if err != nil {
				t.Fatal(err)
			}
			data[ins.Table.ID] = append(data[ins.Table.ID], rows...)
		}
		q, err := planner.PlanQuery(cat, stmts[len(stmts)-1].Stmt, planner.Options{})
		if err != nil {
			return fmt.Sprintf("plan error: %v\n", err)
		}
		out, err := runRel(t, q, data)
		if err != nil {
			return fmt.Sprintf("error: %v\n", err)
		}
		return formatRows(q, out)
	})
}

// runRel lowers and runs a query once over the given inputs.
func runRel(t *testing.T, q *planner.Query, data map[repr.CollectionID][]repr.Update) ([]repr.Update, error) {
	plan, err := Lower(q.Rel)
	if err != nil {
		t.Fatal(err)
	}
	df, err := exec.Build(plan)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, plan)
	}
	for id, us := range data {
		for i := range us {
			us[i].Time = 1
		}
		data[id] = us
	}
	return df.Step(nil, 1, data, nil)
}

// formatRows prints the visible columns of each row (repeated per
// multiplicity), sorted.
func formatRows(q *planner.Query, us []repr.Update) string {
	var lines []string
	for _, u := range us {
		var vals []string
		for i := range q.Columns {
			vals = append(vals, repr.FormatText(u.Row[i], q.Columns[i].Type, time.UTC))
			if u.Row[i].IsNull() {
				vals[i] = "NULL"
			}
		}
		for range u.Diff {
			lines = append(lines, strings.Join(vals, " | "))
		}
		if u.Diff < 0 {
			lines = append(lines, fmt.Sprintf("%s (diff %d)", strings.Join(vals, " | "), u.Diff))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
