package format

import (
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// csvDecoder is FORMAT PLAIN ENCODE CSV: one CSV line per record, fields
// by position (see the package doc).
type csvDecoder struct {
	cols    []connector.Column
	keyCols []int
	delim   byte
	buf     []byte // unescaped quoted field
}

// newCSVDecoder validates the CSV options.
func newCSVDecoder(cols []connector.Column, keyCols []int, opts map[string]string) (Decoder, error) {
	if err := rejectOptions(opts, "delimiter", "without_header"); err != nil {
		return nil, err
	}
	d := &csvDecoder{cols: cols, keyCols: keyCols, delim: ','}
	if v, ok := opts["delimiter"]; ok {
		if len(v) != 1 || v[0] == '"' || v[0] == '\n' || v[0] == '\r' {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "CSV delimiter must be a single one-byte character other than quote and newline")
		}
		d.delim = v[0]
	}
	if v, ok := opts["without_header"]; ok && !strings.EqualFold(v, "true") {
		return nil, repr.Unsupported("ENCODE CSV with a header line")
	}
	return d, nil
}

// errCSV is a 22P02 CSV syntax error.
func errCSV(format string, args ...any) error {
	return repr.Errorf(repr.CodeInvalidText, "invalid CSV record: "+format, args...)
}

// Decode implements Decoder.
func (d *csvDecoder) Decode(key, value []byte, out *Changes) error {
	if len(value) == 0 {
		return nil
	}
	value = trimNewline(value)
	row := out.newRow(len(d.cols))
	n, err := d.fields(value, row)
	if err == nil && n != len(d.cols) {
		err = errCSV("%d fields, expected %d", n, len(d.cols))
	}
	if err == nil {
		err = checkKey(row, d.cols, d.keyCols)
	}
	if err != nil {
		return err
	}
	out.add(Insert, row, out.keyOf(row, d.keyCols))
	return nil
}

// trimNewline removes one trailing "\n" or "\r\n".
func trimNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
	}
	return b
}

// fields splits b into fields and converts each into row, returning the
// number of fields seen (conversion stops past len(row)).
func (d *csvDecoder) fields(b []byte, row repr.Row) (int, error) {
	n := 0
	for i := 0; ; n++ {
		field, quoted, next, err := d.field(b, i)
		if err != nil {
			return n, err
		}
		if n < len(row) && (quoted || len(field) > 0) {
			if row[n], err = repr.ParseText(string(field), d.cols[n].Type, nil); err != nil {
				return n, inColumn(err, d.cols[n].Name)
			}
		}
		if next >= len(b) {
			return n + 1, nil
		}
		i = next + 1 // skip the delimiter
	}
}

// field scans the field starting at i and returns its contents, whether it
// was quoted, and the offset of the delimiter after it (len(b) at the end).
func (d *csvDecoder) field(b []byte, i int) ([]byte, bool, int, error) {
	if i < len(b) && b[i] == '"' {
		return d.quoted(b, i+1)
	}
	start := i
	for ; i < len(b) && b[i] != d.delim; i++ {
		switch b[i] {
		case '"':
			return nil, false, i, errCSV("quote inside an unquoted field at byte %d", i)
		case '\n', '\r':
			return nil, false, i, errCSV("more than one line")
		}
	}
	return b[start:i], false, i, nil
}

// quoted scans a quoted field whose opening quote ends before i.
func (d *csvDecoder) quoted(b []byte, i int) ([]byte, bool, int, error) {
	d.buf = d.buf[:0]
	for i < len(b) {
		c := b[i]
		i++
		if c != '"' {
			d.buf = append(d.buf, c)
			continue
		}
		if i < len(b) && b[i] == '"' {
			d.buf = append(d.buf, '"')
			i++
			continue
		}
		if i < len(b) && b[i] != d.delim {
			return nil, true, i, errCSV("unexpected data after a quoted field at byte %d", i)
		}
		return d.buf, true, i, nil
	}
	return nil, true, i, errCSV("unterminated quoted field")
}
