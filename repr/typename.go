package repr

import (
	"strings"
)

// typeNames maps the names a type takes after pg_query (its internal names,
// e.g. int4, bpchar) and the common SQL spellings to the base type.
var typeNames = map[string]T{
	"bool": Bool, "boolean": Bool,
	"int2": Int2, "smallint": Int2,
	"int4": Int4, "int": Int4, "integer": Int4,
	"int8": Int8, "bigint": Int8,
	"float4": Float4, "real": Float4,
	"float8": Float8, "double precision": Float8, "float": Float8,
	"numeric": Numeric, "decimal": Numeric,
	"text":    Text,
	"varchar": Varchar(0), "character varying": Varchar(0),
	"bpchar": Char(0), "character": Char(1),
	// "char" is PostgreSQL's one-byte type (SQL's char is bpchar after
	// pg_query); aclitem is read as text.
	"char": QChar, `"char"`: QChar, "name": Name, "aclitem": Text,
	"oid": OIDT, "regclass": RegClass, "regtype": RegType, "regproc": RegProc,
	"regprocedure": RegProcedure, "regnamespace": RegNamespace, "regrole": RegRole,
	"int2vector": Int2Vector, "oidvector": OIDVector,
	"bytea":     Bytea,
	"date":      Date,
	"time":      TimeT,
	"timestamp": Timestamp, "timestamptz": TimestampTZ,
	"time without time zone":      TimeT,
	"timestamp without time zone": Timestamp,
	"timestamp with time zone":    TimestampTZ,
	"interval":                    IntervalT,
	"jsonb":                       JSONB,
	"uuid":                        UUID,
	"json":                        JSON,
	"jsonpath":                    JSONPath,
	"bit":                         Bit,
	"varbit":                      VarBit, "bit varying": VarBit,
}

// maxCharLength is PostgreSQL's limit on n in varchar(n) and char(n).
const maxCharLength = 10485760

// TypeByName resolves a type name (optionally qualified with pg_catalog.)
// and its type modifiers, as pg_query presents them, to a T. Unknown names
// are 42704 `type "x" does not exist`; bad modifiers are 22023 or 42601 as
// in PostgreSQL. Fractional-second precision modifiers of time, timestamp
// and interval are accepted and ignored (Eddy keeps microseconds).
func TypeByName(name string, typmods []int32) (T, error) {
	key := strings.ToLower(strings.TrimPrefix(name, "pg_catalog."))
	if elem, ok := strings.CutSuffix(key, "[]"); ok {
		t, err := TypeByName(elem, typmods)
		return ArrayOf(t), err
	}
	if elem, ok := strings.CutPrefix(key, "_"); ok && typeNames[elem] != Unknown {
		t, err := TypeByName(elem, typmods) // pg_type's name of the array type: _int4
		return ArrayOf(t), err
	}
	t, ok := typeNames[key]
	if !ok {
		return Unknown, Errorf(CodeUndefinedObject, "type %q does not exist", name)
	}
	if len(typmods) == 0 {
		return t, nil
	}
	switch t.Family {
	case FamText:
		return textTypmod(t, typmods)
	case FamNumeric:
		return numericTypmod(typmods)
	case FamBit:
		return bitTypmod(t, typmods)
	case FamTime, FamTimestamp, FamTimestampTZ, FamInterval:
		return t, timeTypmod(t, typmods)
	}
	return Unknown, Errorf(CodeSyntax, "type modifier is not allowed for type %q", key)
}

// textTypmod applies the length of varchar(n) or char(n).
func textTypmod(t T, mods []int32) (T, error) {
	if t.Kind == KindText {
		return Unknown, Errorf(CodeSyntax, "type modifier is not allowed for type \"text\"")
	}
	name := "varchar"
	if t.Kind == KindChar {
		name = "char"
	}
	return lengthTypmod(t, mods, name, maxCharLength)
}

// lengthTypmod applies the length modifier (n) of type name to t: one
// modifier, from 1 to most.
func lengthTypmod(t T, mods []int32, name string, most int32) (T, error) {
	switch n := mods[0]; {
	case len(mods) != 1:
		return Unknown, Errorf(CodeInvalidParameter, "invalid type modifier")
	case n < 1:
		return Unknown, Errorf(CodeInvalidParameter, "length for type %s must be at least 1", name)
	case n > most:
		return Unknown, Errorf(CodeInvalidParameter, "length for type %s cannot exceed %d", name, most)
	}
	t.Length = mods[0]
	return t, nil
}

// numericTypmod applies numeric(p) or numeric(p,s).
func numericTypmod(mods []int32) (T, error) {
	if len(mods) > 2 {
		return Unknown, Errorf(CodeInvalidParameter, "invalid NUMERIC type modifier")
	}
	p, s := mods[0], int32(0)
	if len(mods) == 2 {
		s = mods[1]
	}
	if p < 1 || p > 1000 {
		return Unknown, Errorf(CodeInvalidParameter, "NUMERIC precision %d must be between 1 and 1000", p)
	}
	if s < -1000 || s > 1000 {
		return Unknown, Errorf(CodeInvalidParameter, "NUMERIC scale %d must be between -1000 and 1000", s)
	}
	return NumericPS(p, s), nil
}

// timeTypmod validates a fractional-seconds precision (0..6).
func timeTypmod(t T, mods []int32) error {
	if len(mods) != 1 || t.Family == FamInterval && len(mods) > 2 {
		return Errorf(CodeInvalidParameter, "invalid type modifier")
	}
	if mods[0] < 0 {
		return Errorf(CodeInvalidParameter, "%s(%d) precision must not be negative", strings.ToUpper(t.baseName()), mods[0])
	}
	return nil
}

// bitTypmod applies the length of bit(n) or bit varying(n).
func bitTypmod(t T, mods []int32) (T, error) {
	name := "bit"
	if t.Varying {
		name = "bit varying"
	}
	return lengthTypmod(t, mods, name, MaxBitLen)
}
