package repr

import (
	"strconv"
	"strings"
)

// Object identifiers and the catalog's special types.
//
// oid and the reg* types are 32-bit integers (FamInt, Width 32) told apart
// by T.OIDKind, so every integer operation (comparison, key encoding,
// hashing, binary I/O) applies to them unchanged and an oid column compares
// with an integer literal as in PostgreSQL. What distinguishes a reg* type
// is its text I/O: 'pg_class'::regclass looks the name up and
// 1259::regclass::text prints it. Those need the catalog, so they are done
// by the caller that has it (expr's casts with the session's
// catalog, and the sql layer when it sends a reg* column); here a reg*
// value prints and parses as its number, as PostgreSQL does for an OID
// that names nothing.
//
// name and "char" are text kinds (KindName, KindQChar). int2vector and
// oidvector are arrays of int2 and oid marked Vector: they print as
// space-separated numbers ("1 2") and their subscripts start at 0.

// OIDKind distinguishes oid and the reg* types within FamInt.
type OIDKind uint8

// The object-identifier types.
const (
	NotOID OIDKind = iota
	KindOID
	KindRegClass
	KindRegType
	KindRegProc
	KindRegProcedure
	KindRegNamespace
	KindRegRole
)

// The catalog's types.
var (
	OIDT         = T{Family: FamInt, Width: 32, OIDKind: KindOID}
	RegClass     = T{Family: FamInt, Width: 32, OIDKind: KindRegClass}
	RegType      = T{Family: FamInt, Width: 32, OIDKind: KindRegType}
	RegProc      = T{Family: FamInt, Width: 32, OIDKind: KindRegProc}
	RegProcedure = T{Family: FamInt, Width: 32, OIDKind: KindRegProcedure}
	RegNamespace = T{Family: FamInt, Width: 32, OIDKind: KindRegNamespace}
	RegRole      = T{Family: FamInt, Width: 32, OIDKind: KindRegRole}
	Name         = T{Family: FamText, Kind: KindName}
	QChar        = T{Family: FamText, Kind: KindQChar}
	Int2Vector   = T{Family: FamArray, Elem: FamInt, Width: 16, Vector: true}
	OIDVector    = T{Family: FamArray, Elem: FamInt, Width: 32, OIDKind: KindOID, Vector: true}
)

// specialType describes one of the catalog's types: its OID, its array
// type's OID and its name.
type specialType struct {
	t              T
	oid, arrayOID  uint32
	name, typeName string // format_type's name, pg_type's typname
}

// specialTypes are the catalog's types, in pg_type OID order.
var specialTypes = []specialType{
	{QChar, 18, 1002, `"char"`, "char"},
	{Name, 19, 1003, "name", "name"},
	{Int2Vector, 22, 1006, "int2vector", "int2vector"},
	{RegProc, 24, 1008, "regproc", "regproc"},
	{OIDT, 26, 1028, "oid", "oid"},
	{OIDVector, 30, 1013, "oidvector", "oidvector"},
	{RegProcedure, 2202, 2207, "regprocedure", "regprocedure"},
	{RegClass, 2205, 2210, "regclass", "regclass"},
	{RegType, 2206, 2211, "regtype", "regtype"},
	{RegNamespace, 4089, 4090, "regnamespace", "regnamespace"},
	{RegRole, 4096, 4097, "regrole", "regrole"},
}

// SpecialTypes returns the catalog's types (oid, reg*, name, "char",
// int2vector, oidvector).
func SpecialTypes() []T {
	out := make([]T, len(specialTypes))
	for i, s := range specialTypes {
		out[i] = s.t
	}
	return out
}

// special returns t's entry in specialTypes: t itself, or (array) its
// element's entry.
func (t T) special() (s specialType, array bool, ok bool) {
	base := T{Family: t.Family, Width: t.Width, Kind: t.Kind, Elem: t.Elem, OIDKind: t.OIDKind, Vector: t.Vector}
	for _, s := range specialTypes {
		if s.t == base {
			return s, false, true
		}
	}
	if base.Family == FamArray && !base.Vector {
		if s, _, ok := base.ElemType().special(); ok {
			return s, true, true
		}
	}
	return specialType{}, false, false
}

// oidOfSpecial returns the OID of a catalog type or an array of one.
func (t T) oidOfSpecial() (uint32, bool) {
	s, array, ok := t.special()
	if !ok {
		return 0, false
	}
	if array {
		return s.arrayOID, true
	}
	return s.oid, true
}

