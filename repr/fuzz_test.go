package repr

import (
	"bytes"
	"testing"
	"time"
)

// fuzzTypes are the types the fuzz targets pick from by index.
var fuzzTypes = []T{Bool, Int2, Int4, Int8, Float4, Float8, Numeric, NumericPS(5, 2),
	Text, Varchar(3), Char(4), Bytea, Date, TimeT, Timestamp, TimestampTZ, IntervalT, JSONB}

// FuzzParseText: ParseText never panics, and what it accepts formats to
// text that parses back to the same value.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"1", " 12 ", "1e3", "NaN", "-Infinity", "1.005", `\x0102`, `\001`,
		"2024-01-02 03:04:05.123+02", "epoch", "infinity", "1 year 2 mons 3 days 04:05:06",
		"P1DT2H", "1h30m", `{"a": [1, 2]}`, "Jan 2 2024", "12:00 pm", "abcd  ", "0Z0:00", "1-05"} {
		for i := range fuzzTypes {
			f.Add(s, uint8(i))
		}
	}
	loc, _ := time.LoadLocation("America/New_York")
	f.Fuzz(func(t *testing.T, s string, ti uint8) {
		typ := fuzzTypes[int(ti)%len(fuzzTypes)]
		d, err := ParseText(s, typ, loc)
		if err != nil {
			return
		}
		out := FormatText(d, typ, loc)
		back, err := ParseText(out, typ, loc)
		if err != nil || !identical(back, d) && typ.Family != FamText {
			t.Fatalf("%s %q -> %q -> %s, %v", typ, s, out, back, err)
		}
	})
}

// FuzzParseBinary: ParseBinary never panics and re-encodes what it accepts.
func FuzzParseBinary(f *testing.F) {
	for i, typ := range fuzzTypes {
		d, _ := ParseText("1", typ, nil)
		b, _ := AppendBinary(nil, d, typ)
		f.Add(b, uint8(i))
	}
	f.Add([]byte{0, 2, 0, 0, 0, 0, 0, 2, 0, 1, 0, 99}, uint8(6))
	f.Fuzz(func(t *testing.T, b []byte, ti uint8) {
		typ := fuzzTypes[int(ti)%len(fuzzTypes)]
		d, err := ParseBinary(b, typ)
		if err != nil {
			return
		}
		if _, err := AppendBinary(nil, d, typ); err != nil {
			t.Fatal(err)
		}
		_ = FormatText(d, typ, nil)
	})
}

// FuzzDecodeRow: DecodeRow never panics, and what it accepts re-encodes
// to a row that decodes identically.
func FuzzDecodeRow(f *testing.F) {
	row := Row{Null, NewInt(-5), NewText("abc"), NewFloat(1.5), NewInterval(Interval{1, 2, 3})}
	f.Add(AppendRow(nil, row))
	f.Add([]byte{1, byte(FamNumeric), 0, 2, 1, 5})
	f.Add(AppendRow(nil, Row{NewArrayDims([]Datum{NewInt(1), Null, NewInt(3), NewInt(4)}, []int{2, 2}), NewArray([]Datum{NewText("x")})}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRow(b)
		if len(b) > 0 && int(b[0]) < 64 {
			// Skipping columns never panics and accepts what DecodeRow does.
			need := make([]bool, b[0])
			for i := range need {
				need[i] = i%2 == 0
			}
			if err2 := DecodeRowCols(make(Row, len(need)), b, need, nil); err == nil && err2 != nil {
				t.Fatalf("DecodeRow accepts what DecodeRowCols refuses: %v", err2)
			}
		}
		if err != nil {
			return
		}
		back, err := DecodeRow(AppendRow(nil, r))
		if err != nil || len(back) != len(r) {
			t.Fatalf("re-decode: %v", err)
		}
		for i := range r {
			if !identical(back[i], r[i]) {
				t.Fatalf("column %d: %s vs %s", i, back[i], r[i])
			}
			_ = r[i].String()
		}
	})
}

// FuzzDecodeRowKey: DecodeRowKey never panics, and what it accepts is
// canonical: re-encoding the decoded row gives back the same key.
func FuzzDecodeRowKey(f *testing.F) {
	row := Row{Null, NewInt(-5), NewText("a\x00b"), NewBool(true)}
	fams, _ := AppendKeyHints(nil, row)
	f.Add(AppendRowKey(nil, row), fams)
	f.Add([]byte{keyValue, 0, 0x01}, []byte{byte(FamText)})
	f.Fuzz(func(t *testing.T, key, fams []byte) {
		r, err := DecodeRowKey(key, fams)
		if err != nil {
			return
		}
		if back := AppendRowKey(nil, r); !bytes.Equal(back, key) {
			t.Fatalf("re-encoded %x, decoded from %x", back, key)
		}
	})
}
