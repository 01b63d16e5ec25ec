package repr

import (
	"bytes"
	"testing"
)

func mustRecord(t *testing.T, fields Row, types []T) Datum {
	t.Helper()
	d, err := NewRecord(fields, types)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRecordText checks record_out's quoting and the field types' output
// (a real prints as a real), alone and as array elements.
func TestRecordText(t *testing.T) {
	r := mustRecord(t, Row{NewInt(1), Null, NewText("a b"), NewText(""), NewText(`x"y\z`), NewFloat(float64(float32(0.1)))},
		[]T{Int4, Text, Text, Text, Text, Float4})
	if got, want := FormatText(r, Record, nil), `(1,,"a b","","x""y\\z",0.1)`; got != want {
		t.Errorf("record text %s, want %s", got, want)
	}
	arr := NewArray([]Datum{mustRecord(t, Row{NewInt(1)}, []T{Int4}), mustRecord(t, Row{NewText("a,b")}, []T{Text})})
	if got, want := FormatText(arr, ArrayOf(Record), nil), `{(1),"(\"a,b\")"}`; got != want {
		t.Errorf("record[] text %s, want %s", got, want)
	}
}

// TestRecordOfRecordArrays checks records whose fields are arrays of
// records, anonymous or of a named composite type: text output, the field
// types read back (an array of a composite type is not taken for a
// composite type), the value encoding's round trip, and the nesting bound
// counting a record inside an array as one level.
func TestRecordOfRecordArrays(t *testing.T) {
	inner := CompositeOf(20000)
	elems := NewArray([]Datum{mustRecord(t, Row{NewInt(1)}, []T{Int4}), mustRecord(t, Row{NewText("a,b")}, []T{Text})})
	for _, ft := range []T{ArrayOf(Record), ArrayOf(inner)} {
		r := mustRecord(t, Row{NewInt(7), elems}, []T{Int4, ft})
		if got, want := FormatText(r, Record, nil), `(7,"{(1),""(\\""a,b\\"")""}")`; got != want {
			t.Errorf("%s field: text %s, want %s", ft.Name(), got, want)
		}
		back, err := DecodeRow(AppendRow(nil, Row{r}))
		if err != nil || !Equal(back[0], r) {
			t.Fatalf("%s field: round trip: %v", ft.Name(), err)
		}
		if _, types := back[0].Record(); types[1] != ft {
			t.Errorf("field type read back as %+v, want %+v", types[1], ft)
		}
	}
	deep := mustRecord(t, Row{NewInt(0)}, []T{Int4})
	for i := 0; i <= maxRecordDepth; i++ {
		deep = mustRecord(t, Row{NewArray([]Datum{deep})}, []T{ArrayOf(inner)})
	}
	if _, err := DecodeRow(AppendRow(nil, Row{deep})); err == nil {
		t.Errorf("a record nested %d deep through arrays decoded", maxRecordDepth+2)
	}
}

// TestRecordOrder checks that the key encoding orders records as Compare
// does (record_cmp: fields in order, NULL last, shorter first) and that
// the value encoding round-trips.
func TestRecordOrder(t *testing.T) {
	i4 := []T{Int4, Int4}
	recs := []Datum{
		mustRecord(t, Row{NewInt(1)}, []T{Int4}),
		mustRecord(t, Row{NewInt(1), NewInt(2)}, i4),
		mustRecord(t, Row{NewInt(1), NewInt(3)}, i4),
		mustRecord(t, Row{NewInt(1), Null}, i4),
		mustRecord(t, Row{NewInt(2), NewInt(0)}, i4),
		mustRecord(t, Row{Null, NewInt(0)}, i4),
	}
	for i, a := range recs {
		for j, b := range recs {
			c := Compare(a, b)
			if want := cmpInt(i, j); c != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", FormatText(a, Record, nil), FormatText(b, Record, nil), c, want)
			}
			if k := bytes.Compare(AppendKey(nil, a), AppendKey(nil, b)); k != c {
				t.Errorf("key order of %s, %s = %d, Compare %d", FormatText(a, Record, nil), FormatText(b, Record, nil), k, c)
			}
		}
		back, err := DecodeRow(AppendRow(nil, Row{a, NewArray([]Datum{a})}))
		if err != nil || !Equal(back[0], a) || !Equal(back[1].Array()[0], a) {
			t.Errorf("round trip of %s: %v", FormatText(a, Record, nil), err)
		}
	}
}
