package repr

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// CastContext says in which contexts PostgreSQL applies a cast (pg_cast's
// castcontext). The values are ordered: a larger one allows more, so a cast
// is usable in context c when CastContextOf(from, to) >= c.
type CastContext uint8

// The cast contexts.
const (
	// CastNone: no cast exists (42846 "cannot cast type x to y").
	CastNone CastContext = iota
	// CastExplicit: only with CAST(x AS t) or x::t.
	CastExplicit
	// CastAssignment: also when storing into a column (INSERT, UPDATE).
	CastAssignment
	// CastImplicit: also in expressions (operator and function arguments).
	CastImplicit
)

// String returns the context's name.
func (c CastContext) String() string {
	return [...]string{"none", "explicit", "assignment", "implicit"}[c]
}

// CastContextOf returns the context in which PostgreSQL allows a cast from
// from to to: built-in casts per pg_cast, length/precision coercion within
// a type (implicit), I/O conversion to string types (assignment) and from
// them (explicit), and the unknown type of literals (implicit).
func CastContextOf(from, to T) CastContext {
	switch {
	case from.Family == FamUnknown:
		return CastImplicit
	case from.Family == FamArray && to.Family == FamArray:
		return CastContextOf(from.ElemType(), to.ElemType())
	case from.Family == FamEnum && to.Family == FamEnum && from.Enum != to.Enum:
		return CastNone // distinct enum types do not convert
	case from.Family == FamText && to.Family == FamText && from.Kind != to.Kind && (nameOrQChar(from) || nameOrQChar(to)):
		return stringCastContext(from.Kind, to.Kind)
	case from.Family == to.Family && (from.Family != FamInt && from.Family != FamFloat || from.Width == to.Width):
		return CastImplicit
	}
	if c, ok := builtinCasts[castKey{from.OID(), to.OID()}]; ok {
		return c
	}
	switch {
	case to.Family == FamText:
		return CastAssignment
	case from.Family == FamText:
		return CastExplicit
	}
	return CastNone
}

// nameOrQChar reports PostgreSQL's name and "char", the string types
// whose casts to and from the others are not all implicit.
func nameOrQChar(t T) bool { return t.Kind == KindName || t.Kind == KindQChar }

// stringCastContext is pg_cast's context between two distinct string
// kinds one of which is name or "char": to text implicit, from text,
// varchar and bpchar to name implicit and to "char" by assignment, name
// and "char" to varchar and bpchar by assignment; between "char" and name
// PostgreSQL has only I/O conversion (to name, a string-category type, by
// assignment; to "char", category Z, explicit). Without it an operator
// over "char" and bpchar found several equally good candidates.
func stringCastContext(from, to TextKind) CastContext {
	switch {
	case to == KindText:
		return CastImplicit
	case to == KindName && from != KindQChar:
		return CastImplicit
	case to == KindQChar && from == KindName:
		return CastExplicit
	}
	return CastAssignment
}

type castKey struct{ from, to uint32 }

