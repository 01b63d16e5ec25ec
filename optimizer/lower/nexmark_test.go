package lower

import (
	"testing"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// TestRunNexmark runs testdata/run_nexmark like TestRun, over the test
// catalog plus a Nexmark-like bid table: the constructs the Nexmark
// queries need (FILTER, row_number() top-N, window table functions,
// regexp_match subscripts) checked on data end to end.
func TestRunNexmark(t *testing.T) {
	cat := testCatalog()
	col := func(n string, t repr.T) planner.Column { return planner.Column{Name: n, Type: t} }
	cat["bid"] = &planner.Relation{ID: 10, Name: "bid", Columns: []planner.Column{col("auction", repr.Int8),
		col("bidder", repr.Int8), col("price", repr.Int8), col("channel", repr.Varchar(0)),
		col("url", repr.Varchar(0)), col("date_time", repr.Timestamp)}}
	runScripts(t, "testdata/run_nexmark", cat)
}
