package repr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// Value encoding: a compact, self-describing, round-tripping byte form of a
// Row for storage (not order-preserving; keys use AppendKey). Layout:
//
//	row   = uvarint(len) datum*
//	datum = family-tag payload
//
// with payloads by family: NULL none; bool one byte; int, date, time,
// timestamp(tz) a zigzag varint; float the 8 IEEE bytes; numeric a form
// byte, zigzag exponent and length-prefixed big-endian coefficient
// magnitude; text, bytea, jsonb, uuid, json, a bit string a length-prefixed string; an
// array the length-prefixed row encoding of its elements; interval three
// zigzag varints (months, days, micros). DecodeRow needs no types, and
// DecodeRow(AppendRow(nil, r)) is identical to r field by field.

// AppendRow appends the value encoding of r to buf.
func AppendRow(buf []byte, r Row) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(r)))
	for _, d := range r {
		buf = appendValue(buf, d)
	}
	return buf
}

// appendValue appends one datum's tag and payload.
func appendValue(buf []byte, d Datum) []byte {
	buf = append(buf, byte(d.fam))
	switch d.fam {
	case FamBool:
		return append(buf, byte(d.i))
	case FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ:
		return binary.AppendVarint(buf, d.i)
	case FamFloat:
		return binary.LittleEndian.AppendUint64(buf, uint64(d.i))
	case FamNumeric:
		return appendDecimalValue(buf, d.dec)
	case FamText, FamBytea, FamJSONB, FamUUID, FamJSON, FamArray, FamRecord, FamBit, FamEnum, FamJSONPath:
		buf = binary.AppendUvarint(buf, uint64(len(d.s)))
		return append(buf, d.s...)
	case FamInterval:
		buf = binary.AppendVarint(buf, int64(d.mon))
		buf = binary.AppendVarint(buf, int64(d.day))
		return binary.AppendVarint(buf, d.i)
	}
	return buf
}

// Numeric form bytes of the value encoding.
const (
	decFinite byte = iota
	decInfinite
	decNaN
	decNegative byte = 0x80 // or-ed into the form
)

func appendDecimalValue(buf []byte, d *apd.Decimal) []byte {
	form := decFinite
	switch d.Form {
	case apd.Infinite:
		form = decInfinite
	case apd.NaN, apd.NaNSignaling:
		form = decNaN
	}
	if d.Negative {
		form |= decNegative
	}
	buf = append(buf, form)
	if form&^decNegative != decFinite {
		return buf
	}
	buf = binary.AppendVarint(buf, int64(d.Exponent))
	if d.Coeff.IsUint64() {
		return appendMagnitude64(buf, d.Coeff.Uint64())
	}
	mag := d.Coeff.Bytes()
	buf = binary.AppendUvarint(buf, uint64(len(mag)))
	return append(buf, mag...)
}

// appendMagnitude64 appends what appendDecimalValue writes for a
// coefficient u: the length, then big.Int.Bytes (big-endian, no leading
// zero bytes; empty for 0), without allocating.
func appendMagnitude64(buf []byte, u uint64) []byte {
	n := (bits.Len64(u) + 7) / 8
	buf = binary.AppendUvarint(buf, uint64(n))
	for i := n - 1; i >= 0; i-- {
		buf = append(buf, byte(u>>(8*i)))
	}
	return buf
}

// errCorrupt reports an undecodable value encoding.
var errCorrupt = errors.New("types: corrupt row encoding")

// DecodeRow decodes a row encoded by AppendRow. It never panics on
// arbitrary input; trailing bytes are an error.
func DecodeRow(b []byte) (Row, error) {
	n, k := uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errCorrupt
	}
	r := make(Row, n)
	if err := decodeValues(r, b[k:], nil); err != nil {
		return nil, err
	}
	return r, nil
}

