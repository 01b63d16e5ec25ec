package repr

import (
	"bytes"
	"testing"
)

// TestRowKeyExact checks that exact keys tell apart exactly the rows that
// are equal under Compare but not identical, still start with the rows'
// AppendRowKey, and decode back (with the hints) when the row is lossless.
func TestRowKeyExact(t *testing.T) {
	parse := func(s string, ty T) Datum {
		d, err := ParseText(s, ty, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	classes := [][]Datum{
		{parse("2", Numeric), parse("2.00", Numeric), parse("2.0", Numeric)},
		{parse("0", Numeric), parse("0.000", Numeric)},
		{parse("0", Float8), parse("-0", Float8)},
		{parse("1 day", IntervalT), parse("24 hours", IntervalT)},
		{parse("1 mon", IntervalT), parse("30 days", IntervalT)},
		{parse("{1.0,2}", ArrayOf(Numeric)), parse("{1,2.00}", ArrayOf(Numeric))},
	}
	for _, class := range classes {
		for i, a := range class {
			for j, b := range class {
				ra, rb := Row{NewInt(7), a}, Row{NewInt(7), b}
				if CompareRows(ra, rb) != 0 {
					t.Fatalf("%v and %v: not equal", a, b)
				}
				ka, kb := AppendRowKeyExact(nil, ra), AppendRowKeyExact(nil, rb)
				if !bytes.HasPrefix(ka, AppendRowKey(nil, ra)) {
					t.Errorf("%v: exact key does not start with the row key", a)
				}
				if bytes.Equal(ka, kb) != (i == j) {
					t.Errorf("%v and %v: exact keys equal %v", a, b, bytes.Equal(ka, kb))
				}
				if hints, ok := AppendKeyHints(nil, ra); ok {
					got, err := DecodeRowKeyExact(ka, hints)
					if err != nil || !identical(got[1], a) {
						t.Errorf("%v: decoded %v, %v", a, got, err)
					}
				}
			}
		}
	}
	plain := Row{NewInt(1), parse("x", Text)}
	if k := AppendRowKeyExact(nil, plain); !bytes.Equal(k, AppendRowKey(nil, plain)) {
		t.Errorf("a row without MultiRep values got a suffix")
	}
}
