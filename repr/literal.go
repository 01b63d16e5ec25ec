package repr

import (
	"strings"
	"time"
)

// The literal form is how datums print in golden files and debug output,
// and ParseLiteral reads it back. It is SQL-like:
//
//	NULL                       NULL
//	true, false                boolean
//	42, -7                     integer (int4 if it fits, else int8)
//	1.50, 7::numeric, 'NaN'::numeric  numeric (a bare decimal is numeric, as in SQL)
//	1.5::float8, 'NaN'::float8 float (always suffixed)
//	'it''s'                    text (quotes doubled)
//	'...'::<type>              any other type, in its text form
//
// Timestamptz prints in UTC. The form keeps the family but not the width
// or modifiers of a type, so ParseLiteral returns the natural type.

// String returns the literal form of d.
func (d Datum) String() string {
	switch d.fam {
	case FamUnknown:
		return "NULL"
	case FamBool:
		if d.Bool() {
			return "true"
		}
		return "false"
	case FamInt:
		return FormatText(d, Int8, nil)
	case FamFloat:
		s := FormatText(d, Float8, nil)
		if strings.ContainsAny(s, "NI") {
			return quoteLiteral(s) + "::float8"
		}
		return s + "::float8"
	case FamNumeric:
		s := FormatText(d, Numeric, nil)
		switch {
		case strings.ContainsAny(s, "NI"):
			return quoteLiteral(s) + "::numeric"
		case !strings.Contains(s, "."):
			return s + "::numeric" // a bare integer would read back as int
		}
		return s
	case FamText:
		return quoteLiteral(d.s)
	case FamArray:
		t := ArrayOf(literalElemType(d))
		return quoteLiteral(FormatText(d, t, time.UTC)) + "::" + strings.ToLower(t.Name())
	}
	return quoteLiteral(FormatText(d, T{Family: d.fam}, time.UTC)) + "::" + literalTypeName[d.fam]
}

// literalTypeName is the type suffix of the literal form by family.
var literalTypeName = map[Family]string{
	FamBytea: "bytea", FamDate: "date", FamTime: "time", FamTimestamp: "timestamp",
	FamTimestampTZ: "timestamptz", FamInterval: "interval", FamJSONB: "jsonb",
	FamUUID: "uuid", FamJSON: "json", FamBit: "varbit", FamJSONPath: "jsonpath",
}

// literalElemType is the natural type of an array datum's elements (its
// first non-NULL element's family; text when all are NULL).
func literalElemType(d Datum) T {
	for _, e := range d.Array() {
		switch e.fam {
		case FamUnknown:
			continue
		case FamInt:
			return Int8
		case FamFloat:
			return Float8
		}
		return T{Family: e.fam}
	}
	return Text
}

// quoteLiteral wraps s in single quotes, doubling embedded quotes.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ParseLiteral parses the literal form (see Datum.String), returning the
// datum and its type. A suffix may be any name TypeByName accepts, with
// modifiers: '1.5'::numeric(3,1), 'ab'::varchar(4). The cast is applied as
// an explicit cast from the literal's own type, as SQL would.
func ParseLiteral(s string) (Datum, T, error) {
	s = strings.TrimSpace(s)
	body, typ, err := splitLiteral(s)
	if err != nil {
		return Null, Unknown, err
	}
	if typ == "" {
		return parseBareLiteral(body)
	}
	t, err := parseTypeName(typ)
	if err != nil {
		return Null, Unknown, err
	}
	if strings.HasPrefix(body, "'") {
		base := t
		base.Length, base.Precision, base.Scale = 0, 0, 0
		d, err := ParseText(unquoteLiteral(body), base, time.UTC)
		if err == nil {
			d, err = Cast(d, base, t, time.UTC, true)
		}
		return d, t, err
	}
	d, from, err := parseBareLiteral(body)
	if err != nil {
		return Null, Unknown, err
	}
	d, err = Cast(d, from, t, time.UTC, true)
	return d, t, err
}

// splitLiteral separates a literal from its ::type suffix, honoring quotes.
func splitLiteral(s string) (body, typ string, err error) {
	end := 0
	if strings.HasPrefix(s, "'") {
		end = 1
		for {
			i := strings.IndexByte(s[end:], '\'')
			if i < 0 {
				return "", "", Errorf(CodeSyntax, "unterminated quoted string in literal %s", s)
			}
			end += i + 1
			if end < len(s) && s[end] == '\'' {
				end++
				continue
			}
			break
		}
	}
	if i := strings.Index(s[end:], "::"); i >= 0 {
		return s[:end+i], strings.TrimSpace(s[end+i+2:]), nil
	}
	return s, "", nil
}

// unquoteLiteral removes the quotes of 'x' and undoubles embedded quotes.
func unquoteLiteral(s string) string {
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
}

// parseBareLiteral parses a literal without a type suffix.
func parseBareLiteral(s string) (Datum, T, error) {
	switch strings.ToLower(s) {
	case "null":
		return Null, Unknown, nil
	case "true":
		return NewBool(true), Bool, nil
	case "false":
		return NewBool(false), Bool, nil
	}
	if strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2 {
		return NewText(unquoteLiteral(s)), Text, nil
	}
	if i, err := parseInt(s, Int4); err == nil {
		return NewInt(i), Int4, nil
	}
	if i, err := parseInt(s, Int8); err == nil {
		return NewInt(i), Int8, nil
	}
	if d, ok := parseDecimal(s); ok && validDecimalSyntax(s) {
		return NewNumeric(d), Numeric, nil
	}
	return Null, Unknown, Errorf(CodeSyntax, "invalid literal %s", s)
}

// parseTypeName parses "name" or "name(m1,m2)" with TypeByName.
func parseTypeName(s string) (T, error) {
	if elem, ok := strings.CutSuffix(strings.TrimSpace(s), "[]"); ok {
		t, err := parseTypeName(elem)
		return ArrayOf(t), err
	}
	name, mods, ok := strings.Cut(s, "(")
	if !ok {
		return TypeByName(strings.TrimSpace(s), nil)
	}
	mods, ok = strings.CutSuffix(strings.TrimSpace(mods), ")")
	if !ok {
		return Unknown, Errorf(CodeSyntax, "invalid type name %q", s)
	}
	var typmods []int32
	for _, m := range strings.Split(mods, ",") {
		i, err := parseInt(m, Int4)
		if err != nil {
			return Unknown, Errorf(CodeSyntax, "invalid type modifier in %q", s)
		}
		typmods = append(typmods, int32(i))
	}
	return TypeByName(strings.TrimSpace(name), typmods)
}
