package repr

import "fmt"

// Family is the runtime representation class of a SQL type. Several SQL
// types share a family (smallint, integer and bigint are all FamInt); the
// static type T distinguishes them.
type Family uint8

// The families. FamUnknown is the type of an untyped NULL or string literal
// before it is resolved.
const (
	FamUnknown Family = iota
	FamBool
	FamInt
	FamFloat
	FamNumeric
	FamText
	FamBytea
	FamDate
	FamTime
	FamTimestamp
	FamTimestampTZ
	FamInterval
	FamJSONB
	FamUUID
	FamJSON
	// FamArray is an array of up to MaxArrayDims dimensions (lower bounds
	// 1) of the type T.ElemType(); its datum holds the shape and the
	// elements (array.go, array_dims.go).
	FamArray
	// FamRecord is a record: the anonymous record type or a named
	// composite type (T.Composite); its datum holds its fields and their
	// types (record.go).
	FamRecord
	// FamBit is a bit string, bit(n) or bit varying(n) (bits.go).
	FamBit
)

// T is a static SQL type: a family plus the details that distinguish the
// SQL types within it (width in bits for int and float, length for varchar
// and char, precision and scale for numeric). The zero value is Unknown.
//
// Invariant: OID() identifies T up to its modifiers (Width of text types,
// Precision/Scale of numeric), which TypeMod() carries.
type T struct {
	Family Family
	// Width is 16/32/64 for ints, 32/64 for floats.
	Width int32
	// Kind distinguishes text, varchar and char within FamText.
	Kind TextKind
	// Length is n in varchar(n) / char(n); 0 means unbounded.
	Length int32
	// Precision and Scale of numeric(p,s); Precision 0 means unconstrained.
	Precision, Scale int32
	// Elem is the element family of an array type (FamArray); the other
	// fields then describe the element type (see ElemType). Zero otherwise.
	Elem Family
	// OIDKind marks the object-identifier types within FamInt (Width 32):
	// oid and the reg* types (oid.go). Zero for the other types.
	OIDKind OIDKind
	// Vector marks int2vector and oidvector: a FamArray of int2 or oid
	// printed space-separated and subscripted from 0 (oid.go).
	Vector bool
	// Composite is the pg_type OID of a named composite type (CREATE
	// TYPE ... AS) of FamRecord, or of the element of an array of one;
	// 0 for the anonymous record. The catalog knows its fields; values
	// are records like any other (composite.go).
	Composite uint32 `json:",omitempty"`
	// Varying marks bit varying within FamBit (Length is then its
	// maximum, 0 unbounded; for bit, Length 0 means any length).
	Varying bool `json:",omitempty"`
	// Enum is the pg_type OID of an enum type (CREATE TYPE ... AS ENUM)
	// of FamEnum, or of the element of an array of one (enum.go).
	Enum uint32 `json:",omitempty"`
}

// TextKind distinguishes the three SQL character types.
type TextKind uint8

// The character types.
const (
	KindText TextKind = iota
	KindVarchar
	KindChar
	// KindName is PostgreSQL's name: text of at most 63 bytes (OID 19).
	KindName
	// KindQChar is PostgreSQL's one-byte "char" type (OID 18).
	KindQChar
)

// The common types.
var (
	Unknown     = T{Family: FamUnknown}
	Bool        = T{Family: FamBool}
	Int2        = T{Family: FamInt, Width: 16}
	Int4        = T{Family: FamInt, Width: 32}
	Int8        = T{Family: FamInt, Width: 64}
	Float4      = T{Family: FamFloat, Width: 32}
	Float8      = T{Family: FamFloat, Width: 64}
	Numeric     = T{Family: FamNumeric}
	Text        = T{Family: FamText}
	Bytea       = T{Family: FamBytea}
	Date        = T{Family: FamDate}
	TimeT       = T{Family: FamTime}
	Timestamp   = T{Family: FamTimestamp}
	TimestampTZ = T{Family: FamTimestampTZ}
	IntervalT   = T{Family: FamInterval}
	JSONB       = T{Family: FamJSONB}
	UUID        = T{Family: FamUUID}
	JSON        = T{Family: FamJSON}
)

// Varchar returns varchar(n); n == 0 means unbounded.
func Varchar(n int32) T { return T{Family: FamText, Kind: KindVarchar, Length: n} }

// Char returns char(n).
func Char(n int32) T { return T{Family: FamText, Kind: KindChar, Length: n} }

// NumericPS returns numeric(p,s).
func NumericPS(p, s int32) T { return T{Family: FamNumeric, Precision: p, Scale: s} }

// PostgreSQL type OIDs of the supported types.
const (
	OIDBool        uint32 = 16
	OIDBytea       uint32 = 17
	OIDInt8        uint32 = 20
	OIDInt2        uint32 = 21
	OIDInt4        uint32 = 23
	OIDText        uint32 = 25
	OIDJSONB       uint32 = 3802
	OIDUUID        uint32 = 2950
	OIDJSON        uint32 = 114
	OIDFloat4      uint32 = 700
	OIDFloat8      uint32 = 701
	OIDUnknown     uint32 = 705
	OIDBpchar      uint32 = 1042
	OIDVarchar     uint32 = 1043
	OIDDate        uint32 = 1082
	OIDTime        uint32 = 1083
	OIDTimestamp   uint32 = 1114
	OIDTimestampTZ uint32 = 1184
	OIDInterval    uint32 = 1186
	OIDNumeric     uint32 = 1700
)

