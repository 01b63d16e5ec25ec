package repr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

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
	case FamText, FamBytea, FamUUID, FamJSON, FamEnum, FamJSONPath:
		return appendBytes(buf, d.s)
	case FamJSONB:
		return appendJSONBKey(buf, d.s)
	case FamInterval:
		return appendFloat(buf, d.Interval().span())
	case FamArray:
		return appendArrayKey(buf, d)
	case FamRecord:
		return appendRecordKey(buf, d)
	case FamBit:
		return appendBitsKey(buf, d)
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
	if strings.IndexByte(s, 0) < 0 { // the common case: nothing to escape, one copy
		return append(append(buf, s...), 0x00, 0x01)
	}
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
	return appendDecimalDigits(buf, d.Negative, adj, digits[:n])
}

// appendDecimalDigits encodes a nonzero finite decimal given by its sign,
// adjusted exponent and significant digits (no leading or trailing zeros).
func appendDecimalDigits(buf []byte, neg bool, adj int64, digits []byte) []byte {
	if !neg {
		buf = append(buf, 0x04)
		buf = appendInt(buf, adj)
		buf = append(buf, digits...)
		return append(buf, 0x00)
	}
	buf = append(buf, 0x01)
	buf = appendInt(buf, ^adj)
	for _, c := range digits {
		buf = append(buf, ^c)
	}
	return append(buf, 0xFF)
}

// Decoding keys. The key encoding drops the family (an int and a timestamp
// encode alike) and normalizes some values (numeric trailing zeros, -0.0,
// interval fields), so a key decodes only together with hints: one
// family byte per datum, followed, for a numeric, by its exponent (a
// varint), which restores the trailing zeros. Keys of booleans, integers,
// dates, times, timestamps, text, bytea, jsonb, finite numerics other than
// -0 (and NULL) decode exactly that way; floats and intervals do not. A
// multiset whose rows decode from their keys can store each row once, as
// its key, plus the hints (AppendKeyHints).

// keyLossless reports whether d decodes exactly from its key encoding and
// hints.
func keyLossless(d Datum) bool {
	switch d.fam {
	case FamUnknown, FamBool, FamInt, FamDate, FamTime, FamTimestamp, FamTimestampTZ,
		FamText, FamBytea, FamUUID, FamJSON, FamBit, FamEnum, FamJSONPath:
		return true
	case FamJSONB:
		return jsonbEqForm(d.s) == d.s // the key decodes to jsonbEqForm
	case FamNumeric:
		return d.dec.Form == apd.Finite && !(d.dec.Negative && d.dec.IsZero()) &&
			d.dec.NumDigits() <= maxKeyDigits
	}
	return false
}

// maxKeyDigits bounds the digits of a numeric that decodes from its key:
// PostgreSQL's most (131072 before the point, 16383 after).
// decodeKeyDecimal refuses more, so that arbitrary input cannot make it
// build a huge coefficient, and a longer numeric (if arithmetic made one)
// is stored in the value encoding instead. The bound was once 1000 in the
// decoder alone: a 2000-digit numeric was stored as its key, and then its
// table could not be read or even loaded at startup.
const maxKeyDigits = 131072 + 16383

// KeyDecidesEquality reports whether, for two non-NULL values of type t,
// "=" is true exactly when their key encodings (AppendKey) are equal, and
// the encodings order as the values (char(n) is excluded: it ignores
// trailing blanks; floats and intervals are left out to stay clear of
// their equality corner cases).
func KeyDecidesEquality(t T) bool {
	switch t.Family {
	case FamBool, FamInt, FamDate, FamTimestamp, FamTimestampTZ, FamNumeric, FamBit, FamEnum:
		return true
	case FamText:
		return t.Kind != KindChar
	}
	return false
}

// AppendKeyHints appends the hints that decode AppendRowKey(r) back to r
// (DecodeRowKey) and reports true, if every datum of r decodes exactly;
// otherwise it returns buf unchanged and false.
func AppendKeyHints(buf []byte, r Row) ([]byte, bool) {
	for _, d := range r {
		if !keyLossless(d) {
			return buf, false
		}
	}
	for _, d := range r {
		buf = append(buf, byte(d.fam))
		if d.fam == FamNumeric {
			buf = binary.AppendVarint(buf, int64(d.dec.Exponent))
		}
	}
	return buf, true
}

