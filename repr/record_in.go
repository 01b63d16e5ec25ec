package repr

import (
	"encoding/binary"
	"strings"
	"time"
)

// ParseRecordText is record_in's parse of a row of n columns: a
// parenthesized, comma-separated list whose fields may be double-quoted
// ("" inside quotes is a quote) and backslash-escaped; an empty unquoted
// field is NULL (nil), "" the empty string. Malformed input is 22P02 with
// PostgreSQL's detail.
func ParseRecordText(s string, n int) ([]*string, *Error) {
	malformed := func(detail string) *Error {
		return Errorf("22P02", "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
	}
	rest := strings.TrimLeft(s, " \t\n\r\v\f")
	if !strings.HasPrefix(rest, "(") {
		return nil, malformed("Missing left parenthesis.")
	}
	rest = rest[1:]
	var out []*string
	for {
		f, tail, ok := recordField(rest)
		if !ok {
			return nil, malformed("Unexpected end of input.")
		}
		out, rest = append(out, f), tail[1:]
		switch {
		case tail[0] == ')' && len(out) < n:
			return nil, malformed("Too few columns.")
		case tail[0] == ',' && len(out) == n:
			return nil, malformed("Too many columns.")
		case tail[0] == ')':
			if strings.TrimLeft(rest, " \t\n\r\v\f") != "" {
				return nil, malformed("Junk after right parenthesis.")
			}
			return out, nil
		}
	}
}

// recordField reads one field of a record literal up to the comma or
// right parenthesis that ends it (tail starts there): nil when empty and
// unquoted. ok is false when the input ends first.
func recordField(s string) (field *string, tail string, ok bool) {
	var b strings.Builder
	quoted, seen := false, false
	i := 0
	for ; i < len(s); i++ {
		ch := s[i]
		if !quoted && (ch == ',' || ch == ')') {
			break
		}
		seen = true
		switch {
		case ch == '\\':
			if i++; i >= len(s) {
				return nil, "", false
			}
			b.WriteByte(s[i])
		case ch == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		default:
			b.WriteByte(ch)
		}
	}
	if i >= len(s) {
		return nil, "", false
	}
	if !seen {
		return nil, s[i:], true
	}
	str := b.String()
	return &str, s[i:], true
}

// ParseRecord is record_in for a composite type whose fields have the
// given types: the text's fields (ParseRecordText) each read as a value
// of its field's type (modifiers applied), an empty unquoted field NULL.
func ParseRecord(s string, fields []T, loc *time.Location) (Datum, error) {
	return ParseRecordWith(s, fields, nil, loc)
}

// FieldsOf returns the field types of the named composite type with
// pg_type OID oid (ok false when there is none): the catalog's knowledge
// that reading a nested composite field needs.
type FieldsOf func(oid uint32) (fields []T, ok bool)

// isRecordArray reports whether t is an array of records.
func isRecordArray(t T) bool { return t.Family == FamArray && t.Elem == FamRecord }

// nestedFields returns the fields of a field of composite type t (or of
// the element type of an array of one), or an
// error when fieldsOf (which may be nil) does not know them.
func nestedFields(t T, fieldsOf FieldsOf) ([]T, error) {
	if fieldsOf != nil && t.Composite != 0 {
		if f, ok := fieldsOf(t.Composite); ok {
			return f, nil
		}
	}
	return nil, Unsupported("input of anonymous composite types")
}

// ParseRecordWith is ParseRecord whose fields of composite types read
// their own fields, found by fieldsOf.
func ParseRecordWith(s string, fields []T, fieldsOf FieldsOf, loc *time.Location) (Datum, error) {
	texts, perr := ParseRecordText(s, len(fields))
	if perr != nil {
		return Null, perr
	}
	row := make(Row, len(fields))
	for i, f := range texts {
		if f == nil {
			continue
		}
		var d Datum
		var err error
		if fields[i].Family == FamRecord || isRecordArray(fields[i]) {
			var inner []T
			if inner, err = nestedFields(fields[i], fieldsOf); err == nil && fields[i].Family == FamArray {
				d, err = ParseCompositeArrayWith(*f, inner, fieldsOf, loc)
			} else if err == nil {
				d, err = ParseRecordWith(*f, inner, fieldsOf, loc)
			}
		} else {
			d, err = ParseText(*f, fields[i], loc)
		}
		if err != nil {
			return Null, err
		}
		row[i] = d
	}
	return NewRecord(row, fields)
}

// ParseRecordBinary is record_recv for a composite type whose fields have
// the given types: the field count, then per field its type OID (which
// must be the field's) and its length-prefixed binary value (-1 NULL).
func ParseRecordBinary(b []byte, fields []T) (Datum, error) {
	return ParseRecordBinaryWith(b, fields, nil)
}

// ParseRecordBinaryWith is ParseRecordBinary whose fields of composite
// types read their own fields, found by fieldsOf.
func ParseRecordBinaryWith(b []byte, fields []T, fieldsOf FieldsOf) (Datum, error) {
	if len(b) < 4 {
		return Null, errBinary("insufficient data left in message")
	}
	if n := int(int32(binary.BigEndian.Uint32(b))); n != len(fields) {
		return Null, Errorf(CodeDatatypeMismatch, "wrong number of columns: %d, expected %d", n, len(fields))
	}
	b = b[4:]
	row := make(Row, len(fields))
	for i, f := range fields {
		if len(b) < 8 {
			return Null, errBinary("insufficient data left in message")
		}
		if oid := binary.BigEndian.Uint32(b); oid != f.OID() {
			return Null, Errorf(CodeDatatypeMismatch, "binary data has type %d instead of expected %d in record column %d", oid, f.OID(), i+1)
		}
		n := int32(binary.BigEndian.Uint32(b[4:]))
		b = b[8:]
		if n < 0 {
			continue
		}
		if int(n) > len(b) {
			return Null, errBinary("insufficient data left in message")
		}
		var d Datum
		var err error
		if f.Family == FamRecord || isRecordArray(f) {
			var inner []T
			if inner, err = nestedFields(f, fieldsOf); err == nil && f.Family == FamArray {
				d, err = ParseCompositeArrayBinaryWith(b[:n], f, inner, fieldsOf)
			} else if err == nil {
				d, err = ParseRecordBinaryWith(b[:n], inner, fieldsOf)
			}
		} else {
			d, err = ParseBinary(b[:n], f)
		}
		if err != nil {
			return Null, err
		}
		row[i], b = d, b[n:]
	}
	if len(b) != 0 {
		return Null, errBinary("incorrect binary data format")
	}
	return NewRecord(row, fields)
}

// ParseCompositeArray is array_in for an array of a composite type whose
// fields have the given types: each element read by ParseRecord.
func ParseCompositeArray(s string, fields []T, loc *time.Location) (Datum, error) {
	return ParseCompositeArrayWith(s, fields, nil, loc)
}

// ParseCompositeArrayWith is ParseCompositeArray whose elements' fields
// of composite types (or arrays of them) read their own fields, found by
// fieldsOf.
func ParseCompositeArrayWith(s string, fields []T, fieldsOf FieldsOf, loc *time.Location) (Datum, error) {
	return parseArrayWith(s, func(r string) (Datum, error) { return ParseRecordWith(r, fields, fieldsOf, loc) })
}

// ParseCompositeArrayBinaryWith is array_recv for t, an array of a
// composite type whose fields have the given types: each element read by
// ParseRecordBinaryWith.
func ParseCompositeArrayBinaryWith(b []byte, t T, fields []T, fieldsOf FieldsOf) (Datum, error) {
	return parseArrayBinaryWith(b, t, func(e []byte) (Datum, error) { return ParseRecordBinaryWith(e, fields, fieldsOf) })
}
