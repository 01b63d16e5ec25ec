package repr

import "encoding/binary"

// Records: PostgreSQL's anonymous row type (record, OID 2249), the value
// of ROW(a, b, ...) and of the path columns WITH RECURSIVE's SEARCH and
// CYCLE clauses add. The static type carries no field types (T stays a
// comparable value), so a record datum describes itself: its s holds
//
//	uvarint(n) uvarint(oid)*n row
//
// the field types' OIDs followed by the fields in the row value encoding
// (AppendRow). The OIDs drive the text and binary output, which depend on
// the field types (a real prints differently from a double precision, the
// binary form names each field's type). Fields are scalars, arrays of
// scalars, or records (a named composite type's OID, or record's), which
// describe themselves in turn, nested at most maxRecordDepth deep (checked
// before decoding); an array of records is refused when the record is
// built.
//
// Records compare as PostgreSQL's record_cmp: field by field with Compare
// (NULL after every value and equal to NULL, as record_eq treats it),
// then the record with fewer fields first. The key encoding is the
// fields' keys followed by arrayKeyEnd, prefix-free and agreeing with
// Compare. Text output is record_out's: "(1,,"a b")"; input of an
// anonymous record is not implemented, as in PostgreSQL (0A000).

// Record is the anonymous record type.
var Record = T{Family: FamRecord}

// OIDRecord and OIDRecordArray are pg_type's record and _record.
const (
	OIDRecord      uint32 = 2249
	OIDRecordArray uint32 = 2287
)

// NewRecord returns a record datum with the given fields of the given
// types (len(types) == len(fields)).
func NewRecord(fields Row, types []T) (Datum, error) {
	buf := binary.AppendUvarint(nil, uint64(len(types)))
	for _, t := range types {
		buf = binary.AppendUvarint(buf, headerOID(t))
	}
	return Datum{fam: FamRecord, s: string(AppendRow(buf, fields))}, nil
}

// headerOID is the OID a record header stores for a field of type t:
// t's pg_type OID, except for an array of a named composite type, whose
// OID (the type's plus one) would read back as a composite type; it is
// stored as arrayOfComposite|oid, beyond every uint32.
func headerOID(t T) uint64 {
	switch {
	case t.Family == FamArray && t.Elem == FamRecord && t.Composite != 0:
		return arrayOfComposite | uint64(t.Composite)
	case t.Family == FamEnum:
		return enumField | uint64(t.Enum)
	case t.Family == FamArray && t.Elem == FamEnum:
		return arrayOfEnum | uint64(t.Enum)
	}
	return uint64(t.OID())
}

// enumField and arrayOfEnum mark a header OID as an enum type, or an
// array of one, whose OID is in the low 32 bits (a bare user OID reads
// back as a composite type).
const (
	enumField   = 2 << 32
	arrayOfEnum = 3 << 32
)

// arrayOfComposite marks a header OID as an array of the composite type
// whose OID is in its low 32 bits.
const arrayOfComposite = 1 << 32

// maxRecordDepth bounds the nesting of records in records, so that
// validating and printing a stored value recurses a bounded number of
// times whatever the bytes hold.
const maxRecordDepth = 32

// firstUserOID is PostgreSQL's FirstNormalObjectId: a field type OID from
// here up that names no built-in type is a named composite type's (the
// catalog allocates both).
const firstUserOID = 16384

// Record returns the fields of a record datum and their types.
func (d Datum) Record() (Row, []T) {
	types, row, ok := recordHeader(d.s)
	if !ok {
		panic("repr: corrupt record datum") // built by NewRecord or validated by decodeValue
	}
	r, err := DecodeRow([]byte(row))
	if err != nil {
		panic("repr: corrupt record datum")
	}
	return r, types
}

