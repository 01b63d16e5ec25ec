package repr

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Arrays. Eddy's arrays are PostgreSQL's arrays of up to MaxArrayDims
// dimensions (array_dims.go) with a lower bound per dimension
// (array_lower.go). The empty array has no dimensions, as in PostgreSQL.
//
// An array type is T{Family: FamArray, Elem: f, ...} where the remaining
// fields describe the element type (ElemType); T stays a comparable value.
// An array datum holds its elements in the row value encoding (AppendRow)
// in s, so a Datum stays small and pointer-free apart from the string;
// Array decodes them. Arrays compare as PostgreSQL's array_cmp does for one
// dimension: element by element (a NULL element after every value, equal
// to another NULL), then the shorter array first. The key encoding is the
// elements' keys followed by arrayKeyEnd, which sorts before any element's
// first byte (keyValue, keyNull), so bytes.Compare agrees with Compare.

// arrayKeyEnd terminates an array's key encoding.
const arrayKeyEnd byte = 0x01

// MaxArrayLen bounds the number of elements of an array (PostgreSQL's
// MaxArraySize is larger; this keeps a hostile binary header from making
// Eddy allocate gigabytes).
const MaxArrayLen = 1 << 24

// scalarTypes are the supported non-array types, one per OID.
var scalarTypes = []T{Bool, Int2, Int4, Int8, Float4, Float8, Numeric, Text,
	Varchar(0), Char(0), Bytea, Date, TimeT, Timestamp, TimestampTZ, IntervalT, JSONB, UUID, JSON, Bit, VarBit, JSONPath}

// arrayOIDs maps an element type's OID to its array type's OID (pg_type's
// typarray).
var arrayOIDs = map[uint32]uint32{
	OIDBool: 1000, OIDBytea: 1001, OIDInt2: 1005, OIDInt4: 1007, OIDText: 1009,
	OIDBpchar: 1014, OIDVarchar: 1015, OIDInt8: 1016, OIDFloat4: 1021, OIDFloat8: 1022,
	OIDTimestamp: 1115, OIDDate: 1182, OIDTime: 1183, OIDTimestampTZ: 1185,
	OIDInterval: 1187, OIDNumeric: 1231, OIDUUID: 2951, OIDJSONB: 3807, OIDJSON: 199, OIDJSONPath: 4073,
	OIDRecord: OIDRecordArray, OIDBit: OIDBitArray, OIDVarBit: OIDVarBitArray,
}

// ArrayOf returns the array type whose elements have type elem. An array
// of arrays is the same array type (PostgreSQL's int[][] is int[]).
func ArrayOf(elem T) T {
	if elem.Family == FamArray {
		return elem
	}
	t := elem
	t.Family, t.Elem = FamArray, elem.Family
	return t
}

// ElemType returns the element type of an array type (Unknown for others).
func (t T) ElemType() T {
	if t.Family != FamArray {
		return Unknown
	}
	e := t
	e.Family, e.Elem, e.Vector = t.Elem, FamUnknown, false
	return e
}

// NewArray returns an array datum holding elems (one dimension, lower bound
// 1). The elements must not be arrays.
func NewArray(elems []Datum) Datum {
	return Datum{fam: FamArray, s: string(AppendRow(nil, elems))}
}

// Array returns the elements of an array datum in row-major order (nil
// for an empty array).
func (d Datum) Array() []Datum {
	_, _, row := arrayHeader(d.s)
	r, err := DecodeRow([]byte(row))
	if err != nil {
		panic(fmt.Sprintf("types: corrupt array datum: %v", err)) // constructed by NewArray or validated by decodeValue
	}
	return r
}

// ArrayLen returns the number of elements of an array datum (all
// dimensions': cardinality).
func (d Datum) ArrayLen() int {
	dims, _, row := arrayHeader(d.s)
	if dims == nil {
		n, _ := uvarint(row)
		return int(n)
	}
	n := 1
	for _, l := range dims {
		n *= l
	}
	return n
}

// validArray reports whether s is a valid array payload: a row of
// non-array datums.
func validArray(s string) bool { return validArrayOf(s, true) }

// validArrayOf is validArray, refusing record elements unless records.
func validArrayOf(s string, records bool) bool { return validArrayAt(s, records, 0) }

