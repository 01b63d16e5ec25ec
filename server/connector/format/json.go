package format

import (
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// jsonDecoder holds what the three JSON formats share: the columns, the
// name index and the scanner.
type jsonDecoder struct {
	format  string
	cols    []connector.Column
	keyCols []int
	index   map[string]int
	s       scanner
}

// newJSONDecoder returns the decoder for FORMAT format ENCODE JSON.
func newJSONDecoder(format string, cols []connector.Column, keyCols []int, opts map[string]string) (Decoder, error) {
	if err := rejectOptions(opts); err != nil {
		return nil, err
	}
	d := &jsonDecoder{format: format, cols: cols, keyCols: keyCols, index: make(map[string]int, len(cols))}
	for i, c := range cols {
		d.index[c.Name] = i
	}
	switch format {
	case FormatPlain:
		return &plainJSON{d}, nil
	case FormatUpsert:
		if len(keyCols) == 0 {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "FORMAT UPSERT requires a primary key")
		}
		return &upsertJSON{d}, nil
	case FormatDebezium:
		return &debeziumJSON{d}, nil
	}
	return nil, repr.Unsupported("FORMAT %s", strings.ToUpper(format))
}

// lookup returns the column named key, or -1. guess is tried first:
// records usually list their keys in column order.
func (d *jsonDecoder) lookup(key []byte, guess int) int {
	if guess < len(d.cols) && d.cols[guess].Name == string(key) {
		return guess
	}
	if i, ok := d.index[string(key)]; ok {
		return i
	}
	return -1
}

