package sql

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// fuzzCopyTable is the table the binary COPY fuzz target decodes into:
// one column of each kind of binary receive function.
var fuzzCopyTable = &planner.Relation{Name: "f", Columns: []planner.Column{
	{Name: "i", Type: repr.Int4}, {Name: "t", Type: repr.Text}, {Name: "n", Type: repr.Numeric},
	{Name: "a", Type: repr.ArrayOf(repr.Int8)}, {Name: "ts", Type: repr.TimestampTZ},
}}

// binaryCopySeed encodes rows of fuzzCopyTable's types as a binary COPY
// stream, as PostgreSQL (and pgx's CopyFrom) send it.
func binaryCopySeed(t testing.TB, rows ...[]string) []byte {
	buf := append([]byte{}, binaryCopySignature...)
	buf = binary.BigEndian.AppendUint64(buf, 0)
	for _, r := range rows {
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(r)))
		for i, v := range r {
			if v == "NULL" {
				buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
				continue
			}
			typ := fuzzCopyTable.Columns[i].Type
			d, err := repr.ParseText(v, typ, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			field, err := repr.AppendBinary(nil, d, typ)
			if err != nil {
				t.Fatal(err)
			}
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(field)))
			buf = append(buf, field...)
		}
	}
	return binary.BigEndian.AppendUint16(buf, 0xFFFF)
}

// FuzzBinaryCopy feeds arbitrary bytes to the binary COPY FROM decoder:
// it must return rows or an error, never panic, and a stream it accepts
// must decode to rows of the table's width.
func FuzzBinaryCopy(f *testing.F) {
	f.Add(binaryCopySeed(f, []string{"1", "one", "1.50", "{1,NULL,3}", "2024-02-29 13:45:01+02"},
		[]string{"NULL", "", "-0.001", "{}", "NULL"}))
	f.Add(binaryCopySeed(f))
	f.Add(binaryCopySignature)
	f.Fuzz(func(t *testing.T, data []byte) {
		cf := &copyFormat{binary: true, table: fuzzCopyTable, targets: []int{0, 1, 2, 3, 4}}
		rows, err := cf.read(bytes.NewReader(data), nil)
		if err != nil {
			if _, ok := err.(*repr.Error); !ok {
				t.Fatalf("error %T %v is not a user error", err, err)
			}
			return
		}
		for _, r := range rows {
			if len(r) != len(fuzzCopyTable.Columns) {
				t.Fatalf("row of width %d", len(r))
			}
		}
	})
}
