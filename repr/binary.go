package repr

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Binary format: PostgreSQL's send/receive functions, big-endian. Times
// count microseconds from 2000-01-01 (integer datetimes), dates days from
// 2000-01-01, intervals are (micros int64, days int32, months int32),
// numerics are base-10000 digit groups, jsonb is a version byte 1 and
// the text.

// jsonbBinaryVersion is the only jsonb binary format version.
const jsonbBinaryVersion = 1

// Numeric sign words of the binary format.
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaN    = 0xC000
	numericPInf   = 0xD000
	numericNInf   = 0xF000
	maxNumericDsc = 0x3FFF
	// infDscale is the dscale PostgreSQL 15 sends for ±Infinity (bits of
	// its special-value header read as a scale); receivers ignore it.
	infDscale = 0x20
)

// AppendBinary appends the binary form of d as type t (NULL appends
// nothing; the wire length -1 is the caller's).
func AppendBinary(buf []byte, d Datum, t T) ([]byte, error) {
	switch d.fam {
	case FamUnknown:
		return buf, nil
	case FamBool:
		return append(buf, byte(d.i)), nil
	case FamInt:
		return appendIntBinary(buf, d.i, intWidth(t)), nil
	case FamFloat:
		if floatWidth(t) == 32 {
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(d.Float()))), nil
		}
		return binary.BigEndian.AppendUint64(buf, uint64(d.i)), nil
	case FamNumeric:
		return appendNumericBinary(buf, d.dec), nil
	case FamText, FamBytea, FamUUID, FamJSON:
		return append(buf, d.s...), nil
	case FamJSONB:
		return append(append(buf, jsonbBinaryVersion), d.s...), nil
	case FamJSONPath:
		return append(append(buf, jsonpathBinaryVersion), d.s...), nil
	case FamEnum:
		return append(buf, d.EnumLabel().Label...), nil
	case FamDate:
		return binary.BigEndian.AppendUint32(buf, uint32(d.Date())), nil
	case FamTime, FamTimestamp, FamTimestampTZ:
		return binary.BigEndian.AppendUint64(buf, uint64(d.i)), nil
	case FamArray:
		return appendArrayBinary(buf, d, t)
	case FamRecord:
		return appendRecordBinary(buf, d)
	case FamBit:
		return appendBitsBinary(buf, d), nil
	case FamInterval:
		buf = binary.BigEndian.AppendUint64(buf, uint64(d.i))
		buf = binary.BigEndian.AppendUint32(buf, uint32(d.day))
		return binary.BigEndian.AppendUint32(buf, uint32(d.mon)), nil
	}
	return buf, Unsupported("binary output of type %s", t.Name())
}

func appendIntBinary(buf []byte, i int64, w int32) []byte {
	switch w {
	case 16:
		return binary.BigEndian.AppendUint16(buf, uint16(i))
	case 32:
		return binary.BigEndian.AppendUint32(buf, uint32(i))
	}
	return binary.BigEndian.AppendUint64(buf, uint64(i))
}

// appendNumericBinary encodes ndigits, weight, sign, dscale and the
// base-10000 digit groups (leading and trailing zero groups stripped).
func appendNumericBinary(buf []byte, d *apd.Decimal) []byte {
	header := func(n, weight int, sign, dscale uint16) []byte {
		buf = binary.BigEndian.AppendUint16(buf, uint16(n))
		buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
		buf = binary.BigEndian.AppendUint16(buf, sign)
		return binary.BigEndian.AppendUint16(buf, dscale)
	}
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return header(0, 0, numericNaN, 0)
	case d.Form == apd.Infinite && d.Negative:
		return header(0, 0, numericNInf, infDscale)
	case d.Form == apd.Infinite:
		return header(0, 0, numericPInf, infDscale)
	}
	groups, weight := numericGroups(d)
	sign := uint16(numericPos)
	if d.Negative && len(groups) > 0 {
		sign = numericNeg
	}
	dscale := max(0, -int(d.Exponent))
	buf = header(len(groups), weight, sign, uint16(min(dscale, maxNumericDsc)))
	for _, g := range groups {
		buf = binary.BigEndian.AppendUint16(buf, g)
	}
	return buf
}

// numericGroups splits |d| into base-10000 groups aligned on the decimal
// point; weight is the power of 10000 of the first group.
func numericGroups(d *apd.Decimal) ([]uint16, int) {
	digits := d.Coeff.String()
	if digits == "0" {
		return nil, 0
	}
	exp := int(d.Exponent)
	if exp > 0 {
		digits += strings.Repeat("0", exp)
		exp = 0
	}
	intLen := len(digits) + exp // digits before the point; may be <= 0
	var intPart, fracPart string
	if intLen > 0 {
		intPart, fracPart = digits[:intLen], digits[intLen:]
	} else {
		fracPart = strings.Repeat("0", -intLen) + digits
	}
	intPart = strings.Repeat("0", (4-len(intPart)%4)%4) + intPart
	fracPart += strings.Repeat("0", (4-len(fracPart)%4)%4)
	all := intPart + fracPart
	weight := len(intPart)/4 - 1
	groups := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		groups = append(groups, uint16(atoi(all[i:i+4])))
	}
	for len(groups) > 0 && groups[0] == 0 {
		groups, weight = groups[1:], weight-1
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	return groups, weight
}

// errBinary is PostgreSQL's 22P03 invalid_binary_representation.
func errBinary(format string, args ...any) error {
	return Errorf("22P03", format, args...)
}