// DecodeRowKey decodes a row from its key encoding (AppendRowKey) and its
// hints (AppendKeyHints): the result is identical to the encoded row. It
// never panics on arbitrary input; trailing bytes are an error.
func DecodeRowKey(key, hints []byte) (Row, error) {
	var r Row
	for len(hints) > 0 {
		f := Family(hints[0])
		hints = hints[1:]
		exp := int64(0)
		if f == FamNumeric {
			var k int
			if exp, k = binary.Varint(hints); k <= 0 || exp != int64(int32(exp)) {
				return nil, errCorrupt
			}
			hints = hints[k:]
		}
		var d Datum
		var err error
		if d, key, err = decodeKeyDatum(key, f, int32(exp)); err != nil {
			return nil, fmt.Errorf("column %d: %w", len(r), err)
		}
		r = append(r, d)
	}
	if len(key) != 0 {
		return nil, errCorrupt
	}
	return r, nil
}

// decodeKeyDatum decodes one datum of family f (with exponent exp if a
// numeric) from the start of key.
func decodeKeyDatum(key []byte, f Family, exp int32) (Datum, []byte, error) {
	if len(key) == 0 {
		return Null, nil, errCorrupt
	}
	switch {
	case key[0] == keyNull:
		return Null, key[1:], nil
	case key[0] == keyValue && f == FamBit:
		return decodeBitsKey(key[1:])
	case key[0] == keyValue && f == FamEnum:
		s, rest, err := decodeKeyBytes(key[1:])
		if err == nil && !validEnum(s) {
			err = errCorrupt
		}
		return Datum{fam: f, s: s}, rest, err
	case key[0] == keyValue && f == FamJSONPath:
		s, rest, err := decodeKeyBytes(key[1:])
		return Datum{fam: f, s: s}, rest, err
	case key[0] != keyValue || f == FamUnknown || f == FamFloat || f == FamInterval || f > FamJSON:
		return Null, nil, errCorrupt
	}
	key = key[1:]
	switch f {
	case FamJSONB:
		s, rest, err := decodeJSONBKey(key)
		d := Datum{fam: f, s: s}
		if err == nil && !bytes.Equal(AppendKey(nil, d)[1:], key[:len(key)-len(rest)]) {
			// a jsonb key compares numbers by value: only the text
			// with the fewest digits decodes (keyLossless)
			return Null, nil, errCorrupt
		}
		return d, rest, err
	case FamText, FamBytea, FamUUID, FamJSON:
		s, rest, err := decodeKeyBytes(key)
		return Datum{fam: f, s: s}, rest, err
	case FamNumeric:
		dec, rest, err := decodeKeyDecimal(key, exp)
		return Datum{fam: f, dec: dec}, rest, err
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

// decodeKeyDecimal inverts appendDecimal for a finite value with exponent
// exp: the significant digits, then as many zeros as the exponent implies.
func decodeKeyDecimal(key []byte, exp int32) (*apd.Decimal, []byte, error) {
	if len(key) == 0 {
		return nil, nil, errCorrupt
	}
	class, key := key[0], key[1:]
	d := &apd.Decimal{Exponent: exp}
	switch class {
	case 0x03:
		return d, key, nil
	case 0x01, 0x04:
	default:
		return nil, nil, errCorrupt
	}
	neg := class == 0x01
	if len(key) < 8 {
		return nil, nil, errCorrupt
	}
	adj := int64(binary.BigEndian.Uint64(key) ^ (1 << 63))
	if neg {
		adj = ^adj
	}
	key = key[8:]
	end, term := 0, byte(0x00)
	if neg {
		term = 0xFF
	}
	for end < len(key) && key[end] != term {
		end++
	}
	if end == 0 || end == len(key) || end > maxKeyDigits {
		return nil, nil, errCorrupt
	}
	digits := make([]byte, end, end+8)
	for i := range end {
		c := key[i]
		if neg {
			c = ^c
		}
		if c < '0' || c > '9' || i == 0 && c == '0' || i == end-1 && c == '0' {
			return nil, nil, errCorrupt
		}
		digits[i] = c
	}
	zeros := adj - int64(exp) - int64(end) // trailing zeros the key dropped
	if zeros < 0 || int64(end)+zeros > maxKeyDigits {
		return nil, nil, errCorrupt
	}
	for range zeros {
		digits = append(digits, '0')
	}
	if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return nil, nil, errCorrupt
	}
	d.Negative = neg
	return d, key[end+1:], nil
}

// decodeKeyBytes inverts appendBytes.
func decodeKeyBytes(key []byte) (string, []byte, error) {
	var out []byte
	for i := 0; i+1 < len(key); i++ {
		j := bytes.IndexByte(key[i:], 0)
		if j < 0 || i+j+1 >= len(key) {
			break
		}
		i += j
		if key[i+1] == 0x01 && out == nil { // the common case: no escape, one copy
			return string(key[:i]), key[i+2:], nil
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