// isEmpty reports whether a record value is absent: empty or whitespace.
func isEmpty(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// isNull reports whether b is empty or the JSON text null.
func (d *jsonDecoder) isNull(b []byte) bool {
	return isEmpty(b) || strings.TrimSpace(string(b)) == "null"
}

// object reads the object at the scanner into row, column by name.
// Unknown keys are validated and skipped.
func (d *jsonDecoder) object(row repr.Row, depth int) error {
	if err := d.s.expect('{'); err != nil {
		return err
	}
	next := 0
	for first := true; ; first = false {
		key, ok, err := d.s.nextKey(first)
		if err != nil || !ok {
			return err
		}
		col := d.lookup(key, next)
		if col < 0 {
			if _, _, _, err := d.s.value(depth + 1); err != nil {
				return err
			}
			continue
		}
		next = col + 1
		if row[col], err = d.field(col, depth+1); err != nil {
			return err
		}
	}
}

// field scans the next value and converts it to column col's type.
func (d *jsonDecoder) field(col, depth int) (repr.Datum, error) {
	k, v, start, err := d.s.value(depth)
	if err != nil {
		return repr.Null, err
	}
	t := d.cols[col].Type
	datum, err := convert(k, v, d.s.b[start:d.s.i], d.s.intOK, t)
	if err != nil {
		return repr.Null, inColumn(err, d.cols[col].Name)
	}
	return datum, nil
}

// inColumn adds the column name to a conversion error's detail.
func inColumn(err error, name string) error {
	e := repr.ErrorFrom(err)
	if e.Detail != "" {
		return e.WithDetail("%s (column %q)", e.Detail, name)
	}
	return e.WithDetail("column %q", name)
}

// convert turns one scanned JSON value into a datum of type t (see the
// package doc for the rules). v is the unescaped string or the number text;
// raw is the value's JSON text; intOK says a number is a plain integer.
func convert(k valueKind, v, raw []byte, intOK bool, t repr.T) (repr.Datum, error) {
	if k == vNull {
		return repr.Null, nil
	}
	switch t.Family {
	case repr.FamJSONB:
		return repr.ParseJSONB(string(raw))
	case repr.FamText:
		if k != vString {
			v = raw
		}
		return repr.ParseText(string(v), t, nil)
	}
	switch k {
	case vString:
		return repr.ParseText(string(v), t, nil)
	case vNumber:
		return convertNumber(v, intOK, t)
	case vTrue, vFalse:
		if t.Family == repr.FamBool {
			return repr.NewBool(k == vTrue), nil
		}
	}
	return repr.Null, errCast(k, t)
}

// convertNumber converts a JSON number as PostgreSQL's cast from jsonb.
func convertNumber(v []byte, intOK bool, t repr.T) (repr.Datum, error) {
	switch t.Family {
	case repr.FamInt:
		if intOK {
			if i, ok := parseSmallInt(v); ok && fitsWidth(i, t.Width) {
				return repr.NewInt(i), nil
			}
		}
		return repr.Cast(repr.NewJSONB(string(v)), repr.JSONB, t, nil, true)
	case repr.FamFloat, repr.FamNumeric:
		return repr.ParseText(string(v), t, nil)
	}
	return repr.Null, errCast(vNumber, t)
}

// parseSmallInt parses an optionally negative run of at most 18 digits,
// which cannot overflow int64.
func parseSmallInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// fitsWidth reports whether i fits an integer of width bits (0 means 64).
func fitsWidth(i int64, width int32) bool {
	switch width {
	case 16:
		return i >= -1<<15 && i < 1<<15
	case 32:
		return i >= -1<<31 && i < 1<<31
	}
	return true
}

// errCast is PostgreSQL's 22023 "cannot cast jsonb <kind> to type <t>".
func errCast(k valueKind, t repr.T) error {
	return repr.Errorf(repr.CodeInvalidParameter, "cannot cast jsonb %s to type %s", kindNames[k], t.Name())
}

// row decodes value (one JSON object) into a new row.
func (d *jsonDecoder) row(value []byte, out *Changes) (repr.Row, error) {
	d.s.reset(value)
	row := out.newRow(len(d.cols))
	if err := d.object(row, 0); err != nil {
		return nil, err
	}
	return row, d.s.end()
}

// plainJSON is FORMAT PLAIN ENCODE JSON: one object per record, inserted.
type plainJSON struct{ *jsonDecoder }

// Decode implements Decoder.
func (d *plainJSON) Decode(key, value []byte, out *Changes) error {
	if isEmpty(value) {
		return nil
	}
	row, err := d.row(value, out)
	if err == nil {
		err = checkKey(row, d.cols, d.keyCols)
	}
	if err != nil {
		return err
	}
	out.add(Insert, row, out.keyOf(row, d.keyCols))
	return nil
}

// upsertJSON is FORMAT UPSERT ENCODE JSON: the value is the new row of its
// key; an empty or null value is a tombstone for the record key.
type upsertJSON struct{ *jsonDecoder }

// Decode implements Decoder.
func (d *upsertJSON) Decode(key, value []byte, out *Changes) error {
	if d.isNull(value) {
		k, err := d.recordKey(key, out)
		if err != nil {
			return err
		}
		out.add(Tombstone, nil, k)
		return nil
	}
	row, err := d.row(value, out)
	if err == nil {
		err = checkKey(row, d.cols, d.keyCols)
	}
	if err != nil {
		return err
	}
	out.add(Upsert, row, out.keyOf(row, d.keyCols))
	return nil
}

// recordKey decodes the key columns from a record key: a JSON object
// naming them (or wrapping them in "payload", as Debezium keys do), or a
// JSON scalar when there is one key column.
func (d *jsonDecoder) recordKey(key []byte, out *Changes) (repr.Row, error) {
	if isEmpty(key) {
		return nil, repr.Errorf(repr.CodeNotNullViolation, "tombstone record without a key")
	}
	d.s.reset(key)
	row := out.newRow(len(d.cols))
	var err error
	switch {
	case d.s.peek() == '{':
		err = d.keyObject(row)
	case len(d.keyCols) == 1:
		row[d.keyCols[0]], err = d.field(d.keyCols[0], 0)
	default:
		err = repr.Errorf(repr.CodeInvalidParameter, "record key must be a JSON object naming the key columns")
	}
	if err == nil {
		err = d.s.end()
	}
	if err == nil {
		err = checkKey(row, d.cols, d.keyCols)
	}
	if err != nil {
		return nil, err
	}
	return out.keyOf(row, d.keyCols), nil
}

// keyObject reads a key object into row; a "payload" key that names no
// column holds a nested key object.
func (d *jsonDecoder) keyObject(row repr.Row) error {
	if err := d.s.expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := d.s.nextKey(first)
		if err != nil || !ok {
			return err
		}
		col := d.lookup(key, 0)
		switch {
		case col >= 0:
			row[col], err = d.field(col, 1)
		case string(key) == "payload" && d.s.peek() == '{':
			err = d.object(row, 1)
		default:
			_, _, _, err = d.s.value(1)
		}
		if err != nil {
			return err
		}
	}
}
