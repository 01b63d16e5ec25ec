package repr

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Bit strings: PostgreSQL's bit(n) and bit varying(n) (varbit.c).
//
// Both types are FamBit; T.Varying tells bit varying from bit, and
// T.Length is n (0: no modifier, any length). A datum holds in s one
// header byte, the number of unused low-order bits of the last data byte
// (0..7, 0 when there are no data bytes), then the bits packed
// most-significant first. Invariant: the unused bits are zero, so equal
// bit strings have equal s and the row value encoding is s as a string.
//
// Order is PostgreSQL's bit_cmp: the data bytes compare as unsigned
// bytes over the shorter one's length, then the shorter string is
// smaller (with zero padding this is lexicographic order on bits, a
// prefix first). The key encoding is the escaped data bytes (as bytea)
// followed by the bit length as a big-endian uint32: equal keys for equal
// values, and byte order agrees with bit_cmp.

// MaxBitLen is PostgreSQL's VARBITMAXLEN, the longest bit string.
const MaxBitLen = 83886080

// CodeBitLength is 22026, string_data_length_mismatch.
const CodeBitLength = "22026"

// The bit string types without a length.
var (
	// Bit is bit without a modifier (pg_catalog.bit): any length.
	Bit = T{Family: FamBit}
	// VarBit is bit varying without a length.
	VarBit = T{Family: FamBit, Varying: true}
)

// BitN returns bit(n).
func BitN(n int32) T { return T{Family: FamBit, Length: n} }

// VarBitN returns bit varying(n); n == 0 means unbounded.
func VarBitN(n int32) T { return T{Family: FamBit, Varying: true, Length: n} }

// The OIDs of the bit string types and their arrays.
const (
	OIDBit         uint32 = 1560
	OIDBitArray    uint32 = 1561
	OIDVarBit      uint32 = 1562
	OIDVarBitArray uint32 = 1563
)

// NewBits returns the bit string of n bits whose packed bytes
// (most-significant bit first) start data; bits past n are cleared.
// data must hold at least (n+7)/8 bytes.
func NewBits(data []byte, n int) Datum {
	nb := (n + 7) / 8
	b := make([]byte, 1+nb)
	copy(b[1:], data[:nb])
	pad := nb*8 - n
	b[0] = byte(pad)
	if nb > 0 {
		b[nb] &= 0xFF << pad
	}
	return Datum{fam: FamBit, s: string(b)}
}

