package main

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/tpch"
)

// TestTablesRead checks the input tables of the queries whose text could
// mislead a word search: Q16 names Customer in a LIKE pattern, Q15 reads
// lineitem through its view revenue0, Q01 reads one table.
func TestTablesRead(t *testing.T) {
	want := map[string]string{
		"q01": "lineitem",
		"q15": "lineitem supplier",
		"q16": "part partsupp supplier",
		"q22": "customer orders",
	}
	for _, q := range tpch.Queries() {
		w, ok := want[q.Name]
		if !ok {
			continue
		}
		got := slices.Sorted(maps.Keys(tablesRead(q)))
		if strings.Join(got, " ") != w {
			t.Errorf("%s reads %v, want %s", q.Name, got, w)
		}
	}
}

// TestSelectQueries checks the -queries flag: order kept, unknown names
// rejected.
func TestSelectQueries(t *testing.T) {
	qs, err := selectQueries("q18, q01")
	if err != nil || len(qs) != 2 || qs[0].Name != "q18" || qs[1].Name != "q01" {
		t.Fatalf("selectQueries(q18, q01) = %v, %v", qs, err)
	}
	if _, err := selectQueries("q23"); err == nil {
		t.Fatal("selectQueries(q23) accepted a query that does not exist")
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 864965: "864,965", -1234567: "-1,234,567"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestProc reads this process's own figures from /proc: RSS within the
// peak, and CPU time that grows with work.
func TestProc(t *testing.T) {
	rss, hwm, err := tpch.ProcMemory(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("procMemory = rss %d, hwm %d: want 0 < rss <= hwm", rss, hwm)
	}
	// The figure moves in 10 ms ticks; spin until it does (a loaded
	// machine may take a while to give this process 10 ms).
	before := procCPU(os.Getpid())
	for deadline := time.Now().Add(10 * time.Second); procCPU(os.Getpid()) == before && time.Now().Before(deadline); {
	}
	if after := procCPU(os.Getpid()); after <= before {
		t.Errorf("procCPU did not grow over 10 s of work: %v then %v", before, after)
	}
	r0 := procRuntime(os.Getpid())
	for i := 0; i < 1e6 && procRuntime(os.Getpid()) == r0; i++ {
	}
	if r1 := procRuntime(os.Getpid()); r1 <= r0 || r0 <= 0 {
		t.Errorf("procRuntime = %v then %v: want a positive time that grows with work", r0, r1)
	}
}

// TestDiffRows checks the comparison of two sorted multisets: equal ones,
// a duplicate on one side, and rows on either side only.
func TestDiffRows(t *testing.T) {
	if d := diffRows([]string{"a", "b", "b"}, []string{"a", "b", "b"}); d != "" {
		t.Errorf("equal multisets differ: %s", d)
	}
	d := diffRows([]string{"a", "b", "b", "d"}, []string{"a", "b", "c"})
	want := "eddy 4 rows, postgres 3; only in eddy 2 `b`, `d`; only in postgres 1 `c`"
	if d != want {
		t.Errorf("diffRows = %q, want %q", d, want)
	}
}