// builtinCasts lists pg_cast entries between distinct supported types
// (other than I/O conversions to and from strings).
var builtinCasts = func() map[castKey]CastContext {
	m := map[castKey]CastContext{}
	add := func(c CastContext, from uint32, tos ...uint32) {
		for _, to := range tos {
			m[castKey{from, to}] = c
		}
	}
	I, A, E := CastImplicit, CastAssignment, CastExplicit
	add(I, OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric)
	// int2 to oid and the reg* types (int4's are the same representation).
	add(I, OIDInt2, 26, 24, 2202, 2205, 2206, 4089, 4096)
	add(I, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric)
	add(A, OIDInt4, OIDInt2)
	add(E, OIDInt4, OIDBool)
	add(E, OIDBool, OIDInt4)
	add(I, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric)
	add(A, OIDInt8, OIDInt2, OIDInt4)
	add(I, OIDFloat4, OIDFloat8)
	add(A, OIDFloat4, OIDInt2, OIDInt4, OIDInt8, OIDNumeric)
	add(A, OIDFloat8, OIDInt2, OIDInt4, OIDInt8, OIDNumeric, OIDFloat4)
	add(I, OIDNumeric, OIDFloat4, OIDFloat8)
	add(A, OIDNumeric, OIDInt2, OIDInt4, OIDInt8)
	for _, s := range []uint32{OIDText, OIDVarchar, OIDBpchar} {
		add(I, s, OIDText, OIDVarchar, OIDBpchar)
	}
	add(I, OIDDate, OIDTimestamp, OIDTimestampTZ)
	add(A, OIDTimestamp, OIDDate, OIDTime)
	add(I, OIDTimestamp, OIDTimestampTZ)
	add(A, OIDTimestampTZ, OIDDate, OIDTime, OIDTimestamp)
	add(I, OIDTime, OIDInterval)
	add(A, OIDInterval, OIDTime)
	add(A, OIDJSON, OIDJSONB)
	add(A, OIDJSONB, OIDJSON)
	add(E, OIDInt4, OIDBit)
	add(E, OIDInt8, OIDBit)
	add(E, OIDBit, OIDInt4, OIDInt8)
	add(I, OIDBit, OIDVarBit)
	add(I, OIDVarBit, OIDBit)
	add(E, OIDJSONB, OIDBool, OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric)
	// int8 to oid and the reg* types (oid(int8)), back by assignment
	// (int8(oid)): DataGrip selects oid::bigint.
	for _, o := range []uint32{26, 24, 2202, 2205, 2206, 4089, 4096} {
		add(I, OIDInt8, o)
		add(A, o, OIDInt8)
	}
	return m
}()

// plainNumber reports whether t is int2, int4, int8, float4, float8 or
// numeric, between any two of which pg_cast has a cast: Cast then skips
// CastContextOf's lookup, which a cast in a view's expression (q1's
// price::numeric) would otherwise pay per row.
func plainNumber(t T) bool {
	switch t.Family {
	case FamInt:
		return t.OIDKind == 0 && (t.Width == 16 || t.Width == 32 || t.Width == 64)
	case FamFloat, FamNumeric:
		return true
	}
	return false
}

// Cast converts d from type from to type to with PostgreSQL's semantics.
// explicit is true for CAST/::, false for assignment and implicit casts;
// it matters only for varchar(n)/char(n), which truncate when explicit and
// otherwise fail with 22001. Casts PostgreSQL lacks are 42846. Time zone
// dependent casts use loc (nil is UTC). NULL casts to NULL.
func Cast(d Datum, from, to T, loc *time.Location, explicit bool) (Datum, error) {
	if d.IsNull() {
		return Null, nil
	}
	if !(plainNumber(from) && plainNumber(to)) && CastContextOf(from, to) == CastNone {
		return Null, Errorf("42846", "cannot cast type %s to %s", from.Name(), to.Name())
	}
	if from.Family == FamArray && to.Family == FamArray {
		return castArray(d, from, to, loc, explicit)
	}
	if from.Family == FamText && to.Family == FamArray && to.Elem == FamBit && to.Length > 0 {
		// array_in reads the elements without the length; the array's
		// length coercion then applies it (pads or truncates if explicit).
		base := to
		base.Length = 0
		a, err := ParseText(d.s, base, loc)
		if err != nil {
			return Null, err
		}
		return castArray(a, base, to, loc, explicit)
	}
	switch to.Family {
	case FamText:
		return castToString(d, from, to, loc, explicit)
	case FamBool:
		return castToBool(d, from)
	case FamInt:
		return castToInt(d, from, to)
	case FamFloat:
		return castToFloat(d, from, to)
	case FamNumeric:
		return castToNumeric(d, from, to)
	case FamBit:
		return castToBits(d, from, to, explicit)
	case FamDate, FamTime, FamTimestamp, FamTimestampTZ, FamInterval:
		if from.Family == FamText || from.Family == FamUnknown {
			return ParseText(d.s, to, loc)
		}
		return castDatetime(d, from, to, loc)
	}
	if from.Family == FamText || from.Family == FamUnknown {
		return ParseText(d.s, to, loc)
	}
	switch {
	case from.Family == FamJSON && to.Family == FamJSONB:
		return ParseJSONB(d.s)
	case from.Family == FamJSONB && to.Family == FamJSON:
		return NewJSON(d.s), nil
	}
	if from.Family == to.Family {
		return d, nil
	}
	return Null, Errorf("42846", "cannot cast type %s to %s", from.Name(), to.Name())
}

