package repr

import "testing"

// TestTrimBpchar checks that TrimBpchar makes values that bpchar's =
// calls equal compare equal, through records, nested records and arrays,
// and leaves the others, and their differences, alone.
func TestTrimBpchar(t *testing.T) {
	rec := func(fields Row, types ...T) Datum {
		d, err := NewRecord(fields, types)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bp, bpArr := Char(0), ArrayOf(Char(0))
	for _, tc := range []struct {
		name  string
		t     T
		a, b  Datum
		equal bool
	}{
		{"bpchar", bp, NewText("ab"), NewText("ab  "), true},
		{"bpchar differs", bp, NewText("ab"), NewText(" ab"), false},
		{"text kept", Text, NewText("ab"), NewText("ab  "), false},
		{"array of bpchar", bpArr, NewArray([]Datum{NewText("a "), Null}), NewArray([]Datum{NewText("a"), Null}), true},
		{"array of text kept", ArrayOf(Text), NewArray([]Datum{NewText("a ")}), NewArray([]Datum{NewText("a")}), false},
		{"record", Record, rec(Row{NewText("ab"), NewInt(1)}, bp, Int4), rec(Row{NewText("ab   "), NewInt(1)}, bp, Int4), true},
		{"record other field", Record, rec(Row{NewText("ab"), NewInt(1)}, bp, Int4), rec(Row{NewText("ab "), NewInt(2)}, bp, Int4), false},
		{"record text field", Record, rec(Row{NewText("ab")}, Text), rec(Row{NewText("ab ")}, Text), false},
		{"record array field", Record, rec(Row{NewArray([]Datum{NewText("x ")})}, bpArr), rec(Row{NewArray([]Datum{NewText("x")})}, bpArr), true},
		{"nested record", Record, rec(Row{rec(Row{NewText("ab ")}, bp)}, Record), rec(Row{rec(Row{NewText("ab")}, bp)}, Record), true},
		{"array of records", ArrayOf(Record), NewArray([]Datum{rec(Row{NewText("a ")}, bp)}), NewArray([]Datum{rec(Row{NewText("a")}, bp)}), true},
	} {
		ta, tb := TrimBpchar(tc.a, tc.t), TrimBpchar(tc.b, tc.t)
		if got := Compare(ta, tb) == 0; got != tc.equal {
			t.Errorf("%s: equal after trimming = %v, want %v", tc.name, got, tc.equal)
		}
		if Compare(TrimBpchar(ta, tc.t), ta) != 0 {
			t.Errorf("%s: trimming twice changes the value", tc.name)
		}
	}
	if d := rec(Row{NewInt(1)}, Int4); TrimBpchar(d, Record).s != d.s {
		t.Errorf("a record without bpchar fields changed")
	}
}
