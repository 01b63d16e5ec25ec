package format

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// TestGolden runs the decoder golden files. One command:
//
//	decode format=<plain|upsert|debezium> encode=<json|csv> cols=(name:type[:mod...], ...) [key=(name, ...)] [opt=(k:v, ...)] [keyed]
//
// Each input line is one record value; with keyed, a line is
// "<key> | <value>" (either side may be empty; "|" may not appear in either). The output has one line
// per change ("<kind> <row> key=<key>") or per bad record ("error <SQLSTATE>:
// <message> [<detail>]"), and "-" for a record yielding no change.
// A bad option or column list prints the NewDecoder error alone.
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "decode" {
				t.Fatalf("unknown command %q", d.Cmd)
			}
			return runDecode(t, d)
		})
	})
}

// runDecode builds the decoder from the command's arguments and decodes
// every input line.
func runDecode(t *testing.T, d *datadriven.TestData) string {
	var formatName, encode string
	d.ScanArgs(t, "format", &formatName)
	d.ScanArgs(t, "encode", &encode)
	cols := parseCols(t, d)
	keyCols := parseKey(t, d, cols)
	opts := map[string]string{}
	if arg, ok := d.Arg("opt"); ok {
		for _, v := range arg.Vals {
			k, val, _ := strings.Cut(v, ":")
			opts[k] = val
		}
	}
	dec, err := NewDecoder(formatName, encode, cols, keyCols, opts)
	if err != nil {
		return formatErr(err) + "\n"
	}
	var b strings.Builder
	var out Changes
	for _, line := range strings.Split(d.Input, "\n") {
		var key []byte
		value := line
		if d.HasArg("keyed") {
			k, v, _ := strings.Cut(line, "|")
			key, value = []byte(strings.TrimSpace(k)), strings.TrimSpace(v)
		}
		out.Reset()
		if err := dec.Decode(key, []byte(value), &out); err != nil {
			if out.Len() != 0 {
				t.Fatalf("%q: changes appended along with error %v", line, err)
			}
			b.WriteString(formatErr(err) + "\n")
			continue
		}
		if out.Len() == 0 {
			b.WriteString("-\n")
		}
		for _, c := range out.List {
			b.WriteString(formatChange(c) + "\n")
		}
	}
	return b.String()
}

// parseCols reads cols=(name:type[:mod...], ...).
func parseCols(t *testing.T, d *datadriven.TestData) []connector.Column {
	arg, ok := d.Arg("cols")
	if !ok {
		t.Fatal("decode needs cols")
	}
	var cols []connector.Column
	for _, v := range arg.Vals {
		parts := strings.Split(v, ":")
		var mods []int32
		for _, m := range parts[2:] {
			n, err := strconv.Atoi(m)
			if err != nil {
				t.Fatal(err)
			}
			mods = append(mods, int32(n))
		}
		typ, err := repr.TypeByName(parts[1], mods)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, connector.Column{Name: parts[0], Type: typ})
	}
	return cols
}

// parseKey reads key=(name, ...) into column indexes.
func parseKey(t *testing.T, d *datadriven.TestData, cols []connector.Column) []int {
	arg, ok := d.Arg("key")
	if !ok {
		return nil
	}
	var keys []int
	for _, v := range arg.Vals {
		i := 0
		for i < len(cols) && cols[i].Name != v {
			i++
		}
		keys = append(keys, i) // an unknown name gives len(cols): NewDecoder rejects it
	}
	return keys
}

// formatChange prints a change: kind, row literal and key.
func formatChange(c Change) string {
	s := c.Kind.String()
	if c.Row != nil {
		s += " " + formatRow(c.Row)
	}
	if c.Key != nil {
		s += " key=" + formatRow(c.Key)
	}
	return s
}

// formatRow prints datums as literals.
func formatRow(r repr.Row) string {
	parts := make([]string, len(r))
	for i, d := range r {
		parts[i] = d.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// formatErr prints an error with its SQLSTATE and detail.
func formatErr(err error) string {
	e := repr.ErrorFrom(err)
	s := fmt.Sprintf("error %s: %s", e.Code, e.Message)
	if e.Detail != "" {
		s += " [" + e.Detail + "]"
	}
	return s
}
