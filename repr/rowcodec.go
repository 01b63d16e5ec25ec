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
// magnitude; text, bytea, jsonb, uuid, json a length-prefixed string; an
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
	case FamText, FamBytea, FamJSONB, FamUUID, FamJSON, FamArray:
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
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errCorrupt
	}
	b = b[k:]
	r := make(Row, n)
	for i := range r {
		var err error
		if r[i], b, err = decodeValue(b); err != nil {
			return nil, fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(b) != 0 {
		return nil, errCorrupt
	}
	return r, nil
}

// decodeValue decodes one datum, returning the rest of b.
func decodeValue(b []byte) (Datum, []byte, error) {
	if len(b) == 0 {
		return Null, nil, errCorrupt
	}
	d := Datum{fam: Family(b[0])}
	b = b[1:]
	var err error
	switch d.fam {
	case FamUnknown:
	case FamBool:
		if len(b) == 0 || b[0] > 1 {
			return Null, nil, errCorrupt
		}
		d.i, b = int64(b[0]), b[1:]
	case FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ:
		d.i, b, err = readVarint(b)
	case FamFloat:
		if len(b) < 8 {
			return Null, nil, errCorrupt
		}
		d.i, b = int64(binary.LittleEndian.Uint64(b)), b[8:]
	case FamNumeric:
		d.dec, b, err = decodeDecimalValue(b)
	case FamText, FamBytea, FamJSONB, FamUUID, FamJSON:
		d.s, b, err = readString(b)
	case FamInterval:
		d, b, err = decodeIntervalValue(b)
	case FamArray:
		if d.s, b, err = readString(b); err == nil && !validArray(d.s) {
			err = errCorrupt
		}
	default:
		return Null, nil, errCorrupt
	}
	return d, b, err
}

func decodeIntervalValue(b []byte) (Datum, []byte, error) {
	var mon, day, us int64
	var err error
	if mon, b, err = readVarint(b); err != nil {
		return Null, nil, err
	}
	if day, b, err = readVarint(b); err != nil {
		return Null, nil, err
	}
	if us, b, err = readVarint(b); err != nil {
		return Null, nil, err
	}
	if mon != int64(int32(mon)) || day != int64(int32(day)) {
		return Null, nil, errCorrupt
	}
	return NewInterval(Interval{Months: int32(mon), Days: int32(day), Micros: us}), b, nil
}

func decodeDecimalValue(b []byte) (*apd.Decimal, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errCorrupt
	}
	form, b := b[0], b[1:]
	d := &apd.Decimal{Negative: form&decNegative != 0}
	switch form &^ decNegative {
	case decInfinite:
		d.Form = apd.Infinite
		return d, b, nil
	case decNaN:
		d.Form = apd.NaN
		return d, b, nil
	case decFinite:
	default:
		return nil, nil, errCorrupt
	}
	exp, b, err := readVarint(b)
	if err != nil || exp != int64(int32(exp)) {
		return nil, nil, errCorrupt
	}
	mag, b, err := readString(b)
	if err != nil {
		return nil, nil, err
	}
	d.Exponent = int32(exp)
	d.Coeff.SetBytes([]byte(mag))
	return d, b, nil
}

func readVarint(b []byte) (int64, []byte, error) {
	v, k := binary.Varint(b)
	if k <= 0 {
		return 0, nil, errCorrupt
	}
	return v, b[k:], nil
}

func readString(b []byte) (string, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) || n > math.MaxInt32 {
		return "", nil, errCorrupt
	}
	b = b[k:]
	return string(b[:n]), b[n:], nil
}
