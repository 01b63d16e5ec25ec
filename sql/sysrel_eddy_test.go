package sql

import (
	"fmt"
	"strings"
	"testing"
)

// TestEddyIndexesSpilled checks eddy_indexes over a spilled table: the
// primary key order's entries stay exact (the collection's count), an
// index's are unknown (NULL) since only its overlay is in memory, and
// both say spilled.
func TestEddyIndexesSpilled(t *testing.T) {
	te := newTestEngine(t)
	te.e.spill.all = true
	var rows []string
	for i := range 100 {
		rows = append(rows, fmt.Sprintf("(%d, %d)", i, i%7))
	}
	for _, q := range []string{"CREATE TABLE t (k int PRIMARY KEY, g int)", "CREATE INDEX tg ON t (g)",
		"INSERT INTO t VALUES " + strings.Join(rows, ", ")} {
		if out := te.run(q); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
	}
	const list = "SELECT indexname, entries, spilled FROM eddy_indexes ORDER BY 1"
	if got, want := te.run(list), "indexname | entries | spilled\nt_pkey | 100 | f\ntg | 100 | f\nSELECT 2\n"; got != want {
		t.Fatalf("in memory:\n%s\nwant:\n%s", got, want)
	}
	if err := te.e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	te.run("INSERT INTO t VALUES (1000, 1)")
	if got, want := te.run(list), "indexname | entries | spilled\nt_pkey | 101 | t\ntg | NULL | t\nSELECT 2\n"; got != want {
		t.Fatalf("spilled:\n%s\nwant:\n%s", got, want)
	}
}