// DecodeRowInto decodes a row encoded by AppendRow into dst, which must
// have as many datums as the row, taking the decimals of numerics from
// decs (nil: the heap): DecodeRow without allocating the row.
func DecodeRowInto(dst Row, b []byte, decs *DecimalSlab) error {
	n, k := uvarint(b)
	if k <= 0 || n != uint64(len(dst)) {
		return errCorrupt
	}
	return decodeValues(dst, b[k:], decs)
}

// AppendRowHeader appends what AppendRow writes before the datums of a
// row of cols columns: AppendRow(buf, r) equals
// AppendDatums(AppendRowHeader(buf, len(r)), r).
func AppendRowHeader(buf []byte, cols int) []byte {
	return binary.AppendUvarint(buf, uint64(cols))
}

// AppendDatums appends the value encoding of r's datums without the
// header AppendRow writes first: a row's compact in-memory form for an
// operator that knows its width (DecodeDatums reads it back).
func AppendDatums(buf []byte, r Row) []byte {
	for _, d := range r {
		buf = appendValue(buf, d)
	}
	return buf
}

// DecodeDatums decodes len(dst) datums encoded by AppendDatums from enc
// into dst, taking the decimals of numerics from decs (nil: the heap).
// Text-like datums share enc's bytes, so decoding does not allocate per
// datum but for a numeric whose coefficient exceeds 64 bits. It never
// panics on arbitrary input; trailing bytes are an error.
func DecodeDatums(dst Row, enc string, decs *DecimalSlab) error {
	return decodeValues(dst, enc, decs)
}