// NewBitsFunc returns the bit string of n bits whose bit i (from the
// left, 0-based) is f(i).
func NewBitsFunc(n int, f func(i int) bool) Datum {
	b := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		if f(i) {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	return NewBits(b, n)
}

// BitLen returns the number of bits of a bit string datum.
func (d Datum) BitLen() int {
	if len(d.s) == 0 {
		return 0
	}
	return 8*(len(d.s)-1) - int(d.s[0])
}

// BitBytes returns the packed bits of a bit string datum (most-significant
// first, unused low bits of the last byte zero).
func (d Datum) BitBytes() string {
	if len(d.s) == 0 {
		return ""
	}
	return d.s[1:]
}

// BitAt reports whether bit i (from the left, 0-based) of a bit string
// datum is set; 0 <= i < BitLen().
func (d Datum) BitAt(i int) bool { return d.s[1+i/8]&(0x80>>(i%8)) != 0 }

// validBits reports whether s is a well-formed bit string payload.
func validBits(s string) bool {
	if len(s) == 0 || s[0] > 7 || len(s) == 1 && s[0] != 0 {
		return false
	}
	return s[len(s)-1]&byte(1<<s[0]-1) == 0
}

// compareBits is bit_cmp over two payloads.
func compareBits(a, b Datum) int {
	da, db := a.BitBytes(), b.BitBytes()
	n := min(len(da), len(db))
	if c := strings.Compare(da[:n], db[:n]); c != 0 {
		return c
	}
	la, lb := a.BitLen(), b.BitLen()
	switch {
	case la < lb:
		return -1
	case la > lb:
		return 1
	}
	return 0
}

// appendBitsKey appends the key encoding of a bit string (see above).
func appendBitsKey(buf []byte, d Datum) []byte {
	buf = appendBytes(buf, d.BitBytes())
	return binary.BigEndian.AppendUint32(buf, uint32(d.BitLen()))
}

// decodeBitsKey inverts appendBitsKey.
func decodeBitsKey(key []byte) (Datum, []byte, error) {
	data, rest, err := decodeKeyBytes(key)
	if err != nil || len(rest) < 4 {
		return Null, nil, errCorrupt
	}
	n := int(binary.BigEndian.Uint32(rest))
	if (n+7)/8 != len(data) {
		return Null, nil, errCorrupt
	}
	d := NewBits([]byte(data), n)
	if d.BitBytes() != data {
		return Null, nil, errCorrupt
	}
	return d, rest[4:], nil
}

// appendBitsText appends bit_out's form: one 0 or 1 per bit.
func appendBitsText(buf []byte, d Datum) []byte {
	for i, n := 0, d.BitLen(); i < n; i++ {
		c := byte('0')
		if d.BitAt(i) {
			c = '1'
		}
		buf = append(buf, c)
	}
	return buf
}

// parseBits is bit_in / varbit_in: binary digits, optionally prefixed by
// b or B, or hexadecimal digits prefixed by x or X; t's length is checked
// before the digits, as PostgreSQL does (22026), and a bad digit is 22P02.
func parseBits(s string, t T) (Datum, error) {
	hex := false
	switch {
	case strings.HasPrefix(s, "b"), strings.HasPrefix(s, "B"):
		s = s[1:]
	case strings.HasPrefix(s, "x"), strings.HasPrefix(s, "X"):
		hex, s = true, s[1:]
	}
	n := len(s)
	if hex {
		if n > MaxBitLen/4 {
			return Null, Errorf(CodeProgramLimitExceeded, "bit string length exceeds the maximum allowed (%d)", MaxBitLen)
		}
		n *= 4
	}
	if err := checkBitsInput(n, t); err != nil {
		return Null, err
	}
	if hex {
		return parseHexBits(s)
	}
	return parseBinaryBits(s)
}

// checkBitsInput is the input functions' length check against t's
// modifier.
func checkBitsInput(n int, t T) error {
	switch {
	case n > MaxBitLen:
		return Errorf(CodeProgramLimitExceeded, "bit string length exceeds the maximum allowed (%d)", MaxBitLen)
	case t.Length <= 0:
		return nil
	case !t.Varying && n != int(t.Length):
		return errBitLengthMismatch(n, t.Length)
	case t.Varying && n > int(t.Length):
		return errBitTooLong(t.Length)
	}
	return nil
}

// errBitLengthMismatch is bit(n)'s 22026.
func errBitLengthMismatch(n int, want int32) error {
	return Errorf(CodeBitLength, "bit string length %d does not match type bit(%d)", n, want)
}

// errBitTooLong is bit varying(n)'s 22001.
func errBitTooLong(n int32) error {
	return Errorf(CodeStringTooLong, "bit string too long for type bit varying(%d)", n)
}

// parseBinaryBits parses binary digits.
func parseBinaryBits(s string) (Datum, error) {
	b := make([]byte, (len(s)+7)/8)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '1':
			b[i/8] |= 0x80 >> (i % 8)
		case '0':
		default:
			return Null, Errorf(CodeInvalidText, "\"%s\" is not a valid binary digit", firstRune(s[i:]))
		}
	}
	return NewBits(b, len(s)), nil
}

// parseHexBits parses hexadecimal digits, four bits each.
func parseHexBits(s string) (Datum, error) {
	b := make([]byte, (len(s)+1)/2)
	for i := 0; i < len(s); i++ {
		v, ok := HexDigit(s[i])
		if !ok {
			return Null, Errorf(CodeInvalidText, "\"%s\" is not a valid hexadecimal digit", firstRune(s[i:]))
		}
		b[i/2] |= v << (4 * (1 - i%2))
	}
	return NewBits(b, 4*len(s)), nil
}

