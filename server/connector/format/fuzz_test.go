package format

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// fuzzCols covers every conversion path: ints of each width, float,
// numeric with a scale, text, varchar, bool, jsonb and date/time types.
var fuzzCols = []connector.Column{
	{Name: "id", Type: repr.Int8}, {Name: "s", Type: repr.Int2}, {Name: "i", Type: repr.Int4},
	{Name: "f", Type: repr.Float4}, {Name: "n", Type: repr.NumericPS(8, 2)},
	{Name: "t", Type: repr.Text}, {Name: "v", Type: repr.Varchar(4)}, {Name: "b", Type: repr.Bool},
	{Name: "j", Type: repr.JSONB}, {Name: "ts", Type: repr.TimestampTZ}, {Name: "d", Type: repr.Date},
	{Name: "iv", Type: repr.IntervalT}, {Name: "by", Type: repr.Bytea},
}

// jsonSeeds are seed records for the JSON fuzz targets.
var jsonSeeds = []string{
	`{"id": 1, "s": 2, "i": 3, "f": 1.5, "n": 12.345, "t": "x\u00e9\n", "v": "ab", "b": true, "j": {"a": [1, null]}, "ts": "2024-01-01 00:00:00+01", "d": "2024-02-29", "iv": "1 day", "by": "\\x00ff"}`,
	`{"before": null, "after": {"id": 1, "t": "a"}, "op": "c"}`,
	`{"payload": {"before": {"id": 1}, "after": {"id": 1, "t": "b"}, "op": "u"}}`,
	`{"op": "d", "before": {"id": 2}}`,
	`{"id": 1e400, "f": -0.0, "n": 1E-7, "t": "\ud83d\ude00\ud800"}`,
	`[{"id":1}]`, `null`, ``, `{"id":`, `{"j": [[[[[]]]]]}`,
}

// checkChanges asserts the decoder's output invariants.
func checkChanges(t *testing.T, out *Changes, mark int, cols []connector.Column, keyCols []int, err error) {
	if err != nil {
		if out.Len() != mark {
			t.Fatalf("error %v with %d changes appended", err, out.Len()-mark)
		}
		return
	}
	for _, c := range out.List[mark:] {
		if c.Kind != Tombstone && len(c.Row) != len(cols) {
			t.Fatalf("row %v has %d datums, want %d", c.Row, len(c.Row), len(cols))
		}
		for i, d := range c.Row {
			if !d.IsNull() && d.Family() != cols[i].Type.Family {
				t.Fatalf("column %s holds %v", cols[i].Name, d)
			}
		}
		if len(c.Key) != len(keyCols) {
			t.Fatalf("key %v, want %d datums", c.Key, len(keyCols))
		}
	}
}

// fuzzDecoder decodes (key, value) with the given format and checks the
// invariants; it must never panic.
func fuzzDecoder(f *testing.F, format, encode string, keyCols []int) {
	dec, err := NewDecoder(format, encode, fuzzCols, keyCols, nil)
	if err != nil {
		f.Fatal(err)
	}
	var out Changes
	f.Fuzz(func(t *testing.T, key, value []byte) {
		mark := out.Len()
		err := dec.Decode(key, value, &out)
		checkChanges(t, &out, mark, fuzzCols, keyCols, err)
		if out.Len() > 1000 {
			out.Reset()
		}
	})
}

// addSeeds adds each seed as a value, with a key.
func addSeeds(f *testing.F, seeds []string) {
	for _, s := range seeds {
		f.Add([]byte(`{"id": 7}`), []byte(s))
		f.Add([]byte(`7`), []byte(s))
	}
}

func FuzzPlainJSON(f *testing.F) {
	addSeeds(f, jsonSeeds)
	fuzzDecoder(f, FormatPlain, EncodeJSON, nil)
}

func FuzzUpsertJSON(f *testing.F) {
	addSeeds(f, jsonSeeds)
	fuzzDecoder(f, FormatUpsert, EncodeJSON, []int{0})
}

func FuzzDebeziumJSON(f *testing.F) {
	addSeeds(f, jsonSeeds)
	fuzzDecoder(f, FormatDebezium, EncodeJSON, []int{0, 5})
}

func FuzzCSV(f *testing.F) {
	addSeeds(f, []string{
		"1,2,3,1.5,12.34,x,ab,t,{},2024-01-01,2024-01-01,1 day,\\x00\n",
		`1,,,,,"a,""b",,,,,,,`, `"unterminated`, `1,"x"y`, "1,\r\n",
	})
	fuzzDecoder(f, FormatPlain, EncodeCSV, []int{0})
}

// FuzzScanner checks the scanner against encoding/json: it accepts exactly
// the texts json.Valid accepts, and unescapes strings as json.Unmarshal
// does (for valid UTF-8 without lone surrogates, where the two agree).
func FuzzScanner(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`"\ud83d\ude00 \u00e9 \/ \b\f\n\r\t \\ \""`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s scanner
		s.reset(b)
		k, v, _, err := s.value(0)
		if err == nil {
			err = s.end()
		}
		if valid := json.Valid(b); valid != (err == nil) {
			t.Fatalf("json.Valid=%v, scanner error %v", valid, err)
		}
		if err != nil || k != vString || !utf8.Valid(b) || strings.Contains(string(b), `\ud`) || strings.Contains(string(b), `\uD`) {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if string(v) != want {
			t.Fatalf("unescaped %q, encoding/json %q", v, want)
		}
	})
}
