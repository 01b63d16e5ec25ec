package types

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
)

// Key encoding: an order-preserving, self-delimiting byte form of datums.
// For datums of the same family, bytes.Compare on encodings agrees with
// Compare, and equal datums (under Compare) encode identically, so encoded
// keys serve both as sort keys in Pebble and as hash-map keys for grouping.
// The encoding is not decodable in general (numeric scale and interval
// fields are normalized away); values that must round-trip are stored with
// AppendRow beside the key.
const (
	keyValue byte = 0x02 // a non-NULL value follows
	keyNull  byte = 0x03 // NULL: after every value, as in ORDER BY ASC
)

// AppendKey appends the key encoding of d to buf.
func AppendKey(buf []byte, d Datum) []byte {
	if d.fam == FamUnknown {
		return append(buf, keyNull)
	}
	buf = append(buf, keyValue)
	switch d.fam {
	case FamBool, FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ:
		return appendInt(buf, d.i)
	case FamFloat:
		return appendFloat(buf, d.Float())
	case FamNumeric:
		return appendDecimal(buf, d.dec)
	case FamText, FamBytea, FamJSONB:
		return appendBytes(buf, d.s)
	case FamInterval:
		return appendFloat(buf, d.Interval().span())
	}
	return buf
}

// AppendRowKey appends the key encodings of every datum of r.
func AppendRowKey(buf []byte, r Row) []byte {
	for _, d := range r {
		buf = AppendKey(buf, d)
	}
	return buf
}

// AppendColsKey appends the key encodings of r[cols[0]], r[cols[1]], ...
func AppendColsKey(buf []byte, r Row, cols []int) []byte {
	for _, c := range cols {
		buf = AppendKey(buf, r[c])
	}
	return buf
}

func appendInt(buf []byte, i int64) []byte {
	return binary.BigEndian.AppendUint64(buf, uint64(i)^(1<<63))
}

func appendFloat(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return binary.BigEndian.AppendUint64(buf, math.MaxUint64)
	case f == 0:
		f = 0 // fold -0 into +0
	}
	u := math.Float64bits(f)
	if f < 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(buf, u)
}

// appendBytes escapes 0x00 as 0x00 0xFF and terminates with 0x00 0x01, so
// a prefix sorts before its extensions.
func appendBytes(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		buf = append(buf, s[i])
		if s[i] == 0 {
			buf = append(buf, 0xFF)
		}
	}
	return append(buf, 0x00, 0x01)
}

// appendDecimal encodes a decimal as a class byte (negative, zero, positive,
// +infinity, NaN), then for nonzero finite values the adjusted exponent and
// the significant digits with trailing zeros removed, both complemented for
// negatives so that larger magnitudes sort first.
func appendDecimal(buf []byte, d *apd.Decimal) []byte {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return append(buf, 0x06)
	case d.Form == apd.Infinite && d.Negative:
		return append(buf, 0x00)
	case d.Form == apd.Infinite:
		return append(buf, 0x05)
	case d.IsZero():
		return append(buf, 0x03)
	}
	var scratch [40]byte // a coefficient that fits in 64 bits needs no allocation
	digits := d.Coeff.Append(scratch[:0], 10)
	n := len(digits)
	for n > 1 && digits[n-1] == '0' {
		n--
	}
	adj := int64(d.Exponent) + int64(len(digits))
	if !d.Negative {
		buf = append(buf, 0x04)
		buf = appendInt(buf, adj)
		buf = append(buf, digits[:n]...)
		return append(buf, 0x00)
	}
	buf = append(buf, 0x01)
	buf = appendInt(buf, ^adj)
	for i := 0; i < n; i++ {
		buf = append(buf, ^digits[i])
	}
	return append(buf, 0xFF)
}
