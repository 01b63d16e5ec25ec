package rules_test

import (
	"runtime"
	"testing"

	"github.com/eddydb/eddy/optimizer/rules"
)

// TestFoldFlatMapBoundsWork checks that folding a call too large to fold
// stops at the fold limit rather than building every row of the call
// first: planning generate_series(1, 1000000) built its million rows
// (about 200 MB no memory account holds) before leaving it to run time.
func TestFoldFlatMapBoundsWork(t *testing.T) {
	rel, err := parseRel("(FlatMap (Values [int4] [1] [2]) [generate_series(1, 1000000)])")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := rules.FoldFlatMap.Apply(rel)
	runtime.ReadMemStats(&after)
	if got != nil {
		t.Fatalf("folded a million-row call into the plan: %v", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("declining to fold allocated %d bytes, want at most 4 MiB", n)
	}
}
