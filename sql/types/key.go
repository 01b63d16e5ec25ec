package types

import (
	"encoding/binary"
	"fmt"
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

// Decoding keys. The key encoding drops the family (an int and a timestamp
// encode alike) and normalizes some values (numeric scale, -0.0, interval
// fields), so a key decodes only together with its datums' families, and
// only for the families whose encoding loses nothing: booleans, integers,
// dates, times, timestamps, text, bytea and jsonb (and NULL). A multiset
// whose rows are all of those families can store each row once, as its
// key, plus one family byte per column (AppendKeyFamilies).

// keyLossless reports whether datums of family f decode exactly from
// their key encoding.
func keyLossless(f Family) bool {
	switch f {
	case FamUnknown, FamBool, FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ,
		FamText, FamBytea, FamJSONB:
		return true
	}
	return false
}

// AppendKeyFamilies appends one byte per datum of r, its family, and
// reports true, if every datum decodes exactly from AppendRowKey(r) with
// them (DecodeRowKey); otherwise it returns buf unchanged and false.
func AppendKeyFamilies(buf []byte, r Row) ([]byte, bool) {
	for _, d := range r {
		if !keyLossless(d.fam) {
			return buf, false
		}
	}
	for _, d := range r {
		buf = append(buf, byte(d.fam))
	}
	return buf, true
}

// DecodeRowKey decodes a row from its key encoding (AppendRowKey) and its
// families (AppendKeyFamilies): the result is identical to the encoded
// row. It never panics on arbitrary input; trailing bytes are an error.
func DecodeRowKey(key, fams []byte) (Row, error) {
	r := make(Row, len(fams))
	for i, f := range fams {
		var err error
		if r[i], key, err = decodeKeyDatum(key, Family(f)); err != nil {
			return nil, fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(key) != 0 {
		return nil, errCorrupt
	}
	return r, nil
}

// decodeKeyDatum decodes one datum of family f from the start of key.
func decodeKeyDatum(key []byte, f Family) (Datum, []byte, error) {
	if len(key) == 0 {
		return Null, nil, errCorrupt
	}
	switch {
	case key[0] == keyNull:
		return Null, key[1:], nil
	case key[0] != keyValue || f == FamUnknown || !keyLossless(f):
		return Null, nil, errCorrupt
	}
	key = key[1:]
	switch f {
	case FamText, FamBytea, FamJSONB:
		s, rest, err := decodeKeyBytes(key)
		return Datum{fam: f, s: s}, rest, err
	}
	if len(key) < 8 {
		return Null, nil, errCorrupt
	}
	i := int64(binary.BigEndian.Uint64(key) ^ (1 << 63))
	if f == FamBool && i != 0 && i != 1 {
		return Null, nil, errCorrupt
	}
	return Datum{fam: f, i: i}, key[8:], nil
}

// decodeKeyBytes inverts appendBytes.
func decodeKeyBytes(key []byte) (string, []byte, error) {
	var out []byte
	for i := 0; i+1 < len(key); i++ {
		if key[i] != 0 {
			continue
		}
		switch key[i+1] {
		case 0x01:
			out = append(out, key[:i]...)
			return string(out), key[i+2:], nil
		case 0xFF:
			out = append(out, key[:i+1]...)
			key = key[i+2:]
			i = -1
		default:
			return "", nil, errCorrupt
		}
	}
	return "", nil, errCorrupt
}
