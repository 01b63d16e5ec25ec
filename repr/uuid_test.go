package repr

import (
	"bytes"
	"testing"
)

// TestUUIDRoundTrips checks that a uuid survives its text, binary, row and
// key encodings, and that key order is uuid order.
func TestUUIDRoundTrips(t *testing.T) {
	lo, err := ParseText("10eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", UUID, nil)
	if err != nil {
		t.Fatal(err)
	}
	hi, err := ParseText("{A0EEBC999C0B4EF8BB6D6BB9BD380A11}", UUID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatText(hi, UUID, nil); got != "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" {
		t.Errorf("text: %s", got)
	}
	bin, err := AppendBinary(nil, hi, UUID)
	if err != nil || len(bin) != 16 {
		t.Fatalf("binary: %x %v", bin, err)
	}
	if back, err := ParseBinary(bin, UUID); err != nil || Compare(back, hi) != 0 {
		t.Errorf("binary round trip: %v %v", back, err)
	}
	row := Row{hi, Null, lo}
	if back, err := DecodeRow(AppendRow(nil, row)); err != nil || Compare(back[0], hi) != 0 || Compare(back[2], lo) != 0 {
		t.Errorf("row round trip: %v %v", back, err)
	}
	hints, ok := AppendKeyHints(nil, row)
	if !ok {
		t.Fatal("uuid rows should decode from their keys")
	}
	if back, err := DecodeRowKey(AppendRowKey(nil, row), hints); err != nil || Compare(back[0], hi) != 0 {
		t.Errorf("key round trip: %v %v", back, err)
	}
	if bytes.Compare(AppendKey(nil, lo), AppendKey(nil, hi)) >= 0 || Compare(lo, hi) >= 0 {
		t.Error("key order disagrees with uuid order")
	}
	for _, bad := range []string{"", "a0eebc99", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "{a0eebc999c0b4ef8bb6d6bb9bd380a11", "-a0eebc999c0b4ef8bb6d6bb9bd380a11"} {
		if _, err := ParseText(bad, UUID, nil); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
