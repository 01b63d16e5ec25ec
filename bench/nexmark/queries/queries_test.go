package queries

import (
	"strings"
	"testing"

	"github.com/eddydb/eddy/server/connector/nexmark"
)

// TestParseSuite checks the split of queries.sql: every view, in order,
// with the sources it reads and q12's plain view.
func TestParseSuite(t *testing.T) {
	s, err := ParseSuite(SQL)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"q0": "bid", "q1": "bid", "q2": "bid", "q3": "auction,person", "q4": "auction,bid",
		"q5": "bid", "q7": "bid", "q8": "person,auction", "q9": "auction,bid", "q12": "bid",
		"q15": "bid", "q16": "bid", "q17": "bid", "q18": "bid", "q19": "bid", "q20": "bid,auction",
		"q21": "bid", "q22": "bid", "q7_final": "bid",
	}
	if len(s.Queries) != len(want) {
		t.Fatalf("got %d queries, want %d", len(s.Queries), len(want))
	}
	for _, q := range s.Queries {
		if got := strings.Join(q.Sources, ","); got != want[q.Name] {
			t.Errorf("%s reads %q, want %q", q.Name, got, want[q.Name])
		}
		if (len(q.Setup) > 0) != (q.Name == "q12") {
			t.Errorf("%s setup %q", q.Name, q.Setup)
		}
	}
}

// TestRewrites checks the statement rewrites the benchmark and the oracle
// test rely on.
func TestRewrites(t *testing.T) {
	s, err := ParseSuite(SQL)
	if err != nil {
		t.Fatal(err)
	}
	src := BoundedSource(s.Sources["bid"], 1000, 50)
	if !strings.Contains(src, "nexmark.table.type = 'bid', nexmark.event.num = '1000', nexmark.event.rate = '50')") {
		t.Errorf("BoundedSource: %s", src)
	}
	tbl := TableOf(s.Sources["bid"], "_t", 1000, 0)
	if !strings.HasPrefix(tbl, "CREATE TABLE bid_t (") || strings.Contains(tbl, "WATERMARK") {
		t.Errorf("TableOf: %s", tbl)
	}
	sel, _ := s.Select("q5")
	got := AdHoc(sel[0].View, "_t")
	if !strings.HasPrefix(got, "SELECT ab.auction") || strings.Count(got, "HOP(bid_t,") != 2 {
		t.Errorf("AdHoc(q5): %s", got)
	}
	sel, _ = s.Select("q7_final")
	if got := AdHoc(sel[0].View, "_t"); strings.Contains(got, "EMIT") || !strings.Contains(got, "TUMBLE(bid_t,") {
		t.Errorf("AdHoc(q7_final): %s", got)
	}
	if _, err := s.Select("q99"); err == nil {
		t.Error("Select(q99) succeeded")
	}
}

// TestCountOf checks CountOf against the generator's TypeOf.
func TestCountOf(t *testing.T) {
	for _, n := range []int64{0, 1, 3, 4, 49, 50, 51, 1234} {
		for _, tt := range []nexmark.TableType{nexmark.Person, nexmark.Auction, nexmark.Bid} {
			var want int64
			for i := range n {
				if nexmark.TypeOf(i) == tt {
					want++
				}
			}
			if got := CountOf(tt, n); got != want {
				t.Errorf("CountOf(%v, %d) = %d, want %d", tt, n, got, want)
			}
		}
	}
}