// validArrayAt is validArrayOf for an array inside records nested depth
// deep: a record element is checked one level deeper (validRecordAt), so
// checking never recurses past maxRecordDepth whatever the bytes hold.
func validArrayAt(s string, records bool, depth int) bool {
	b, _, ok := validArrayHeader(s)
	if !ok {
		return false
	}
	n, k := uvarint(b)
	if k <= 0 || n > uint64(len(b)) || n > MaxArrayLen {
		return false
	}
	b = b[k:]
	for range n {
		if len(b) == 0 || Family(b[0]) == FamArray || !records && Family(b[0]) == FamRecord {
			return false
		}
		if Family(b[0]) == FamRecord {
			s, rest, err := readString(b[1:])
			if err != nil || depth >= maxRecordDepth || !validRecordAt(s, depth+1) {
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

// appendArrayKey appends the key encoding of an array's elements.
func appendArrayKey(buf []byte, d Datum) []byte {
	for _, e := range d.Array() {
		buf = AppendKey(buf, e)
	}
	return appendArrayShapeKey(buf, d)
}

// errMalformedArray is 22P02 `malformed array literal: "s"` with detail.
func errMalformedArray(s, detail string, args ...any) error {
	return Errorf(CodeInvalidText, "malformed array literal: %q", s).WithDetail("%s", fmt.Sprintf(detail, args...))
}

// appendArrayText appends array_out's form: {e1,e2,NULL}, quoting elements
// that are empty, spell NULL, or contain a brace, quote, comma, backslash
// or white space, with backslashes before quotes and backslashes.
func appendArrayText(buf []byte, d Datum, t T, st TextStyle) []byte {
	if t.Vector {
		return appendVectorText(buf, d)
	}
	et := t.ElemType()
	dims := d.ArrayDims()
	if dims == nil {
		return append(buf, "{}"...)
	}
	var scratch []byte
	buf = appendDimsDecoration(buf, d)
	buf, _ = appendNested(buf, d.Array(), dims, func(buf []byte, e Datum) []byte {
		if e.IsNull() {
			return append(buf, "NULL"...)
		}
		scratch = AppendTextStyle(scratch[:0], e, et, st)
		return appendArrayElem(buf, scratch)
	})
	return buf
}

// appendArrayElem appends one element's text, quoted when array_out would.
func appendArrayElem(buf, s []byte) []byte {
	if !needsArrayQuote(s) {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, c)
	}
	return append(buf, '"')
}

func needsArrayQuote(s []byte) bool {
	if len(s) == 0 || strings.EqualFold(string(s), "null") {
		return true
	}
	for _, c := range s {
		if c == '{' || c == '}' || c == '"' || c == ',' || c == '\\' || isSpace(c) {
			return true
		}
	}
	return false
}

// parseArray is array_in for t: optional [1:n] dimension decorations
// and "=", then nested {...} with elements unquoted (white space around
// them dropped, backslash escapes) or double-quoted, NULL (unquoted, any
// case) for a NULL element. Sub-arrays must have matching dimensions.
// Each element is parsed with ParseText for the element type.
func parseArray(s string, t T, loc *time.Location) (Datum, error) {
	if t.Vector {
		return parseVector(s, t)
	}
	et := t.ElemType()
	return parseArrayWith(s, func(r string) (Datum, error) { return ParseText(r, et, loc) })
}

// parseArrayWith is array_in with elem reading each element's text.
func parseArrayWith(s string, elem func(string) (Datum, error)) (Datum, error) {
	p := arrayParser{src: s, s: s}
	p.skipSpace()
	var want, lbs []int
	if strings.HasPrefix(p.s, "[") {
		var err error
		if want, lbs, err = p.dims(); err != nil {
			return Null, err
		}
	}
	if !strings.HasPrefix(p.s, "{") {
		return Null, errMalformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	p.s = p.s[1:]
	var raw []string
	var nulls []bool
	dims, err := p.nested(0, &raw, &nulls)
	if err != nil {
		return Null, err
	}
	p.skipSpace()
	if p.s != "" {
		return Null, errMalformedArray(s, "Junk after closing right brace.")
	}
	if want != nil && !slices.Equal(want, dims) {
		return Null, errMalformedArray(s, "Specified array dimensions do not match array contents.")
	}
	if err := CheckArrayBounds(dims, lbs); err != nil {
		return Null, err
	}
	return arrayFromText(raw, nulls, dims, lbs, elem)
}

// arrayFromText reads each element's text with elem into an array of
// shape dims with lower bounds lbs (nil: all 1).
func arrayFromText(raw []string, nulls []bool, dims, lbs []int, elem func(string) (Datum, error)) (Datum, error) {
	elems := make([]Datum, len(raw))
	for i, r := range raw {
		if nulls[i] {
			continue
		}
		d, err := elem(r)
		if err != nil {
			return Null, err
		}
		elems[i] = d
	}
	return NewArrayBounds(elems, dims, lbs), nil
}

// arrayParser scans an array literal; src is the whole input for errors.
type arrayParser struct{ src, s string }

func (p *arrayParser) skipSpace() {
	p.s = strings.TrimLeftFunc(p.s, func(r rune) bool { return r < 128 && isSpace(byte(r)) })
}

// dims parses "[lb:ub]" or "[ub]" (lower bound 1) decorations, then "=",
// and returns the lengths and the lower bounds.
func (p *arrayParser) dims() ([]int, []int, error) {
	var dims, lbs []int
	for strings.HasPrefix(p.s, "[") {
		if len(dims) == MaxArrayDims {
			return nil, nil, errArrayDims(len(dims) + 1)
		}
		end := strings.IndexByte(p.s, ']')
		if end < 0 {
			return nil, nil, errMalformedArray(p.src, `Missing "]" after array dimensions.`)
		}
		spec := p.s[1:end]
		p.s = p.s[end+1:]
		lo, hi, ok := strings.Cut(spec, ":")
		if !ok {
			lo, hi = "1", spec
		}
		l, err1 := parseInt(lo, Int4)
		h, err2 := parseInt(hi, Int4)
		switch {
		case err1 != nil || err2 != nil:
			return nil, nil, errMalformedArray(p.src, `Array dimensions must be integers.`)
		case h < l:
			return nil, nil, Errorf("2202E", "upper bound cannot be less than lower bound")
		}
		dims, lbs = append(dims, int(h-l+1)), append(lbs, int(l))
		p.skipSpace()
	}
	if !strings.HasPrefix(p.s, "=") {
		return nil, nil, errMalformedArray(p.src, `Missing "=" after array dimensions.`)
	}
	p.s = p.s[1:]
	p.skipSpace()
	return dims, lbs, nil
}

// nested scans the contents of a (sub-)array at depth (0: the outermost)
// after its "{", up to and including its "}", appending the elements, and
// returns the lengths of its dimensions (nil for the empty array {}).
func (p *arrayParser) nested(depth int, raw *[]string, nulls *[]bool) ([]int, error) {
	p.skipSpace()
	switch {
	case strings.HasPrefix(p.s, "}") && depth == 0:
		p.s = p.s[1:]
		return nil, nil
	case strings.HasPrefix(p.s, "}"):
		return nil, errMalformedArray(p.src, "Unexpected \"}\" character.")
	case !strings.HasPrefix(p.s, "{"):
		r, n, err := p.elems()
		*raw, *nulls = append(*raw, r...), append(*nulls, n...)
		if len(*raw) > MaxArrayLen {
			return nil, Errorf(CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayLen)
		}
		return []int{len(r)}, err
	case depth+2 > MaxArrayDims:
		return nil, errArrayDims(depth + 2)
	}
	var sub []int
	for n := 1; ; n++ {
		if !strings.HasPrefix(p.s, "{") {
			return nil, errMalformedArray(p.src, "Unexpected array element.")
		}
		p.s = p.s[1:]
		d, err := p.nested(depth+1, raw, nulls)
		if err != nil {
			return nil, err
		}
		if n > 1 && !slices.Equal(d, sub) {
			return nil, errMalformedArray(p.src, "Multidimensional arrays must have sub-arrays with matching dimensions.")
		}
		sub = d
		p.skipSpace()
		switch {
		case strings.HasPrefix(p.s, ","):
			p.s = p.s[1:]
			p.skipSpace()
		case strings.HasPrefix(p.s, "}"):
			p.s = p.s[1:]
			return append([]int{n}, sub...), nil
		case p.s == "":
			return nil, errMalformedArray(p.src, "Unexpected end of input.")
		default:
			return nil, errMalformedArray(p.src, "Unexpected \"%c\" character.", p.s[0])
		}
	}
}

// elems scans the elements of an innermost array up to and including the
// closing "}" (there is at least one).
func (p *arrayParser) elems() ([]string, []bool, error) {
	var raw []string
	var nulls []bool
	for {
		p.skipSpace()
		if strings.HasPrefix(p.s, "{") {
			return nil, nil, errMalformedArray(p.src, "Unexpected \"{\" character.")
		}
		v, null, err := p.elem()
		if err != nil {
			return nil, nil, err
		}
		raw, nulls = append(raw, v), append(nulls, null)
		if len(raw) > MaxArrayLen {
			return nil, nil, Errorf(CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayLen)
		}
		switch {
		case strings.HasPrefix(p.s, ","):
			p.s = p.s[1:]
		case strings.HasPrefix(p.s, "}"):
			p.s = p.s[1:]
			return raw, nulls, nil
		case p.s == "":
			return nil, nil, errMalformedArray(p.src, "Unexpected end of input.")
		default:
			return nil, nil, errMalformedArray(p.src, "Unexpected \"%c\" character.", p.s[0])
		}
	}
}

// elem scans one element, stopping before the "," or "}" after it. White
// space around an unquoted element is dropped; an element that is quoted
// or has an escape is never the NULL keyword.
func (p *arrayParser) elem() (string, bool, error) {
	var b strings.Builder
	quoted, escaped, spaces := false, false, 0
	for {
		if p.s == "" {
			return "", false, errMalformedArray(p.src, "Unexpected end of input.")
		}
		c := p.s[0]
		switch {
		case c == ',' || c == '}':
			if b.Len() == 0 && !quoted && !escaped {
				return "", false, errMalformedArray(p.src, "Unexpected \"%c\" character.", c)
			}
			null := !quoted && !escaped && strings.EqualFold(b.String(), "null")
			return b.String(), null, nil
		case isSpace(c):
			spaces++
			p.s = p.s[1:]
		case c == '"':
			if quoted || b.Len() > 0 || escaped {
				return "", false, errMalformedArray(p.src, "Unexpected array element.")
			}
			s, err := p.quoted()
			if err != nil {
				return "", false, err
			}
			b.WriteString(s)
			quoted = true
		case c == '{':
			return "", false, errMalformedArray(p.src, "Unexpected \"{\" character.")
		case quoted:
			return "", false, errMalformedArray(p.src, "Unexpected array element.")
		default:
			for ; spaces > 0; spaces-- {
				b.WriteByte(' ')
			}
			if c == '\\' {
				if len(p.s) < 2 {
					return "", false, errMalformedArray(p.src, "Unexpected end of input.")
				}
				c, escaped = p.s[1], true
				p.s = p.s[1:]
			}
			b.WriteByte(c)
			p.s = p.s[1:]
		}
	}
}

// quoted scans a double-quoted element (backslash escapes any character).
func (p *arrayParser) quoted() (string, error) {
	var b strings.Builder
	s := p.s[1:]
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 == len(s) {
				return "", errMalformedArray(p.src, "Unexpected end of input.")
			}
			i++
			b.WriteByte(s[i])
		case '"':
			p.s = s[i+1:]
			return b.String(), nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", errMalformedArray(p.src, "Unexpected end of input.")
}

// appendArrayBinary appends array_send's form: ndim (0 for an empty array,
// else 1), the has-NULL flag, the element type OID, then per dimension its
// length and lower bound, then each element as a length (-1 for NULL)
// and its binary form.
func appendArrayBinary(buf []byte, d Datum, t T) ([]byte, error) {
	et := t.ElemType()
	elems := d.Array()
	hasNull := int32(0)
	for _, e := range elems {
		if e.IsNull() {
			hasNull = 1
		}
	}
	dims, lbs := d.ArrayDims(), d.ArrayLBounds()
	if t.Vector { // int2vectorsend/oidvectorsend: one dimension from 0, even empty
		dims, lbs = []int{len(elems)}, []int{0}
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(dims)))
	buf = binary.BigEndian.AppendUint32(buf, uint32(hasNull))
	buf = binary.BigEndian.AppendUint32(buf, et.OID())
	for i, n := range dims {
		buf = binary.BigEndian.AppendUint32(buf, uint32(n))
		buf = binary.BigEndian.AppendUint32(buf, uint32(int32(lbs[i])))
	}
	for _, e := range elems {
		if e.IsNull() {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = AppendBinary(buf, e, et); err != nil {
			return buf, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// parseArrayBinary is array_recv for t. The element type OID must be t's
// element type's (varchar and bpchar data is also accepted for text, as
// their binary forms agree).
func parseArrayBinary(b []byte, t T) (Datum, error) {
	et := t.ElemType()
	if t.Vector {
		return parseVectorBinary(b, t)
	}
	return parseArrayBinaryWith(b, t, func(e []byte) (Datum, error) { return ParseBinary(e, et) })
}

// parseVectorBinary is int2vectorrecv/oidvectorrecv: an array of one
// dimension subscripted from 0, without NULLs, held as the vector's
// elements.
func parseVectorBinary(b []byte, t T) (Datum, error) {
	et := t.ElemType()
	d, err := parseArrayBinaryWith(b, t, func(e []byte) (Datum, error) { return ParseBinary(e, et) })
	if err != nil {
		return Null, err
	}
	lbs, elems := d.ArrayLBounds(), d.Array()
	bad := len(lbs) != 1 || lbs[0] != 0 || slices.ContainsFunc(elems, Datum.IsNull)
	if bad && !(len(elems) == 0 && len(b) >= 4 && binary.BigEndian.Uint32(b) <= 1) {
		return Null, Errorf("22P03", "invalid %s data", t.Name())
	}
	return NewArray(elems), nil
}

// parseArrayBinaryWith is parseArrayBinary reading each element with
// elem (an array of a composite type's elements need its fields).
func parseArrayBinaryWith(b []byte, t T, elem func([]byte) (Datum, error)) (Datum, error) {
	et := t.ElemType()
	if len(b) < 12 {
		return Null, errBinary("insufficient data left in message")
	}
	ndim, flags, oid := int32(binary.BigEndian.Uint32(b)), int32(binary.BigEndian.Uint32(b[4:])), binary.BigEndian.Uint32(b[8:])
	b = b[12:]
	switch {
	case ndim < 0 || ndim > MaxArrayDims:
		return Null, Errorf("22000", "invalid number of dimensions: %d", ndim)
	case flags != 0 && flags != 1:
		return Null, Errorf("22000", "invalid array flags")
	case oid != et.OID() && !(et.Family == FamText && isStringOID(oid)):
		return Null, Errorf(CodeDatatypeMismatch, "binary data has array element type %d instead of expected %d", oid, et.OID())
	}
	dims, lbs := make([]int, ndim), make([]int, ndim)
	total := 1
	for i := range dims {
		if len(b) < 8 {
			return Null, errBinary("insufficient data left in message")
		}
		n, lb := int32(binary.BigEndian.Uint32(b)), int32(binary.BigEndian.Uint32(b[4:]))
		b = b[8:]
		if n < 0 || n > MaxArrayLen {
			return Null, Errorf(CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayLen)
		}
		dims[i], lbs[i], total = int(n), int(lb), min(total*int(n), MaxArrayLen+1)
	}
	if total > MaxArrayLen {
		return Null, Errorf(CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayLen)
	}
	if ndim == 0 || total == 0 {
		total, dims, lbs = 0, nil, nil // PostgreSQL reads any zero-length shape as the empty array
	}
	if err := CheckArrayBounds(dims, lbs); err != nil {
		return Null, err
	}
	a, err := parseArrayElemsBinary(b, total, elem)
	if err != nil {
		return Null, err
	}
	return NewArrayBounds(a.Array(), dims, lbs), nil
}

// parseArrayElemsBinary reads n length-prefixed elements (each by elem)
// that must use up b.
func parseArrayElemsBinary(b []byte, n int, elem func([]byte) (Datum, error)) (Datum, error) {
	elems := make([]Datum, 0, min(n, len(b)/4))
	for range n {
		if len(b) < 4 {
			return Null, errBinary("insufficient data left in message")
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if l == -1 {
			elems = append(elems, Null)
			continue
		}
		if l < 0 || int(l) > len(b) {
			return Null, errBinary("insufficient data left in message")
		}
		e, err := elem(b[:l])
		if err != nil {
			return Null, err
		}
		elems, b = append(elems, e), b[l:]
	}
	if len(b) != 0 {
		return Null, errBinary("incorrect binary data format in array")
	}
	return NewArray(elems), nil
}

func isStringOID(oid uint32) bool { return oid == OIDText || oid == OIDVarchar || oid == OIDBpchar }

// castArray converts an array element by element (a NULL stays NULL).
func castArray(d Datum, from, to T, loc *time.Location, explicit bool) (Datum, error) {
	fe, te := from.ElemType(), to.ElemType()
	elems := d.Array()
	for i, e := range elems {
		var err error
		if elems[i], err = Cast(e, fe, te, loc, explicit); err != nil {
			return Null, err
		}
	}
	if from.Vector && !to.Vector && len(elems) > 0 {
		// int2vector and oidvector are arrays subscripted from 0: as a
		// plain array ('1 2'::int2vector::int2[]) it is [0:1]={1,2}.
		return NewArrayBounds(elems, []int{len(elems)}, []int{0}), nil
	}
	return ArrayLike(d, elems), nil
}