// castToString formats d and fits it to to's length. char(n) sources lose
// their trailing spaces (bpchar's rtrim), and booleans print as true/false
// (PostgreSQL's bool-to-text cast, not boolout).
func castToString(d Datum, from, to T, loc *time.Location, explicit bool) (Datum, error) {
	var s string
	switch {
	case d.fam == FamText && from.Kind == KindChar && to.Kind != KindChar:
		s = strings.TrimRight(d.s, " ")
	case d.fam == FamBool:
		s = strconv.FormatBool(d.Bool())
	default:
		s = FormatText(d, from, loc)
	}
	return fitString(s, to, explicit)
}

// castToBool handles int4 and jsonb sources (text goes through boolin).
func castToBool(d Datum, from T) (Datum, error) {
	switch d.fam {
	case FamInt:
		return NewBool(d.i != 0), nil
	case FamJSONB:
		kind := jsonKind(d.s)
		if kind != "boolean" {
			return Null, errJSONBCast(kind, Bool)
		}
		return NewBool(d.s == "true"), nil
	case FamBool:
		return d, nil
	}
	return ParseText(d.s, Bool, nil)
}

// int8ToOID is PostgreSQL's oid(int8): 0 to 4294967295, else 22003.
func int8ToOID(v int64) (Datum, error) {
	if v < 0 || v > math.MaxUint32 {
		return Null, Errorf(CodeNumericOutOfRange, "OID out of range")
	}
	return NewInt(v), nil
}

// intOIDCast converts between an object identifier (held as its unsigned
// value, 0 to 4294967295) and a signed integer as pg_cast does: int8 to
// oid range-checks (oid(int8)); int4 and int2 to oid and oid to int4 are
// binary coercions, so -1 is 4294967295 and back; oid to int8 keeps the
// value. ok is false when neither side is an object identifier.
func intOIDCast(v int64, from, to T) (d Datum, ok bool, err error) {
	switch {
	case from.OIDKind != 0 && to.OIDKind != 0:
		return NewInt(v), true, nil
	case from.OIDKind == 0 && to.OIDKind == 0:
		return Null, false, nil
	case to.OIDKind != 0 && intWidth(from) == 64:
		d, err = int8ToOID(v)
		return d, true, err
	case to.OIDKind != 0:
		return NewInt(int64(uint32(v))), true, nil
	case intWidth(to) == 32:
		return NewInt(int64(int32(uint32(v)))), true, nil
	}
	return Null, false, nil
}

// castToInt converts to an integer of to's width: floats round half to
// even (rint), numerics half away from zero; overflow is 22003.
func castToInt(d Datum, from, to T) (Datum, error) {
	w := intWidth(to)
	switch d.fam {
	case FamInt:
		if o, ok, err := intOIDCast(d.i, from, to); ok {
			return o, err
		}
		i, err := checkWidth(d.i, w)
		return NewInt(i), err
	case FamBool:
		return NewInt(d.i), nil
	case FamBit:
		i, err := BitsToInt(d, int(w))
		return NewInt(i), err
	case FamFloat:
		return floatToInt(d.Float(), w)
	case FamNumeric:
		return numericToInt(d.dec, w)
	case FamJSONB:
		n, err := jsonbNumber(d, to)
		if err != nil {
			return Null, err
		}
		return numericToInt(n, w)
	}
	i, err := parseInt(d.s, to)
	return NewInt(i), err
}

// floatToInt rounds f half to even and range-checks it.
func floatToInt(f float64, w int32) (Datum, error) {
	r := math.RoundToEven(f)
	if math.IsNaN(r) || r < -math.Pow(2, float64(w-1)) || r >= math.Pow(2, float64(w-1)) {
		return Null, errIntOutOfRange(w)
	}
	return NewInt(int64(r)), nil
}

// numericToInt rounds n half away from zero and range-checks it.
func numericToInt(n *apd.Decimal, w int32) (Datum, error) {
	if n.Form != apd.Finite {
		if n.Form == apd.Infinite {
			return Null, Errorf(CodeFeatureNotSupported, "cannot convert infinity to %s", Int(w).baseName())
		}
		return Null, Errorf(CodeFeatureNotSupported, "cannot convert NaN to %s", Int(w).baseName())
	}
	var r apd.Decimal
	if _, err := numericCtx.RoundToIntegralValue(&r, n); err != nil {
		return Null, errIntOutOfRange(w)
	}
	i, err := r.Int64()
	if err != nil {
		return Null, errIntOutOfRange(w)
	}
	i, err = checkWidth(i, w)
	return NewInt(i), err
}

