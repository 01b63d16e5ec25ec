package storage

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// appendValue appends the first (full-row) form of (row, count) to buf.
func appendValue(buf []byte, row repr.Row, count int64) []byte {
	return appendEntryValue(buf, repr.AppendRow(nil, row), count)
}

// FuzzDecodeValue checks that decodeStored never panics and that whatever
// it accepts re-encodes to a value that decodes to the same row and count.
func FuzzDecodeValue(f *testing.F) {
	keyed := repr.Row{repr.NewInt(1), repr.NewText("a"), repr.Null}
	fams, _ := repr.AppendKeyHints([]byte{keyedForm}, keyed)
	f.Add([]byte(nil), appendValue(nil, keyed, 1))
	f.Add(repr.AppendRowKey(nil, keyed), appendEntryValue(nil, fams, 5))
	f.Add([]byte(nil), appendValue(nil, repr.Row{repr.NewFloat(2.5), repr.NewBool(true)}, 1<<40))
	f.Add([]byte(nil), appendValue(nil, repr.Row{}, 3))
	f.Add([]byte(nil), []byte{0})
	f.Add([]byte(nil), []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, key, b []byte) {
		row, count, val, err := decodeStored(key, b)
		if err != nil {
			return
		}
		if count < 1 {
			t.Fatalf("accepted count %d", count)
		}
		row2, count2, _, err := decodeStored(key, appendEntryValue(nil, val, count))
		if err != nil || count2 != count || repr.CompareRows(row, row2) != 0 {
			t.Fatalf("round trip: %v %d %v -> %v %d %v", row, count, err, row2, count2, err)
		}
	})
}

// TestDecodeValueRejects lists malformed values decodeStored must refuse.
func TestDecodeValueRejects(t *testing.T) {
	good := appendValue(nil, repr.Row{repr.NewInt(7)}, 2)
	row := repr.Row{repr.NewInt(7), repr.NewText("x")}
	key := repr.AppendRowKey(nil, row)
	fams, _ := repr.AppendKeyHints([]byte{keyedForm}, row)
	keyed := appendEntryValue(nil, fams, 3)
	for name, c := range map[string]struct{ key, value []byte }{
		"empty":            {nil, nil},
		"count 0":          {nil, append([]byte{0}, good[1:]...)},
		"truncated":        {nil, good[:len(good)-1]},
		"trailing":         {nil, append(append([]byte{}, good...), 0)},
		"overflow":         {nil, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00}},
		"keyed, count 0":   {key, []byte{keyedForm, 0, byte(repr.FamInt), byte(repr.FamText)}},
		"keyed, short key": {key[:len(key)-1], keyed},
		"keyed, lossy fam": {key, []byte{keyedForm, 3, byte(repr.FamNumeric), byte(repr.FamText)}},
	} {
		if _, _, _, err := decodeStored(c.key, c.value); err == nil {
			t.Errorf("%s: decodeStored(%x, %x) accepted", name, c.key, c.value)
		}
	}
	if r, n, _, err := decodeStored(nil, good); err != nil || n != 2 || r[0].Int() != 7 {
		t.Fatalf("good value: %v %d %v", r, n, err)
	}
	if r, n, _, err := decodeStored(key, keyed); err != nil || n != 3 || repr.CompareRows(r, row) != 0 {
		t.Fatalf("good keyed value: %v %d %v", r, n, err)
	}
}

// TestMultisetValueHintsFromKey checks that a multiset stores each row's
// value as appendRowValue computes it, whether Apply copied the hints
// from the row's exact key (a numeric makes the row MultiRep) or not,
// and that the stored row reads back identical (2.50 keeps its scale).
func TestMultisetValueHintsFromKey(t *testing.T) {
	dec, err := repr.ParseNumeric("2.50")
	if err != nil {
		t.Fatal(err)
	}
	rows := []repr.Row{
		{repr.NewInt(1), repr.NewNumeric(dec), repr.NewText("a")},
		{repr.NewInt(2), repr.NewText("b")},
		{repr.NewNumeric(dec), repr.NewFloat(0.5)},
		{repr.NewNumeric(dec), repr.Null},
	}
	c := NewCollection(9, nil)
	for _, row := range rows {
		if err := c.Apply(row, 1, nil); err != nil {
			t.Fatal(err)
		}
		key := repr.AppendRowKeyExact(nil, row)
		e, ok := c.tree.Get(probe(key))
		if !ok {
			t.Fatalf("%v: not stored", row)
		}
		if want := c.appendRowValue(nil, row); string(e.kv[e.klen:]) != string(want) {
			t.Fatalf("%v: stored value %x, want %x", row, e.kv[e.klen:], want)
		}
		if got := e.row(); string(repr.AppendDatums(nil, got)) != string(repr.AppendDatums(nil, row)) {
			t.Fatalf("%v read back as %v", row, got)
		}
	}
}
