package repr

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// Enum types (CREATE TYPE name AS ENUM (...)). The catalog owns an enum
// type's name and its labels; repr knows the type by its pg_type OID
// (T.Enum, the type's array type having the next OID, as a composite's).
// A value carries its label and the label's sort order (PostgreSQL's
// float4 pg_enum.enumsortorder), so values compare, hash and key-encode
// without the catalog: the datum's string is the 8-byte order-preserving
// encoding of the sort order followed by the label bytes. Bytewise order
// of that string is declaration order (labels of one type have distinct
// sort orders), so Compare, the key encoding and the row codec treat it
// as an opaque string. Input from text needs the labels, which only the
// catalog has: the planner converts text with expr's enum_in, which
// receives the type's labels as an argument, and ParseText accepts only
// the internal form EnumInternalText prints (how plan text stores an enum
// literal).

// FamEnum values hold an enum label and its sort order (see above).
const FamEnum Family = FamBit + 1

// EnumOf returns the enum type with pg_type OID oid.
func EnumOf(oid uint32) T { return T{Family: FamEnum, Enum: oid} }

// IsEnum reports whether t is an enum type.
func (t T) IsEnum() bool { return t.Family == FamEnum }

// EnumLabel is one label of an enum type with its sort order.
type EnumLabel struct {
	Label string
	Order float64
}

// NewEnum returns the enum value of label l.
func NewEnum(l EnumLabel) Datum {
	buf := appendFloat(make([]byte, 0, 8+len(l.Label)), l.Order)
	return Datum{fam: FamEnum, s: string(append(buf, l.Label...))}
}

// EnumLabel returns the label and sort order of an enum datum.
func (d Datum) EnumLabel() EnumLabel {
	if len(d.s) < 8 {
		return EnumLabel{}
	}
	u := binary.BigEndian.Uint64([]byte(d.s[:8]))
	if u&(1<<63) != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	return EnumLabel{Label: d.s[8:], Order: math.Float64frombits(u)}
}

// validEnum reports whether s is an enum datum's string.
func validEnum(s string) bool { return len(s) >= 8 }

// enumInternalPrefix starts EnumInternalText's form.
const enumInternalPrefix = "\x01enum:"

// EnumInternalText is the plan-text form of an enum value: a marker, the
// sort order and the label. ParseText of an enum type reads it back; no
// client sends it (the planner converts client text with enum_in).
func EnumInternalText(d Datum) string {
	l := d.EnumLabel()
	return enumInternalPrefix + strconv.FormatFloat(l.Order, 'g', -1, 64) + ":" + l.Label
}

// parseEnumInternal reads EnumInternalText's form; any other text is
// 0A000, since reading a label needs the catalog's labels.
func parseEnumInternal(s string, t T) (Datum, error) {
	rest, ok := strings.CutPrefix(s, enumInternalPrefix)
	ord, label, ok2 := strings.Cut(rest, ":")
	f, err := strconv.ParseFloat(ord, 64)
	if !ok || !ok2 || err != nil {
		return Null, Unsupported("input of enum type %s without its labels", t.Name())
	}
	return NewEnum(EnumLabel{Label: label, Order: f}), nil
}

// EnumArrayInternalText is the plan-text form of an array of enum
// values: array text whose elements are EnumInternalText's, which
// ParseText of the array type reads back (NULLs and shape included).
func EnumArrayInternalText(d Datum) string {
	dims := d.ArrayDims()
	if dims == nil {
		return "{}"
	}
	buf := appendDimsDecoration(nil, d)
	buf, _ = appendNested(buf, d.Array(), dims, func(buf []byte, e Datum) []byte {
		if e.IsNull() {
			return append(buf, "NULL"...)
		}
		return appendArrayElem(buf, []byte(EnumInternalText(e)))
	})
	return string(buf)
}
