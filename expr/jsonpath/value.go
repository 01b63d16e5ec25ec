package jsonpath

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// vkind is the kind of an SQL/JSON item.
type vkind uint8

const (
	vNull vkind = iota
	vBool
	vNumber
	vString
	vArray
	vObject
	vDatetime
)

// Value is an SQL/JSON item: a jsonb value, or a datetime made by
// .datetime(). Objects keep jsonb's key order.
type Value struct {
	k     vkind
	b     bool
	num   *apd.Decimal
	str   string
	elems []Value  // array elements, or object values
	keys  []string // object keys, parallel to elems
	// id is the item's PostgreSQL keyvalue() id base: the offset of a
	// container in jsonb's binary form (see ids.go).
	id int64
	// dt is a datetime: its type, value and, for time and timestamp with
	// time zone, the zone offset in seconds east of UTC it was written in.
	dtType repr.T
	dt     repr.Datum
	tz     int32
}

// ParseJSONB reads canonical jsonb text (as repr stores it) into a Value.
func ParseJSONB(s string) (Value, error) {
	r := &jreader{s: s}
	v, err := r.value()
	if err != nil {
		return Value{}, err
	}
	assignIDs(&v)
	return v, nil
}

type jreader struct {
	s string
	i int
}

func (r *jreader) skip() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\n' || r.s[r.i] == '\t' || r.s[r.i] == '\r') {
		r.i++
	}
}

func errCorrupt() error {
	return repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type json")
}

func (r *jreader) value() (Value, error) {
	r.skip()
	if r.i >= len(r.s) {
		return Value{}, errCorrupt()
	}
	switch c := r.s[r.i]; {
	case c == '{':
		r.i++
		v := Value{k: vObject}
		r.skip()
		if r.i < len(r.s) && r.s[r.i] == '}' {
			r.i++
			return v, nil
		}
		for {
			r.skip()
			k, err := r.str()
			if err != nil {
				return v, err
			}
			r.skip()
			if r.i >= len(r.s) || r.s[r.i] != ':' {
				return v, errCorrupt()
			}
			r.i++
			e, err := r.value()
			if err != nil {
				return v, err
			}
			v.keys, v.elems = append(v.keys, k), append(v.elems, e)
			if done, err := r.sep('}'); done || err != nil {
				return v, err
			}
		}
	case c == '[':
		r.i++
		v := Value{k: vArray}
		r.skip()
		if r.i < len(r.s) && r.s[r.i] == ']' {
			r.i++
			return v, nil
		}
		for {
			e, err := r.value()
			if err != nil {
				return v, err
			}
			v.elems = append(v.elems, e)
			if done, err := r.sep(']'); done || err != nil {
				return v, err
			}
		}
	case c == '"':
		s, err := r.str()
		return Value{k: vString, str: s}, err
	case strings.HasPrefix(r.s[r.i:], "true"):
		r.i += 4
		return Value{k: vBool, b: true}, nil
	case strings.HasPrefix(r.s[r.i:], "false"):
		r.i += 5
		return Value{k: vBool}, nil
	case strings.HasPrefix(r.s[r.i:], "null"):
		r.i += 4
		return Value{k: vNull}, nil
	}
	j := r.i
	for j < len(r.s) && strings.IndexByte("+-0123456789.eE", r.s[j]) >= 0 {
		j++
	}
	d, err := repr.ParseNumeric(r.s[r.i:j])
	r.i = j
	return Value{k: vNumber, num: d}, err
}

// sep reads a comma (more to come) or the closing byte (done).
func (r *jreader) sep(closing byte) (bool, error) {
	r.skip()
	if r.i >= len(r.s) {
		return false, errCorrupt()
	}
	c := r.s[r.i]
	r.i++
	switch c {
	case ',':
		return false, nil
	case closing:
		return true, nil
	}
	return false, errCorrupt()
}

// str reads a JSON string.
func (r *jreader) str() (string, error) {
	if r.i >= len(r.s) || r.s[r.i] != '"' {
		return "", errCorrupt()
	}
	r.i++
	var b strings.Builder
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == '"':
			r.i++
			return b.String(), nil
		case c == '\\' && r.i+1 < len(r.s):
			r.i += 2
			switch e := r.s[r.i-1]; e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if r.i+4 > len(r.s) {
					return "", errCorrupt()
				}
				n, err := strconv.ParseUint(r.s[r.i:r.i+4], 16, 32)
				if err != nil {
					return "", errCorrupt()
				}
				r.i += 4
				if n >= 0xD800 && n < 0xDC00 && strings.HasPrefix(r.s[r.i:], `\u`) && r.i+6 <= len(r.s) {
					if lo, err := strconv.ParseUint(r.s[r.i+2:r.i+6], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
						n = 0x10000 + (n-0xD800)<<10 + lo - 0xDC00
						r.i += 6
					}
				}
				b.WriteRune(rune(n))
			default:
				b.WriteByte(e)
			}
		default:
			_, n := utf8.DecodeRuneInString(r.s[r.i:])
			b.WriteString(r.s[r.i : r.i+n])
			r.i += n
		}
	}
	return "", errCorrupt()
}

// AppendJSONB appends the jsonb text of v (canonical for values read from
// jsonb and for the objects keyvalue() makes, whose keys are in order).
func AppendJSONB(buf []byte, v Value) []byte {
	switch v.k {
	case vNull:
		return append(buf, "null"...)
	case vBool:
		return strconv.AppendBool(buf, v.b)
	case vNumber:
		return repr.AppendText(buf, repr.NewNumeric(v.num), repr.Numeric, nil)
	case vString:
		return repr.AppendJSONString(buf, v.str)
	case vArray:
		buf = append(buf, '[')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = AppendJSONB(buf, e)
		}
		return append(buf, ']')
	case vObject:
		buf = append(buf, '{')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = repr.AppendJSONString(buf, v.keys[i])
			buf = append(buf, ": "...)
			buf = AppendJSONB(buf, e)
		}
		return append(buf, '}')
	}
	return repr.AppendJSONString(buf, formatDatetime(v))
}

// typeName is .type()'s answer.
func (v Value) typeName() string {
	switch v.k {
	case vNull:
		return "null"
	case vBool:
		return "boolean"
	case vNumber:
		return "number"
	case vString:
		return "string"
	case vArray:
		return "array"
	case vObject:
		return "object"
	}
	return datetimeTypeName(v)
}

// IsObject reports whether v is a JSON object.
func (v Value) IsObject() bool { return v.k == vObject }

// Truth returns v's boolean, and whether v is a boolean or a null.
func (v Value) Truth() (b, isBool, isNull bool) { return v.b, v.k == vBool, v.k == vNull }

// JSONB returns v's jsonb text.
func (v Value) JSONB() string { return string(AppendJSONB(nil, v)) }

// Array returns the jsonb text of the array of items.
func Array(items []Value) string { return Value{k: vArray, elems: items}.JSONB() }

// ParseVars reads the vars argument: like ParseJSONB, but its containers
// are numbered as jsonb number 1 for keyvalue()'s ids.
func ParseVars(s string) (Value, error) {
	r := &jreader{s: s}
	v, err := r.value()
	if err != nil {
		return Value{}, err
	}
	assignIDsBase(&v, 1)
	return v, nil
}
