package repr

import (
	"bytes"
	"testing"
)

// TestEnumOrder checks that enum values order by sort order, not label,
// in Compare and in the key encoding alike, and that the row codec, the
// key decoding and the plan-text form give the same values back.
func TestEnumOrder(t *testing.T) {
	vals := []Datum{ // in sort order, labels out of alphabetical order
		NewEnum(EnumLabel{Label: "zero", Order: -1}),
		NewEnum(EnumLabel{Label: "sad", Order: 1}),
		NewEnum(EnumLabel{Label: "meh", Order: 1.5}),
		NewEnum(EnumLabel{Label: "ok", Order: 2}),
		NewEnum(EnumLabel{Label: "a", Order: 3}),
	}
	for i := range vals {
		for j := range vals {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := Compare(vals[i], vals[j]); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", vals[i].EnumLabel(), vals[j].EnumLabel(), got, want)
			}
			if got := bytes.Compare(AppendKey(nil, vals[i]), AppendKey(nil, vals[j])); got != want {
				t.Errorf("key order of %v, %v = %d, want %d", vals[i].EnumLabel(), vals[j].EnumLabel(), got, want)
			}
		}
	}
	row := append(Row{Null}, vals...)
	back, err := DecodeRow(AppendRow(nil, row))
	if err != nil || CompareRows(back, row) != 0 {
		t.Fatalf("row codec: %v, %v", back, err)
	}
	hints, ok := AppendKeyHints(nil, row)
	if !ok {
		t.Fatal("enum keys should decode")
	}
	if back, err = DecodeRowKey(AppendRowKey(nil, row), hints); err != nil || CompareRows(back, row) != 0 {
		t.Fatalf("key decoding: %v, %v", back, err)
	}
	typ := EnumOf(20000)
	for _, v := range vals {
		got, err := ParseText(EnumInternalText(v), typ, nil)
		if err != nil || Compare(got, v) != 0 || got.EnumLabel() != v.EnumLabel() {
			t.Errorf("plan text of %v read back as %v, %v", v.EnumLabel(), got.EnumLabel(), err)
		}
		if s := FormatText(v, typ, nil); s != v.EnumLabel().Label {
			t.Errorf("text of %v = %q", v.EnumLabel(), s)
		}
	}
	arr := NewArray([]Datum{vals[2], Null, vals[0]})
	if got, err := ParseText(EnumArrayInternalText(arr), ArrayOf(typ), nil); err != nil || Compare(got, arr) != 0 {
		t.Errorf("plan text of an enum array read back as %v, %v", got, err)
	}
	if _, err := ParseText("sad", typ, nil); err == nil {
		t.Error("a bare label read without the catalog")
	}
}

// TestEnumInRecord checks that a record's header keeps its enum fields'
// types (enums and arrays of enums), which a bare user OID would read
// back as a composite type.
func TestEnumInRecord(t *testing.T) {
	e := EnumOf(20000)
	v := NewEnum(EnumLabel{Label: "ok", Order: 2})
	r, err := NewRecord(Row{v, NewArray([]Datum{v})}, []T{e, ArrayOf(e)})
	if err != nil {
		t.Fatal(err)
	}
	fields, types := r.Record()
	if types[0] != e || types[1] != ArrayOf(e) || Compare(fields[0], v) != 0 {
		t.Fatalf("record fields %v of types %v", fields, types)
	}
	if got := FormatText(r, Record, nil); got != "(ok,{ok})" {
		t.Errorf("record text = %q", got)
	}
}