// nameOfSpecial returns the name of a catalog type or an array of one.
func (t T) nameOfSpecial() (string, bool) {
	s, array, ok := t.special()
	if !ok {
		return "", false
	}
	if array {
		return s.name + "[]", true
	}
	return s.name, true
}

// IsReg reports whether t is one of the reg* types, whose text I/O names
// catalog objects.
func (t T) IsReg() bool { return t.Family == FamInt && t.OIDKind > KindOID }

// TypName returns pg_type's typname of t: "int4", "_int4", "varchar".
func (t T) TypName() string {
	if s, array, ok := t.special(); ok {
		if array {
			return "_" + s.typeName
		}
		return s.typeName
	}
	if t.Family == FamArray {
		return "_" + t.ElemType().TypName()
	}
	for name, u := range typNames {
		if u.OID() == t.OID() {
			return name
		}
	}
	return t.Name()
}

// typNames are pg_type's names of the other types.
var typNames = map[string]T{
	"bool": Bool, "int2": Int2, "int4": Int4, "int8": Int8, "float4": Float4, "float8": Float8,
	"numeric": Numeric, "text": Text, "varchar": Varchar(0), "bpchar": Char(0), "bytea": Bytea,
	"date": Date, "time": TimeT, "timestamp": Timestamp, "timestamptz": TimestampTZ,
	"interval": IntervalT, "jsonb": JSONB, "uuid": UUID, "json": JSON, "unknown": Unknown,
	"record": Record, "bit": Bit, "varbit": VarBit,
}

// FromTypmod returns the type with OID oid and PostgreSQL type modifier
// typmod (-1: none), as format_type reads them.
func FromTypmod(oid uint32, typmod int32) (T, bool) {
	t, ok := FromOID(oid)
	if !ok || typmod < 0 {
		return t, ok
	}
	base := t
	if t.Family == FamArray {
		base = t.ElemType()
	}
	switch {
	case base.Family == FamText && (base.Kind == KindVarchar || base.Kind == KindChar) && typmod >= 4:
		base.Length = typmod - 4
	case base.Family == FamBit && typmod > 0:
		base.Length = typmod
	case base.Family == FamNumeric && typmod >= 4:
		base.Precision, base.Scale = (typmod-4)>>16, (typmod-4)&0x7ff
	}
	if t.Family == FamArray {
		return ArrayOf(base), true
	}
	return base, true
}

// runePrefixBytes returns the length of the longest prefix of s of at
// most n bytes that ends at a character boundary (name's truncation).
func runePrefixBytes(s string, n int) int {
	end := 0
	for i := range s {
		if i > n {
			break
		}
		end = i
	}
	if len(s) <= n {
		return len(s)
	}
	return end
}

// appendVectorText prints an int2vector or oidvector: its elements
// separated by spaces.
func appendVectorText(buf []byte, d Datum) []byte {
	for i, e := range d.Array() {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, e.Int(), 10)
	}
	return buf
}

// parseVector reads an int2vector or oidvector: numbers separated by
// spaces.
func parseVector(s string, t T) (Datum, error) {
	var elems []Datum
	for _, f := range strings.Fields(s) {
		i, err := parseInt(f, t.ElemType())
		if err != nil {
			return Null, err
		}
		elems = append(elems, NewInt(i))
	}
	return NewArray(elems), nil
}

// AllTypes returns every type Eddy supports, without modifiers: the
// scalar types, the catalog's types and the array type of each.
func AllTypes() []T {
	var out []T
	for _, t := range append(append([]T{}, scalarTypes...), SpecialTypes()...) {
		out = append(out, t, ArrayOf(t))
	}
	return out
}

// Category returns PostgreSQL's typcategory of t.
func (t T) Category() byte {
	switch {
	case t.Family == FamArray:
		return 'A'
	case t.Family == FamText && t.Kind == KindQChar:
		return 'Z'
	case t.Family == FamText:
		return 'S'
	case t.Family == FamBool:
		return 'B'
	case t.Family == FamInt && t.Vector:
		return 'A'
	case t.Family == FamInt, t.Family == FamFloat, t.Family == FamNumeric:
		return 'N'
	case t.Family == FamDate, t.Family == FamTime, t.Family == FamTimestamp, t.Family == FamTimestampTZ:
		return 'D'
	case t.Family == FamInterval:
		return 'T'
	case t.Family == FamBit:
		return 'V'
	case t.Family == FamEnum:
		return 'E'
	case t.Family == FamUnknown:
		return 'X'
	case t.IsComposite():
		return 'C'
	case t.Family == FamRecord:
		return 'P'
	}
	return 'U'
}