// decodeValues decodes len(dst) datums from b into dst, which must be
// consumed exactly.
func decodeValues[B ~string | ~[]byte](dst Row, b B, decs *DecimalSlab) error {
	for i := range dst {
		var err error
		if dst[i], b, err = decodeValue(b, decs); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(b) != 0 {
		return errCorrupt
	}
	return nil
}

// DecimalSlab hands out decimals from large chunks, so that decoding
// numerics does not allocate once per value. Decimals handed out are
// never reused (rows holding them may be kept), so a chunk stays alive as
// long as any of its decimals does; Reset reuses the current chunk and is
// only for callers that hold no decimal from it any longer.
type DecimalSlab struct {
	buf  []apd.Decimal
	next int // size of the next chunk
}

// decimalChunk is the largest number of decimals allocated at once (8
// KiB: a row kept long after its Step pins its chunk, so chunks stay
// smaller than rowSlab's); decimalFirstChunk the first.
const (
	decimalChunk      = 256
	decimalFirstChunk = 8
)

// New returns a zero decimal.
func (s *DecimalSlab) New() *apd.Decimal {
	if len(s.buf) == cap(s.buf) {
		size := max(s.next, decimalFirstChunk)
		s.next = min(2*size, decimalChunk)
		s.buf = make([]apd.Decimal, 0, size)
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// Reset makes the decimals of the current chunk available again, zeroed.
func (s *DecimalSlab) Reset() {
	clear(s.buf)
	s.buf = s.buf[:0]
}

// decodeValue decodes one datum, returning the rest of b.
func decodeValue[B ~string | ~[]byte](b B, decs *DecimalSlab) (Datum, B, error) {
	if len(b) == 0 {
		return Null, b, errCorrupt
	}
	d := Datum{fam: Family(b[0])}
	b = b[1:]
	var err error
	switch d.fam {
	case FamUnknown:
	case FamBool:
		if len(b) == 0 || b[0] > 1 {
			return Null, b, errCorrupt
		}
		d.i, b = int64(b[0]), b[1:]
	case FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ:
		d.i, b, err = readVarint(b)
	case FamFloat:
		if len(b) < 8 {
			return Null, b, errCorrupt
		}
		d.i, b = int64(leUint64(b)), b[8:]
	case FamNumeric:
		d.dec, b, err = decodeDecimalValue(b, decs)
	case FamText, FamBytea, FamJSONB, FamUUID, FamJSON, FamJSONPath:
		d.s, b, err = readString(b)
	case FamInterval:
		d, b, err = decodeIntervalValue(b)
	case FamArray:
		if d.s, b, err = readString(b); err == nil && !validArray(d.s) {
			err = errCorrupt
		}
	case FamRecord:
		if d.s, b, err = readString(b); err == nil && !validRecord(d.s) {
			err = errCorrupt
		}
	case FamBit:
		if d.s, b, err = readString(b); err == nil && !validBits(d.s) {
			err = errCorrupt
		}
	case FamEnum:
		if d.s, b, err = readString(b); err == nil && !validEnum(d.s) {
			err = errCorrupt
		}
	default:
		return Null, b, errCorrupt
	}
	return d, b, err
}

// leUint64 reads 8 little-endian bytes.
func leUint64[B ~string | ~[]byte](b B) uint64 {
	var u uint64
	for i := 7; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u
}

func decodeIntervalValue[B ~string | ~[]byte](b B) (Datum, B, error) {
	var mon, day, us int64
	var err error
	if mon, b, err = readVarint(b); err != nil {
		return Null, b, err
	}
	if day, b, err = readVarint(b); err != nil {
		return Null, b, err
	}
	if us, b, err = readVarint(b); err != nil {
		return Null, b, err
	}
	if mon != int64(int32(mon)) || day != int64(int32(day)) {
		return Null, b, errCorrupt
	}
	return NewInterval(Interval{Months: int32(mon), Days: int32(day), Micros: us}), b, nil
}

// decodeDecimalValue decodes a numeric's payload into a decimal from decs
// (nil: the heap); a coefficient of up to 8 bytes is set without
// allocating.
func decodeDecimalValue[B ~string | ~[]byte](b B, decs *DecimalSlab) (*apd.Decimal, B, error) {
	if len(b) == 0 {
		return nil, b, errCorrupt
	}
	form := b[0]
	b = b[1:]
	switch form &^ decNegative {
	case decInfinite, decNaN, decFinite:
	default:
		return nil, b, errCorrupt
	}
	var d *apd.Decimal
	if decs != nil {
		d = decs.New()
	} else {
		d = new(apd.Decimal)
	}
	d.Negative = form&decNegative != 0
	switch form &^ decNegative {
	case decInfinite:
		d.Form = apd.Infinite
		return d, b, nil
	case decNaN:
		d.Form = apd.NaN
		return d, b, nil
	}
	exp, b, err := readVarint(b)
	if err != nil || exp < 2*apd.MinExponent || exp > 2*apd.MaxExponent {
		// No arithmetic here produces an exponent beyond apd's limits
		// (its contexts signal overflow first); a larger one is corrupt,
		// and printing it would build a string of that many digits.
		return nil, b, errCorrupt
	}
	mag, b, err := readBytes(b)
	if err != nil {
		return nil, b, err
	}
	d.Exponent = int32(exp)
	if len(mag) <= 8 {
		var u uint64
		for i := range len(mag) {
			u = u<<8 | uint64(mag[i])
		}
		d.Coeff.SetUint64(u)
	} else {
		d.Coeff.SetBytes([]byte(mag))
	}
	return d, b, nil
}

// uvarint is binary.Uvarint over bytes or a string.
func uvarint[B ~string | ~[]byte](b B) (uint64, int) {
	var x uint64
	var s uint
	for i := 0; i < len(b) && i < binary.MaxVarintLen64; i++ {
		c := b[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1) // overflow
			}
			return x | uint64(c)<<s, i + 1
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return 0, 0
}

func readVarint[B ~string | ~[]byte](b B) (int64, B, error) {
	ux, k := uvarint(b)
	if k <= 0 {
		return 0, b, errCorrupt
	}
	v := int64(ux >> 1)
	if ux&1 != 0 {
		v = ^v
	}
	return v, b[k:], nil
}

// readBytes reads a length-prefixed byte string, sharing b's memory.
func readBytes[B ~string | ~[]byte](b B) (B, B, error) {
	n, k := uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) || n > math.MaxInt32 {
		return b[:0], b, errCorrupt
	}
	b = b[k:]
	return b[:n], b[n:], nil
}

// readString reads a length-prefixed string: a copy of b's bytes, or,
// when b is a string, a substring sharing its memory.
func readString[B ~string | ~[]byte](b B) (string, B, error) {
	s, rest, err := readBytes(b)
	return string(s), rest, err
}

// ColDecoder decodes rows encoded by AppendRow into one scratch row,
// building only the datums of the columns Need marks (the others are
// NULL): a reader that keeps 3 columns of a 16-column table row skips
// the rest by their lengths. Columns at or past len(Need) are decoded.
// The row Decode returns is overwritten by the next call.
type ColDecoder struct {
	Need []bool
	// Decs supplies the decimals of numerics (nil: the heap); they are
	// never reused, so a caller may keep them past the next Decode.
	Decs *DecimalSlab
	row  Row
	all  []bool
}

// Decode decodes b as d selects. It never panics on arbitrary input.
func (d *ColDecoder) Decode(b []byte) (Row, error) {
	n, k := uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errCorrupt
	}
	if uint64(len(d.row)) != n {
		d.row = make(Row, n)
	}
	need := d.Need
	if len(need) < len(d.row) {
		if len(d.all) != len(d.row) {
			d.all = make([]bool, len(d.row))
			for i := range d.all {
				d.all[i] = i >= len(need) || need[i]
			}
		}
		need = d.all
	}
	if err := DecodeRowCols(d.row, b, need, d.Decs); err != nil {
		return nil, err
	}
	return d.row, nil
}

// DecodeRowCols decodes into dst the columns i of a row encoded by
// AppendRow for which need[i] is true, and sets the others to NULL
// without building their datums (a skipped numeric, text or array costs
// reading its length, not a decode or an allocation). dst must have as
// many datums as the row and need at least as many entries; decimals come
// from decs (nil: the heap). It never panics on arbitrary input, and
// reports errCorrupt for a row whose width is not len(dst), so a caller
// may fall back to DecodeRow.
func DecodeRowCols(dst Row, b []byte, need []bool, decs *DecimalSlab) error {
	n, k := uvarint(b)
	if k <= 0 || n != uint64(len(dst)) || len(need) < len(dst) {
		return errCorrupt
	}
	b = b[k:]
	for i := range dst {
		var err error
		if need[i] {
			dst[i], b, err = decodeValue(b, decs)
		} else {
			dst[i] = Null
			b, err = skipValue(b)
		}
		if err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(b) != 0 {
		return errCorrupt
	}
	return nil
}

// skipValue returns b past one datum's tag and payload, or nil and
// errCorrupt if b does not start with one. It validates lengths but not
// contents (a skipped array's elements are not checked).
func skipValue(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errCorrupt
	}
	fam := Family(b[0])
	b = b[1:]
	varints := 0
	switch fam {
	case FamUnknown:
		return b, nil
	case FamBool:
		if len(b) == 0 {
			return nil, errCorrupt
		}
		return b[1:], nil
	case FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ:
		varints = 1
	case FamInterval:
		varints = 3
	case FamFloat:
		if len(b) < 8 {
			return nil, errCorrupt
		}
		return b[8:], nil
	case FamNumeric:
		if len(b) == 0 {
			return nil, errCorrupt
		}
		form := b[0]
		b = b[1:]
		if form&^decNegative != decFinite {
			return b, nil
		}
		_, k := uvarint(b)
		if k <= 0 {
			return nil, errCorrupt
		}
		_, rest, err := readBytes(b[k:])
		return rest, err
	case FamText, FamBytea, FamJSONB, FamUUID, FamJSON, FamArray, FamRecord, FamBit, FamEnum, FamJSONPath:
		_, rest, err := readBytes(b)
		return rest, err
	default:
		return nil, errCorrupt
	}
	for range varints {
		_, k := uvarint(b)
		if k <= 0 {
			return nil, errCorrupt
		}
		b = b[k:]
	}
	return b, nil
}
