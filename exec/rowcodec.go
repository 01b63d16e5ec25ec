package exec

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/sql/types"
)

// State values are rows encoded with appendRow: per datum a family byte
// and a payload that round-trips exactly (numeric keeps its scale, floats
// their bits). This is exec's private codec for its own state; it exists
// because sql/types did not yet offer a row value codec when exec was
// written.

var errCorrupt = errors.New("corrupt state value")

// appendRow appends the value encoding of r to buf.
func appendRow(buf []byte, r types.Row) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(r)))
	for _, d := range r {
		buf = appendDatum(buf, d)
	}
	return buf
}

func appendDatum(buf []byte, d types.Datum) []byte {
	buf = append(buf, byte(d.Family()))
	switch d.Family() {
	case types.FamBool, types.FamInt, types.FamDate, types.FamTime, types.FamTimestamp, types.FamTimestampTZ:
		return binary.AppendVarint(buf, d.Int())
	case types.FamFloat:
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(d.Float()))
	case types.FamNumeric:
		return appendString(buf, d.Numeric().String())
	case types.FamText, types.FamBytea, types.FamJSONB:
		return appendString(buf, d.Text())
	case types.FamInterval:
		iv := d.Interval()
		buf = binary.AppendVarint(buf, int64(iv.Months))
		buf = binary.AppendVarint(buf, int64(iv.Days))
		return binary.AppendVarint(buf, iv.Micros)
	}
	return buf
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// decodeRow decodes a row encoded by appendRow, returning the rest of b.
func decodeRow(b []byte) (types.Row, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, errCorrupt
	}
	b = b[k:]
	r := make(types.Row, n)
	for i := range r {
		var err error
		if r[i], b, err = decodeDatum(b); err != nil {
			return nil, nil, err
		}
	}
	return r, b, nil
}

func decodeDatum(b []byte) (types.Datum, []byte, error) {
	if len(b) == 0 {
		return types.Null, nil, errCorrupt
	}
	fam, b := types.Family(b[0]), b[1:]
	switch fam {
	case types.FamUnknown:
		return types.Null, b, nil
	case types.FamBool, types.FamInt, types.FamDate, types.FamTime, types.FamTimestamp, types.FamTimestampTZ:
		i, k := binary.Varint(b)
		if k <= 0 {
			return types.Null, nil, errCorrupt
		}
		return intDatum(fam, i), b[k:], nil
	case types.FamFloat:
		if len(b) < 8 {
			return types.Null, nil, errCorrupt
		}
		return types.NewFloat(math.Float64frombits(binary.BigEndian.Uint64(b))), b[8:], nil
	case types.FamNumeric, types.FamText, types.FamBytea, types.FamJSONB:
		return decodeStringDatum(fam, b)
	case types.FamInterval:
		return decodeInterval(b)
	}
	return types.Null, nil, errCorrupt
}

func intDatum(fam types.Family, i int64) types.Datum {
	switch fam {
	case types.FamBool:
		return types.NewBool(i != 0)
	case types.FamDate:
		return types.NewDate(int32(i))
	case types.FamTime:
		return types.NewTime(i)
	case types.FamTimestamp:
		return types.NewTimestamp(i)
	case types.FamTimestampTZ:
		return types.NewTimestampTZ(i)
	}
	return types.NewInt(i)
}

func decodeStringDatum(fam types.Family, b []byte) (types.Datum, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return types.Null, nil, errCorrupt
	}
	s, b := string(b[k:k+int(n)]), b[k+int(n):]
	switch fam {
	case types.FamNumeric:
		d, _, err := apd.NewFromString(s)
		if err != nil {
			return types.Null, nil, errCorrupt
		}
		return types.NewNumeric(d), b, nil
	case types.FamBytea:
		return types.NewBytea([]byte(s)), b, nil
	case types.FamJSONB:
		return types.NewJSONB(s), b, nil
	}
	return types.NewText(s), b, nil
}

func decodeInterval(b []byte) (types.Datum, []byte, error) {
	var v [3]int64
	for i := range v {
		x, k := binary.Varint(b)
		if k <= 0 {
			return types.Null, nil, errCorrupt
		}
		v[i], b = x, b[k:]
	}
	return types.NewInterval(types.Interval{Months: int32(v[0]), Days: int32(v[1]), Micros: v[2]}), b, nil
}
