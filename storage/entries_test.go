package storage

import (
	"fmt"
	"slices"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// checkEntries checks that IndexEntries of index 8 over [from, to) and
// PrefixEntries of prefix, decoded with dec, are what ScanIndexCols and
// ScanPrefixCols visit, in the same order (TestIndexRandom calls it after
// every span of random changes and rollbacks).
func checkEntries(t *testing.T, span int, c *Collection, from, to, prefix []byte, dec *repr.ColDecoder) {
	t.Helper()
	var want []string
	visit := func(r repr.Row, n int64) bool {
		want = append(want, fmt.Sprint(r[1], n))
		return true
	}
	if err := c.ScanIndexCols(8, from, to, dec, visit); err != nil {
		t.Fatal(err)
	}
	es, ok, err := c.IndexEntries(8, from, to, nil)
	if err != nil || !ok {
		t.Fatalf("span %d: IndexEntries: %v, %v", span, ok, err)
	}
	if got := entryStrings(es, dec); !slices.Equal(got, want) {
		t.Fatalf("span %d: IndexEntries %v, ScanIndexCols %v", span, got, want)
	}
	want = want[:0]
	c.ScanPrefixCols(prefix, dec, visit)
	if es, ok = c.PrefixEntries(prefix, nil); !ok {
		t.Fatalf("span %d: PrefixEntries of an in-memory collection refused", span)
	}
	if got := entryStrings(es, dec); !slices.Equal(got, want) {
		t.Fatalf("span %d: PrefixEntries %v, ScanPrefixCols %v", span, got, want)
	}
}

// entryStrings decodes entries as checkEntries's scans print them.
func entryStrings(es []Entry, dec *repr.ColDecoder) []string {
	var out []string
	for _, x := range es {
		out = append(out, fmt.Sprint(x.DecodeCols(dec)[1], x.Count()))
	}
	return out
}

// TestEntriesSpilled checks that a spilled collection's entries are not
// handed out (they live in buffers its scans reuse).
func TestEntriesSpilled(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	c := NewCollection(7, []int{0})
	c.AddIndex(8, []int{1}, nil)
	b := db.NewBatch()
	for i := range int64(10) {
		if err := c.Apply(repr.Row{repr.NewInt(i), repr.NewInt(i % 3), repr.NewInt(0)}, 1, b); err != nil {
			t.Fatal(err)
		}
	}
	c.Commit()
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if es, ok := c.PrefixEntries(nil, nil); !ok || len(es) != 10 {
		t.Fatalf("in memory: PrefixEntries %d entries, %v; want 10, true", len(es), ok)
	}
	c.Spill(db)
	if !c.Spilled() {
		t.Fatal("Spill did not spill")
	}
	if es, ok := c.PrefixEntries(nil, nil); ok || len(es) != 0 {
		t.Fatalf("spilled: PrefixEntries %d entries, %v; want none, false", len(es), ok)
	}
	if es, ok, err := c.IndexEntries(8, nil, nil, nil); ok || err != nil || len(es) != 0 {
		t.Fatalf("spilled: IndexEntries %d entries, %v, %v; want none, false", len(es), ok, err)
	}
}
