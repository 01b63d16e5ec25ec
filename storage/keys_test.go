package storage

import (
	"bytes"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want []byte }{
		{[]byte("r"), []byte("s")},
		{[]byte{'r', 0, 0xFF}, []byte{'r', 1}},
		{[]byte{0xFF, 0xFF}, nil},
		{nil, nil},
	} {
		if got := prefixEnd(tc.in); !bytes.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("prefixEnd(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
}

// TestKeyOrder checks the layout's ordering promises: kinds are disjoint
// ranges, ids sort numerically, and a row key sorts inside its prefix.
func TestKeyOrder(t *testing.T) {
	ordered := [][]byte{
		CatalogKey(1), CatalogKey(2), CatalogKey(300),
		MetaKey("clock"), MetaKey("next_id"),
		RowKey(1, []byte("a")), RowKey(1, []byte("b")), RowKey(2, nil), RowKey(256, []byte("a")),
		StatePrefix(1), StatePrefix(1 << 40),
	}
	for i := 1; i < len(ordered); i++ {
		if bytes.Compare(ordered[i-1], ordered[i]) >= 0 {
			t.Errorf("%s does not sort before %s", PrettyKey(ordered[i-1]), PrettyKey(ordered[i]))
		}
	}
	if !bytes.HasPrefix(RowKey(7, []byte("k")), RowPrefix(7)) || bytes.HasPrefix(RowKey(7, nil), RowPrefix(1)) {
		t.Error("RowKey is not under its RowPrefix alone")
	}
	if !bytes.HasPrefix(CatalogKey(9), CatalogPrefix()) {
		t.Error("CatalogKey is not under CatalogPrefix")
	}
}

func TestPrettyKeyRoundTrip(t *testing.T) {
	for _, k := range [][]byte{
		MetaKey("next_id"), MetaKey("a/b"), CatalogKey(42), RowKey(3, []byte{0, 1, 0xFF, '/', 'x'}),
		RowPrefix(3), StatePrefix(5), append(StatePrefix(5), "agg/1"...), {}, {'r'}, {'r', 1}, {0, '/'},
	} {
		s := PrettyKey(k)
		back, err := ParsePrettyKey(s)
		if err != nil || !bytes.Equal(back, k) {
			t.Errorf("ParsePrettyKey(PrettyKey(%x) = %q) = %x, %v", k, s, back, err)
		}
	}
}
