package storage

import (
	"testing"

	"github.com/eddydb/eddy/sql/types"
)

// FuzzDecodeValue checks that decodeValue never panics and that whatever
// it accepts re-encodes to a value that decodes to the same row and count.
func FuzzDecodeValue(f *testing.F) {
	f.Add(appendValue(nil, types.Row{types.NewInt(1), types.NewText("a"), types.Null}, 1))
	f.Add(appendValue(nil, types.Row{types.NewFloat(2.5), types.NewBool(true)}, 1<<40))
	f.Add(appendValue(nil, types.Row{}, 3))
	f.Add([]byte{0})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		row, count, err := decodeValue(b)
		if err != nil {
			return
		}
		if count < 1 {
			t.Fatalf("accepted count %d", count)
		}
		row2, count2, err := decodeValue(appendValue(nil, row, count))
		if err != nil || count2 != count || types.CompareRows(row, row2) != 0 {
			t.Fatalf("round trip: %v %d %v -> %v %d %v", row, count, err, row2, count2, err)
		}
	})
}

// TestDecodeValueRejects lists malformed values decodeValue must refuse.
func TestDecodeValueRejects(t *testing.T) {
	good := appendValue(nil, types.Row{types.NewInt(7)}, 2)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"count 0":   append([]byte{0}, good[1:]...),
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte{}, good...), 0),
		"overflow":  {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00},
	} {
		if _, _, err := decodeValue(b); err == nil {
			t.Errorf("%s: decodeValue(%x) accepted", name, b)
		}
	}
	if row, n, err := decodeValue(good); err != nil || n != 2 || row[0].Int() != 7 {
		t.Fatalf("good value: %v %d %v", row, n, err)
	}
}