// recordHeader splits a record payload into its field types and the
// row encoding of its fields.
func recordHeader(s string) ([]T, string, bool) {
	n, k := uvarint(s)
	if k <= 0 || n > uint64(len(s)) {
		return nil, "", false
	}
	s = s[k:]
	types := make([]T, n)
	for i := range types {
		oid, k := uvarint(s)
		if k <= 0 {
			return nil, "", false
		}
		var t T
		ok := false
		switch {
		case oid&^0xFFFFFFFF == arrayOfComposite && uint32(oid) >= firstUserOID:
			t, ok = ArrayOf(CompositeOf(uint32(oid))), true
		case oid&^0xFFFFFFFF == enumField && uint32(oid) >= firstUserOID:
			t, ok = EnumOf(uint32(oid)), true
		case oid&^0xFFFFFFFF == arrayOfEnum && uint32(oid) >= firstUserOID:
			t, ok = ArrayOf(EnumOf(uint32(oid))), true
		case oid <= 0xFFFFFFFF:
			if t, ok = FromOID(uint32(oid)); !ok && oid >= firstUserOID {
				t, ok = CompositeOf(uint32(oid)), true
			}
		}
		if !ok {
			return nil, "", false
		}
		types[i], s = t, s[k:]
	}
	return types, s, true
}

// validRecord reports whether s is a valid record payload: as many
// fields as types, a record field nested at most maxRecordDepth deep.
func validRecord(s string) bool { return validRecordAt(s, 0) }

func validRecordAt(s string, depth int) bool {
	types, row, ok := recordHeader(s)
	if !ok {
		return false
	}
	n, k := uvarint(row)
	if k <= 0 || n != uint64(len(types)) {
		return false
	}
	b := row[k:]
	for i := range n {
		if len(b) == 0 {
			return false
		}
		if Family(b[0]) == FamRecord { // checked before decoding, depth bounded
			s, rest, err := readString(b[1:])
			if err != nil || depth >= maxRecordDepth || types[i].Family != FamRecord || !validRecordAt(s, depth+1) {
				return false
			}
			b = rest
			continue
		}
		if types[i].Family == FamRecord && Family(b[0]) != FamUnknown {
			return false // a record type's field holds a record or NULL
		}
		if Family(b[0]) == FamArray { // of records: each one level deeper
			s, rest, err := readString(b[1:])
			records := types[i].Family == FamArray && types[i].Elem == FamRecord
			if err != nil || !validArrayAt(s, records, depth) {
				return false
			}
			b = rest
			continue
		}
		var err error
		if _, b, err = decodeValue(b, nil); err != nil {
			return false
		}
	}
	return len(b) == 0
}

// compareRecords is record_cmp.
func compareRecords(a, b Datum) int {
	if a.s == b.s {
		return 0
	}
	ra, _ := a.Record()
	rb, _ := b.Record()
	return CompareRows(ra, rb)
}

// appendRecordKey appends the fields' keys and the terminator.
func appendRecordKey(buf []byte, d Datum) []byte {
	r, _ := d.Record()
	return append(AppendRowKey(buf, r), arrayKeyEnd)
}

// appendRecordText is record_out: fields in parentheses, NULL as
// nothing, a field quoted when empty or holding a quote, backslash,
// parenthesis, comma or space (quotes and backslashes doubled inside).
func appendRecordText(buf []byte, d Datum, st TextStyle) []byte {
	r, types := d.Record()
	buf = append(buf, '(')
	var scratch []byte
	for i, f := range r {
		if i > 0 {
			buf = append(buf, ',')
		}
		if f.IsNull() {
			continue
		}
		scratch = AppendTextStyle(scratch[:0], f, types[i], st)
		buf = appendRecordField(buf, scratch)
	}
	return append(buf, ')')
}

// appendRecordField appends one field's text, quoted when record_out would.
func appendRecordField(buf, s []byte) []byte {
	quote := len(s) == 0
	for _, c := range s {
		if c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || isSpace(c) {
			quote = true
			break
		}
	}
	if !quote {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			buf = append(buf, c)
		}
		buf = append(buf, c)
	}
	return append(buf, '"')
}

// appendRecordBinary is record_send: the field count, then per field its
// type OID and its length-prefixed binary value (-1 for NULL).
func appendRecordBinary(buf []byte, d Datum) ([]byte, error) {
	r, types := d.Record()
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(r)))
	for i, f := range r {
		buf = binary.BigEndian.AppendUint32(buf, types[i].OID())
		if f.IsNull() {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = AppendBinary(buf, f, types[i]); err != nil {
			return buf, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}
