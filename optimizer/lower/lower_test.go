package lower

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// catalog is a fixed test catalog: t(a int, b text, c float8) id 1,
// u(a int, d text, e numeric) id 2, w(x bigint, y int) id 3,
// m(k int, p numeric(15,2), q numeric) id 4.
type catalog map[string]*planner.Relation

func (c catalog) Relation(schema, name string) (*planner.Relation, error) {
	if r, ok := c[name]; ok {
		return r, nil
	}
	return nil, repr.ErrUndefinedTable.New(name)
}

func testCatalog() catalog {
	col := func(n string, t repr.T) planner.Column { return planner.Column{Name: n, Type: t} }
	return catalog{
		"t": {ID: 1, Name: "t", Columns: []planner.Column{col("a", repr.Int4), col("b", repr.Text), col("c", repr.Float8)}},
		"u": {ID: 2, Name: "u", Columns: []planner.Column{col("a", repr.Int4), col("d", repr.Text), col("e", repr.Numeric)}},
		"w": {ID: 3, Name: "w", Columns: []planner.Column{col("x", repr.Int8), col("y", repr.Int4)}},
		"m": {ID: 4, Name: "m", Columns: []planner.Column{col("k", repr.Int4),
			col("p", repr.T{Family: repr.FamNumeric, Precision: 15, Scale: 2}), col("q", repr.Numeric)}},
	}
}

// TestLower plans SQL, lowers the IR and prints the IR and the dataflow.
// Every lowered plan must also survive a round trip through
// dataflow.Parse, which re-infers and checks the node types.
func TestLower(t *testing.T) {
	cat := testCatalog()
	datadriven.RunTest(t, "testdata/lower", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "lower" {
			t.Fatalf("unknown command %s", d.Cmd)
		}
		res, err := pg_query.Parse(d.Input)
		if err != nil {
			t.Fatal(err)
		}
		q, err := planner.PlanQuery(cat, res.Stmts[0].Stmt, planner.Options{})
		if err != nil {
			return fmt.Sprintf("plan error: %v\n", err)
		}
		plan, err := Lower(q.Rel)
		if err != nil {
			return fmt.Sprintf("lower error: %v\n", err)
		}
		var b strings.Builder
		b.WriteString(q.Rel.String())
		b.WriteString("----\n")
		b.WriteString(plan.String())
		b.WriteString(roundTrip(plan))
		return b.String()
	})
}

// roundTrip reports whether the printed plan parses back (dataflow.Parse
// re-infers and checks every node's types) and prints the same.
func roundTrip(plan *dataflow.Plan) string {
	back, err := dataflow.Parse(plan.String())
	if err != nil {
		return fmt.Sprintf("round trip: %v\n", err)
	}
	if back.String() != plan.String() {
		return fmt.Sprintf("round trip differs:\n%s", back)
	}
	return "round trip: ok\n"
}
