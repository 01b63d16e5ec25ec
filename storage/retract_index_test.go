package storage

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// textKey keys an index by column 1's text form, so that equal numerics of
// different scales (1.0, 1.00) have different index keys.
func textKey(dst []byte, row repr.Row) ([]byte, bool) {
	return repr.AppendKey(dst, repr.NewText(row[1].Numeric().String())), true
}

// TestRetractIndexesStoredForm deletes keyed rows with the stored row
// itself (whose index entries retractedRow takes from the argument) and
// with an equal row of another scale (whose entries must come from the
// stored row), and checks that the indexes hold exactly the remaining
// rows' entries, in memory and in the store.
func TestRetractIndexesStoredForm(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	num := func(s string) repr.Datum {
		d, err := repr.ParseNumeric(s)
		if err != nil {
			t.Fatal(err)
		}
		return repr.NewNumeric(d)
	}
	c := NewCollection(7, []int{0})
	c.AddIndexKey(8, textKey, nil)
	c.AddIndex(9, []int{1}, nil)
	b := db.NewBatch()
	for k, v := range []string{"1.00", "2.50", "3.0"} {
		if err := c.Apply(repr.Row{repr.NewInt(int64(k)), num(v)}, 1, b); err != nil {
			t.Fatal(err)
		}
	}
	// Row 0 retracted in another scale, row 1 as stored; row 2 stays.
	for _, r := range []repr.Row{{repr.NewInt(0), num("1.0")}, {repr.NewInt(1), num("2.50")}} {
		if err := c.Apply(r, -1, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if err := c.CheckIndexes(); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := c.ScanIndex(8, nil, nil, func(row repr.Row, _ int64) bool {
		got = append(got, row[1].Numeric().String())
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "3.0" {
		t.Fatalf("index 8 after the deletes: %v, want [3.0]", got)
	}
	reloaded := NewCollection(7, []int{0})
	if err := reloaded.Load(db); err != nil {
		t.Fatal(err)
	}
	if err := reloaded.LoadIndexKey(db, 8, textKey); err != nil {
		t.Fatal(err)
	}
	if err := reloaded.CheckIndexes(); err != nil {
		t.Fatal(err)
	}
}
