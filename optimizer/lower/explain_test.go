package lower

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/optimizer"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// nexmarkCatalog is the test catalog plus the three Nexmark sources with
// their event-time columns (WATERMARK FOR date_time), as queries.sql
// declares them.
func nexmarkCatalog() catalog {
	cat := testCatalog()
	col := func(n string, t repr.T) planner.Column { return planner.Column{Name: n, Type: t} }
	vc, ts := repr.Varchar(0), repr.Timestamp
	cat["person"] = &planner.Relation{ID: 20, Name: "person", Kind: planner.RelSource, AppendOnly: true, HasEventTime: true, EventTimeCol: 6,
		Columns: []planner.Column{col("id", repr.Int8), col("name", vc), col("email_address", vc),
			col("credit_card", vc), col("city", vc), col("state", vc), col("date_time", ts), col("extra", vc)}}
	cat["auction"] = &planner.Relation{ID: 21, Name: "auction", Kind: planner.RelSource, AppendOnly: true, HasEventTime: true, EventTimeCol: 5,
		Columns: []planner.Column{col("id", repr.Int8), col("item_name", vc), col("description", vc),
			col("initial_bid", repr.Int8), col("reserve", repr.Int8), col("date_time", ts),
			col("expires", ts), col("seller", repr.Int8), col("category", repr.Int8), col("extra", vc)}}
	cat["bid"] = &planner.Relation{ID: 22, Name: "bid", Kind: planner.RelSource, AppendOnly: true, HasEventTime: true, EventTimeCol: 5,
		Columns: []planner.Column{col("auction", repr.Int8), col("bidder", repr.Int8),
			col("price", repr.Int8), col("channel", vc), col("url", vc), col("date_time", ts), col("extra", vc)}}
	return cat
}

// TestExplain plans SQL over nexmarkCatalog, optimizes it as a view is
// (optimizer.Optimize), lowers it and prints the optimized IR, the
// dataflow and exec's report of which state a watermark bounds: the
// pruning and fusion the optimizer and the lowering do must leave windowed
// plans bounded.
func TestExplain(t *testing.T) {
	cat := nexmarkCatalog()
	datadriven.RunTest(t, "testdata/explain", func(t *testing.T, d *datadriven.TestData) string {
		res, err := pg_query.Parse(d.Input)
		if err != nil {
			t.Fatal(err)
		}
		q, err := planner.PlanQuery(cat, res.Stmts[0].Stmt, planner.Options{MaterializedView: true})
		if err != nil {
			return fmt.Sprintf("plan error: %v\n", err)
		}
		rel := q.Rel
		if len(q.Columns) != ir.Arity(rel) {
			cols := identity(len(q.Columns))
			rel = ir.NewProject(rel, cols...)
		}
		opt, err := optimizer.Optimize(rel)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := Lower(opt)
		if err != nil {
			return fmt.Sprintf("lower error: %v\n", err)
		}
		df, err := exec.Build(plan)
		if err != nil {
			t.Fatalf("build: %v\n%s", err, plan)
		}
		var b strings.Builder
		if d.Cmd == "explain" {
			b.WriteString(opt.String())
			b.WriteString("----\n")
			b.WriteString(plan.String())
		}
		b.WriteString("State:\n")
		for _, r := range df.Bounded() {
			b.WriteString(r.String() + "\n")
		}
		b.WriteString(roundTrip(plan))
		return b.String()
	})
}
