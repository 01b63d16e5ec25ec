package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
	"github.com/valyala/fastjson"
)

// The JSON decoder choice. Each benchmark decodes the same small records
// into rows of the same columns, converting values with the same rules, so
// the difference is the JSON layer alone:
//
//	Scanner     the hand-rolled single-pass scanner (the Decoder)
//	Fastjson    github.com/valyala/fastjson: parse into its reusable tree, visit
//	EncodingJSON encoding/json into map[string]any with UseNumber
//
// Run: go test ./server/connector/format -run XXX -bench JSONDecode -count 10
// (see the commit message and ARCHITECTURE.md for the numbers).

// benchCols are the columns of the benchmark records.
var benchCols = []connector.Column{
	{Name: "id", Type: repr.Int8}, {Name: "name", Type: repr.Text},
	{Name: "price", Type: repr.Float8}, {Name: "active", Type: repr.Bool},
	{Name: "qty", Type: repr.Int4},
}

// benchRecords returns n distinct small records (~80 bytes).
func benchRecords(n int) [][]byte {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = fmt.Appendf(nil, `{"id":%d,"name":"user-%d","price":%d.25,"active":%t,"qty":%d}`, 1000000+i, i, i%1000, i%2 == 0, i%77)
	}
	return recs
}

// runDecodeBench decodes the records in a loop and reports records/s.
func runDecodeBench(b *testing.B, decode func(rec []byte, out *Changes) error) {
	recs := benchRecords(1024)
	var out Changes
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if out.Len() >= 1024 {
			out.Reset()
		}
		if err := decode(recs[n%len(recs)], &out); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkJSONDecodeScanner(b *testing.B) {
	dec, err := NewDecoder(FormatPlain, EncodeJSON, benchCols, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	runDecodeBench(b, func(rec []byte, out *Changes) error { return dec.Decode(nil, rec, out) })
}

func BenchmarkJSONDecodeFastjson(b *testing.B) {
	var p fastjson.Parser
	index := map[string]int{}
	for i, c := range benchCols {
		index[c.Name] = i
	}
	runDecodeBench(b, func(rec []byte, out *Changes) error {
		v, err := p.ParseBytes(rec)
		if err != nil {
			return err
		}
		obj, err := v.Object()
		if err != nil {
			return err
		}
		row := out.newRow(len(benchCols))
		obj.Visit(func(key []byte, v *fastjson.Value) {
			col, ok := index[string(key)]
			if !ok || err != nil {
				return
			}
			row[col], err = fastjsonDatum(v, benchCols[col].Type)
		})
		out.add(Insert, row, nil)
		return err
	})
}

// fastjsonDatum converts a fastjson value with the Decoder's rules.
func fastjsonDatum(v *fastjson.Value, t repr.T) (repr.Datum, error) {
	switch v.Type() {
	case fastjson.TypeString:
		return repr.ParseText(string(v.GetStringBytes()), t, nil)
	case fastjson.TypeNumber:
		raw := v.MarshalTo(nil)
		return convertNumber(raw, !bytes.ContainsAny(raw, ".eE"), t)
	case fastjson.TypeTrue, fastjson.TypeFalse:
		return repr.NewBool(v.Type() == fastjson.TypeTrue), nil
	}
	return repr.Null, nil
}

func BenchmarkJSONDecodeEncodingJSON(b *testing.B) {
	runDecodeBench(b, func(rec []byte, out *Changes) error {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(rec))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return err
		}
		row := out.newRow(len(benchCols))
		for i, c := range benchCols {
			var err error
			switch v := m[c.Name].(type) {
			case string:
				row[i], err = repr.ParseText(v, c.Type, nil)
			case json.Number:
				_, ierr := strconv.ParseInt(string(v), 10, 64)
				row[i], err = convertNumber([]byte(v), ierr == nil, c.Type)
			case bool:
				row[i] = repr.NewBool(v)
			}
			if err != nil {
				return err
			}
		}
		out.add(Insert, row, nil)
		return nil
	})
}

// BenchmarkDecodeFormats measures every decoder on typical records.
func BenchmarkDecodeFormats(b *testing.B) {
	cols := append(benchCols[:len(benchCols):len(benchCols)], connector.Column{Name: "ts", Type: repr.Timestamp})
	cases := []struct {
		name, format, encode string
		keyCols              []int
		key, value           string
	}{
		{"plain-json-ts", FormatPlain, EncodeJSON, nil, "", `{"id":1000001,"name":"user-1","price":1.25,"active":true,"qty":3,"ts":"2024-01-02 03:04:05"}`},
		{"upsert-json", FormatUpsert, EncodeJSON, []int{0}, `{"id":1000001}`, `{"id":1000001,"name":"user-1","price":1.25,"active":true,"qty":3}`},
		{"upsert-tombstone", FormatUpsert, EncodeJSON, []int{0}, `{"id":1000001}`, ``},
		{"debezium-json-u", FormatDebezium, EncodeJSON, nil, "", `{"payload":{"before":{"id":1,"name":"a","price":1.25,"active":true,"qty":3},"after":{"id":1,"name":"b","price":1.5,"active":false,"qty":4},"source":{"db":"x","table":"t"},"op":"u","ts_ms":1}}`},
		{"plain-csv", FormatPlain, EncodeCSV, nil, "", `1000001,user-1,1.25,true,3,2024-01-02 03:04:05`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dec, err := NewDecoder(c.format, c.encode, cols, c.keyCols, nil)
			if err != nil {
				b.Fatal(err)
			}
			key, value := []byte(c.key), []byte(c.value)
			runDecodeBench(b, func(_ []byte, out *Changes) error { return dec.Decode(key, value, out) })
		})
	}
}
