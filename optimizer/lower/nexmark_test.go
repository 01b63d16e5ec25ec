package lower

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/types"
)

// TestRunNexmark runs testdata/run_nexmark like TestRun, over the test
// catalog plus a Nexmark-like bid table: the constructs the Nexmark
// queries need (FILTER, row_number() top-N, window table functions,
// regexp_match subscripts) checked on data end to end.
func TestRunNexmark(t *testing.T) {
	cat := testCatalog()
	col := func(n string, t types.T) planner.Column { return planner.Column{Name: n, Type: t} }
	cat["bid"] = &planner.Relation{ID: 10, Name: "bid", Columns: []planner.Column{col("auction", types.Int8),
		col("bidder", types.Int8), col("price", types.Int8), col("channel", types.Varchar(0)),
		col("url", types.Varchar(0)), col("date_time", types.Timestamp)}}
	datadriven.RunTest(t, "testdata/run_nexmark", func(t *testing.T, d *datadriven.TestData) string {
		res, err := pg_query.Parse(d.Input)
		if err != nil {
			t.Fatal(err)
		}
		data := map[dataflow.CollectionID][]exec.Update{}
		stmts := res.Stmts
		for _, s := range stmts[:len(stmts)-1] {
			ins, err := planner.PlanInsert(cat, s.Stmt.GetInsertStmt(), planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := runRel(t, ins.Source, nil)
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