// firstRune returns the first UTF-8 character of s (a byte if invalid).
func firstRune(s string) string {
	for i := range s {
		if i > 0 {
			return s[:i]
		}
	}
	return s
}

// FitBits applies t's length to a bit string as PostgreSQL's length
// coercions bit() and varbit() do: explicit casts pad bit(n) with zeros
// or truncate it, and truncate bit varying(n); otherwise (assignment,
// implicit) a length other than n, or over n for bit varying, is 22026.
func FitBits(d Datum, t T, explicit bool) (Datum, error) {
	n, want := d.BitLen(), int(t.Length)
	switch {
	case d.IsNull() || want <= 0 || n == want || t.Varying && n < want:
		return d, nil
	case !explicit && t.Varying:
		return Null, errBitTooLong(t.Length)
	case !explicit:
		return Null, errBitLengthMismatch(n, t.Length)
	}
	return NewBits([]byte(d.BitBytes()+strings.Repeat("\x00", (want+7)/8)), want), nil
}

// appendBitsBinary is bit_send: the bit length as an int32, then the
// packed bytes.
func appendBitsBinary(buf []byte, d Datum) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(d.BitLen()))
	return append(buf, d.BitBytes()...)
}

// parseBitsBinary is bit_recv / varbit_recv: an int32 length in
// 0..MaxBitLen (22P03 otherwise), t's length check (22026), then exactly
// the bytes that many bits take; unused trailing bits are cleared.
func parseBitsBinary(b []byte, t T) (Datum, error) {
	if len(b) < 4 {
		return Null, errBinary("insufficient data left in message")
	}
	n := int64(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || n > MaxBitLen {
		return Null, errBinary("invalid length in external bit string")
	}
	if err := checkBitsInput(int(n), t); err != nil {
		return Null, err
	}
	switch data := b[4:]; {
	case int64(len(data)) < (n+7)/8:
		return Null, errBinary("insufficient data left in message")
	case int64(len(data)) > (n+7)/8:
		return Null, errBinary("incorrect binary data format")
	default:
		return NewBits(data, int(n)), nil
	}
}

// BitsFromInt is bitfromint4/bitfromint8: the low n bits of v in two's
// complement, sign-extended when n exceeds width (32 or 64).
func BitsFromInt(v int64, n int) Datum {
	return NewBitsFunc(n, func(i int) bool {
		p := n - 1 - i // bit position from the least significant
		if p >= 63 {
			return v < 0
		}
		return v>>p&1 != 0
	})
}

// BitsToInt is bittoint4/bittoint8: the bits as an unsigned number of at
// most width bits (22003 beyond), reinterpreted as a signed integer.
func BitsToInt(d Datum, width int) (int64, error) {
	if d.BitLen() > width {
		return 0, errIntOutOfRange(int32(width))
	}
	var u uint64
	for i, n := 0, d.BitLen(); i < n; i++ {
		u <<= 1
		if d.BitAt(i) {
			u |= 1
		}
	}
	if width == 32 {
		return int64(int32(uint32(u))), nil
	}
	return int64(u), nil
}

// castToBits converts to bit(n) or bit varying(n): from a bit string by
// length coercion, from an integer by BitsFromInt (bit without a length
// is one bit there, as PostgreSQL's int4 cast treats typmod -1), from
// text by bit_in then length coercion.
func castToBits(d Datum, from, to T, explicit bool) (Datum, error) {
	switch d.fam {
	case FamBit:
		return FitBits(d, to, explicit)
	case FamInt:
		n := int(to.Length)
		if n <= 0 {
			n = 1
		}
		return BitsFromInt(d.i, n), nil
	}
	base := to
	base.Length = 0
	v, err := parseBits(d.s, base)
	if err != nil {
		return Null, err
	}
	return FitBits(v, to, explicit)
}

// bitsTypeName is format_type's name of a bit string type.
func bitsTypeName(t T) string {
	name := "bit"
	if t.Varying {
		name = "bit varying"
	}
	if t.Length > 0 {
		return fmt.Sprintf("%s(%d)", name, t.Length)
	}
	return name
}