// OID returns the PostgreSQL type OID of t.
func (t T) OID() uint32 {
	if oid, ok := t.oidOfSpecial(); ok {
		return oid
	}
	switch t.Family {
	case FamBool:
		return OIDBool
	case FamInt:
		switch t.Width {
		case 16:
			return OIDInt2
		case 32:
			return OIDInt4
		}
		return OIDInt8
	case FamFloat:
		if t.Width == 32 {
			return OIDFloat4
		}
		return OIDFloat8
	case FamNumeric:
		return OIDNumeric
	case FamText:
		switch t.Kind {
		case KindVarchar:
			return OIDVarchar
		case KindChar:
			return OIDBpchar
		}
		return OIDText
	case FamBytea:
		return OIDBytea
	case FamDate:
		return OIDDate
	case FamTime:
		return OIDTime
	case FamTimestamp:
		return OIDTimestamp
	case FamTimestampTZ:
		return OIDTimestampTZ
	case FamInterval:
		return OIDInterval
	case FamJSONB:
		return OIDJSONB
	case FamUUID:
		return OIDUUID
	case FamJSON:
		return OIDJSON
	case FamBit:
		if t.Varying {
			return OIDVarBit
		}
		return OIDBit
	case FamEnum:
		return t.Enum
	case FamJSONPath:
		return OIDJSONPath
	case FamArray:
		if t.Composite != 0 {
			return CompositeArrayOID(t.Composite)
		}
		if t.Enum != 0 {
			return t.Enum + 1
		}
		return arrayOIDs[t.ElemType().OID()]
	case FamRecord:
		if t.Composite != 0 {
			return t.Composite
		}
		return OIDRecord
	}
	return OIDUnknown
}

// TypeMod returns the PostgreSQL atttypmod of t: -1 when unconstrained.
func (t T) TypeMod() int32 {
	switch {
	case t.Family == FamArray:
		return t.ElemType().TypeMod()
	case t.Family == FamText && t.Length > 0:
		return t.Length + 4
	case t.Family == FamBit && t.Length > 0:
		return t.Length
	case t.Family == FamNumeric && t.Precision > 0:
		return (t.Precision<<16 | t.Scale&0x7ff) + 4 // PostgreSQL keeps an 11-bit scale
	}
	return -1
}

// Size returns the pg_type.typlen of t: the fixed width in bytes, or -1.
func (t T) Size() int16 {
	switch t.Family {
	case FamBool:
		return 1
	case FamText:
		switch t.Kind {
		case KindName:
			return 64
		case KindQChar:
			return 1
		}
	case FamInt, FamFloat:
		return int16(t.Width / 8)
	case FamDate:
		return 4
	case FamTime, FamTimestamp, FamTimestampTZ:
		return 8
	case FamInterval, FamUUID:
		return 16
	}
	return -1
}

// FromOID returns the type with the given OID (without modifiers).
func FromOID(oid uint32) (T, bool) {
	for _, s := range specialTypes {
		if s.oid == oid {
			return s.t, true
		}
		if s.arrayOID == oid {
			return ArrayOf(s.t), true
		}
	}
	switch oid {
	case OIDRecord:
		return Record, true
	case OIDRecordArray:
		return ArrayOf(Record), true
	}
	for _, t := range scalarTypes {
		if t.OID() == oid {
			return t, true
		}
		if ArrayOf(t).OID() == oid {
			return ArrayOf(t), true
		}
	}
	return Unknown, oid == OIDUnknown
}

// Name returns the SQL name of t as PostgreSQL's format_type prints it,
// e.g. "integer", "character varying(10)", "numeric(12,2)".
func (t T) Name() string {
	if name, ok := t.nameOfSpecial(); ok {
		return name
	}
	switch t.Family {
	case FamUnknown:
		return "unknown"
	case FamBool:
		return "boolean"
	case FamInt:
		switch t.Width {
		case 16:
			return "smallint"
		case 32:
			return "integer"
		}
		return "bigint"
	case FamFloat:
		if t.Width == 32 {
			return "real"
		}
		return "double precision"
	case FamNumeric:
		if t.Precision > 0 {
			return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
		}
		return "numeric"
	case FamText:
		name := map[TextKind]string{KindText: "text", KindVarchar: "character varying", KindChar: "character"}[t.Kind]
		if t.Length > 0 {
			return fmt.Sprintf("%s(%d)", name, t.Length)
		}
		return name
	case FamBytea:
		return "bytea"
	case FamDate:
		return "date"
	case FamTime:
		return "time without time zone"
	case FamTimestamp:
		return "timestamp without time zone"
	case FamTimestampTZ:
		return "timestamp with time zone"
	case FamInterval:
		return "interval"
	case FamJSONB:
		return "jsonb"
	case FamUUID:
		return "uuid"
	case FamJSON:
		return "json"
	case FamBit:
		return bitsTypeName(t)
	case FamJSONPath:
		return "jsonpath"
	case FamEnum:
		return "anyenum" // the catalog names enum types (format_type)
	case FamArray:
		return t.ElemType().Name() + "[]"
	case FamRecord:
		return "record"
	}
	return fmt.Sprintf("family(%d)", t.Family)
}

// String implements fmt.Stringer with Name.
func (t T) String() string { return t.Name() }

// Equivalent reports whether a and b have the same family and width, ignoring
// modifiers (length, precision, scale) and the text kind.
func (a T) Equivalent(b T) bool {
	if a.Family == FamArray {
		return b.Family == FamArray && a.ElemType().Equivalent(b.ElemType())
	}
	return a.Family == b.Family && (a.Family != FamInt && a.Family != FamFloat || a.Width == b.Width) &&
		a.Enum == b.Enum
}