// castToFloat converts to real or double precision with overflow and
// underflow checks on narrowing.
func castToFloat(d Datum, from, to T) (Datum, error) {
	switch d.fam {
	case FamInt:
		return NewFloat(roundFloat(float64(d.i), to)), nil
	case FamFloat:
		return narrowFloat(d.Float(), to)
	case FamNumeric:
		return numericToFloat(d.dec, to)
	case FamJSONB:
		n, err := jsonbNumber(d, to)
		if err != nil {
			return Null, err
		}
		return numericToFloat(n, to)
	}
	return parseFloat(d.s, to)
}

// roundFloat rounds f to float32 when t is real.
func roundFloat(f float64, t T) float64 {
	if floatWidth(t) == 32 {
		return float64(float32(f))
	}
	return f
}

// narrowFloat converts a float8 value to t, failing where float8 to float4
// overflows or underflows to zero.
func narrowFloat(f float64, t T) (Datum, error) {
	r := roundFloat(f, t)
	switch {
	case math.IsInf(r, 0) && !math.IsInf(f, 0):
		return Null, Errorf(CodeNumericOutOfRange, "value out of range: overflow")
	case r == 0 && f != 0:
		return Null, Errorf(CodeNumericOutOfRange, "value out of range: underflow")
	}
	return NewFloat(r), nil
}

// numericToFloat converts through the decimal text as float8in does.
func numericToFloat(n *apd.Decimal, t T) (Datum, error) {
	var buf [64]byte
	return parseFloat(string(appendNumericText(buf[:0], n)), t)
}

// castToNumeric converts to numeric and applies to's precision and scale.
// Floats convert through 15 (float8) or 6 (float4) significant digits, as
// PostgreSQL's float8_numeric does.
func castToNumeric(d Datum, from, to T) (Datum, error) {
	var n *apd.Decimal
	switch d.fam {
	case FamInt:
		n = apd.New(d.i, 0)
	case FamNumeric:
		n = d.dec
	case FamFloat:
		n = floatToDecimal(d.Float(), floatWidth(from))
	case FamJSONB:
		var err error
		if n, err = jsonbNumber(d, to); err != nil {
			return Null, err
		}
	default:
		return parseNumeric(d.s, to)
	}
	return fitNumeric(n, to)
}

// floatToDecimal converts f using DBL_DIG or FLT_DIG significant digits.
func floatToDecimal(f float64, bits int) *apd.Decimal {
	switch {
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}
	case math.IsInf(f, 0):
		return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	d, _, _ := apd.NewFromString(strconv.FormatFloat(f, 'e', digits-1, 64))
	d.Reduce(d)
	return normalizeNumeric(d)
}

// jsonbNumber returns the number held by a jsonb datum, or 22023 naming
// the jsonb kind it holds instead.
func jsonbNumber(d Datum, to T) (*apd.Decimal, error) {
	if kind := jsonKind(d.s); kind != "numeric" {
		return nil, errJSONBCast(kind, to)
	}
	n, ok := parseDecimal(d.s)
	if !ok {
		return nil, errJSONBCast("numeric", to)
	}
	return n, nil
}

// errJSONBCast is PostgreSQL's "cannot cast jsonb <kind> to type <t>".
func errJSONBCast(kind string, t T) error {
	return Errorf(CodeInvalidParameter, "cannot cast jsonb %s to type %s", kind, t.baseName())
}

// BuiltinCasts calls f for each built-in cast between distinct types
// (pg_cast's entries, I/O conversions to and from strings excluded), in
// source and target OID order.
func BuiltinCasts(f func(from, to uint32, c CastContext)) {
	keys := make([]castKey, 0, len(builtinCasts))
	for k := range builtinCasts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].from != keys[j].from {
			return keys[i].from < keys[j].from
		}
		return keys[i].to < keys[j].to
	})
	for _, k := range keys {
		f(k.from, k.to, builtinCasts[k])
	}
}