// ParseBinary decodes the binary form of a value of type t, applying t's
// modifiers as the receive function does. It never panics.
func ParseBinary(b []byte, t T) (Datum, error) {
	if n := t.Size(); n > 0 && len(b) != int(n) && t.Family != FamBool {
		return Null, errBinary("incorrect binary data format")
	}
	switch t.Family {
	case FamBool:
		if len(b) != 1 {
			return Null, errBinary("incorrect binary data format")
		}
		return NewBool(b[0] != 0), nil
	case FamInt:
		if t.OIDKind != NotOID {
			return NewInt(int64(binary.BigEndian.Uint32(b))), nil // oidrecv: unsigned
		}
		return NewInt(readIntBinary(b, intWidth(t))), nil
	case FamFloat:
		if len(b) == 4 {
			return NewFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b)))), nil
		}
		return NewFloat(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case FamNumeric:
		return parseNumericBinary(b, t)
	case FamText, FamUnknown:
		return parseString(string(b), t)
	case FamBytea:
		return NewBytea(b), nil
	case FamJSON:
		return ParseJSON(string(b))
	case FamUUID:
		if len(b) != 16 {
			return Null, errBinary("invalid uuid length")
		}
		return Datum{fam: FamUUID, s: string(b)}, nil
	case FamJSONB:
		if len(b) == 0 || b[0] != jsonbBinaryVersion {
			return Null, errBinary("unsupported jsonb version number")
		}
		return ParseJSONB(string(b[1:]))
	case FamJSONPath:
		if len(b) == 0 || b[0] != jsonpathBinaryVersion {
			return Null, errBinary("unsupported jsonpath version number: %d", firstByte(b))
		}
		return ParseJSONPath(string(b[1:]))
	case FamArray:
		return parseArrayBinary(b, t)
	case FamRecord:
		return Null, Unsupported("binary input of anonymous composite types")
	case FamBit:
		return parseBitsBinary(b, t)
	case FamEnum:
		return Null, Unsupported("binary input of enum type %s without its labels", t.Name())
	}
	return parseDatetimeBinary(b, t)
}

// parseDatetimeBinary decodes date, time, timestamp(tz) and interval.
func parseDatetimeBinary(b []byte, t T) (Datum, error) {
	switch t.Family {
	case FamDate:
		return NewDate(int32(binary.BigEndian.Uint32(b))), nil
	case FamTime:
		us := int64(binary.BigEndian.Uint64(b))
		if us < 0 || us > usPerDay {
			return Null, Errorf(CodeDatetimeOverflow, "time out of range")
		}
		return NewTime(us), nil
	case FamTimestamp, FamTimestampTZ:
		us := int64(binary.BigEndian.Uint64(b))
		if !isInfiniteTS(us) && (us < minTimestamp || us > maxTimestamp) {
			return Null, Errorf(CodeDatetimeOverflow, "timestamp out of range")
		}
		return Datum{fam: t.Family, i: us}, nil
	case FamInterval:
		return NewInterval(Interval{
			Micros: int64(binary.BigEndian.Uint64(b)),
			Days:   int32(binary.BigEndian.Uint32(b[8:])),
			Months: int32(binary.BigEndian.Uint32(b[12:])),
		}), nil
	}
	return Null, Unsupported("binary input of type %s", t.Name())
}

func readIntBinary(b []byte, w int32) int64 {
	switch w {
	case 16:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case 32:
		return int64(int32(binary.BigEndian.Uint32(b)))
	}
	return int64(binary.BigEndian.Uint64(b))
}

// parseNumericBinary decodes the base-10000 form and applies t's typmod.
func parseNumericBinary(b []byte, t T) (Datum, error) {
	if len(b) < 8 {
		return Null, errBinary("insufficient data left in message")
	}
	n := int(binary.BigEndian.Uint16(b))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign, dscale := binary.BigEndian.Uint16(b[4:]), int(binary.BigEndian.Uint16(b[6:]))
	if len(b) != 8+2*n {
		return Null, errBinary("insufficient data left in message")
	}
	switch sign {
	case numericNaN:
		return NewNumeric(&apd.Decimal{Form: apd.NaN}), nil
	case numericPInf, numericNInf:
		return fitNumeric(&apd.Decimal{Form: apd.Infinite, Negative: sign == numericNInf}, t)
	case numericPos, numericNeg:
	default:
		return Null, errBinary("invalid sign in external \"numeric\" value")
	}
	if dscale > maxNumericDsc {
		return Null, errBinary("invalid scale in external \"numeric\" value")
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		g := binary.BigEndian.Uint16(b[8+2*i:])
		if g >= 10000 {
			return Null, errBinary("invalid digit in external \"numeric\" value")
		}
		sb.WriteString(string(appendPadded(nil, int64(g), 4)))
	}
	return numericFromGroups(sb.String(), n, weight, dscale, sign == numericNeg, t)
}

// numericFromGroups builds the decimal digits×10^(4*(weight+1-n)) and
// rounds it to the display scale.
func numericFromGroups(digits string, n, weight, dscale int, neg bool, t T) (Datum, error) {
	d := &apd.Decimal{Negative: neg}
	if digits == "" {
		digits = "0"
	}
	if _, ok := d.Coeff.SetString(digits, 10); !ok {
		return Null, errBinary("invalid digit in external \"numeric\" value")
	}
	d.Exponent = int32(4 * (weight + 1 - n))
	var r apd.Decimal
	if _, err := numericCtx.Quantize(&r, d, int32(-dscale)); err != nil {
		return Null, errBinary("invalid scale in external \"numeric\" value")
	}
	return fitNumeric(normalizeNumeric(&r), t)
}
