package expr

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// jsonb path, existence and containment operators and the constructors:
// #> and #>> (the path is a text array literal such as '{a,0,b}', since
// Eddy has no arrays), ?, @>, <@, jsonb - text, jsonb || jsonb,
// jsonb_extract_path[_text], jsonb_array_length, to_jsonb and
// jsonb_build_object. Values are decoded from their canonical text (the
// form repr.ParseJSONB stores) and printed back canonically.
func init() {
	j, t, b := repr.JSONB, repr.Text, repr.Bool
	binop("#>", j, t, j, jsonPathOp(false))
	binop("#>>", j, t, t, jsonPathOp(true))
	binop("#>", j, repr.ArrayOf(t), j, jsonPathOp(false))
	binop("#>>", j, repr.ArrayOf(t), t, jsonPathOp(true))
	binop("?", j, t, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewBool(jsonExists(decodeJSON(a[0].Text()), a[1].Text())), nil
	})
	binop("@>", j, j, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewBool(jsonContains(decodeJSON(a[0].Text()), decodeJSON(a[1].Text()), true)), nil
	})
	binop("<@", j, j, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewBool(jsonContains(decodeJSON(a[1].Text()), decodeJSON(a[0].Text()), true)), nil
	})
	binop("-", j, t, j, jsonDeleteKey)
	binop("||", j, j, j, jsonConcat)
	fn("jsonb_array_length", repr.Int4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		v := decodeJSON(a[0].Text())
		arr, ok := v.([]any)
		if !ok {
			what := "scalar"
			if _, obj := v.(map[string]any); obj {
				what = "non-array"
			}
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "cannot get array length of a %s", what)
		}
		return repr.NewInt(int64(len(arr))), nil
	}, j)
	variadics["to_jsonb"] = toJSONBFunc
	variadics["jsonb_build_object"] = buildObjectFunc
	variadics["jsonb_extract_path"] = extractPathFunc(false)
	variadics["jsonb_extract_path_text"] = extractPathFunc(true)
}

// decodeJSON decodes canonical jsonb text: nil, bool, json.Number, string,
// []any or map[string]any.
func decodeJSON(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// encodeJSON prints v as jsonb's canonical text (keys by length, then
// bytes; ", " and ": " separators).
func encodeJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case json.Number:
		return append(b, x...)
	case string:
		return appendJSONStr(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = encodeJSON(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return LessJSONBKey(keys[i], keys[j]) })
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSONStr(b, k)
			b = append(b, ": "...)
			b = encodeJSON(b, x[k])
		}
		return append(b, '}')
	}
	return b
}

// appendJSONStr quotes s as PostgreSQL's escape_json does.
// AppendJSONString appends s as a JSON string literal, escaped as
// PostgreSQL's json and jsonb print it.
func AppendJSONString(b []byte, s string) []byte { return appendJSONStr(b, s) }

// LessJSONBKey is the order of the keys of a jsonb object: shorter first,
// then by bytes.
func LessJSONBKey(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func appendJSONStr(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if c < 0x20 {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

func jsonDatum(v any) repr.Datum { return repr.NewJSONB(string(encodeJSON(nil, v))) }

// parseTextArray reads a one-dimensional text array literal ('{a,"b c",NULL}')
// into its elements; a NULL element is reported by ok[i] = false.
func parseTextArray(s string) ([]string, []bool, error) {
	bad := func() error {
		return repr.Errorf(repr.CodeInvalidText, "malformed array literal: \"%s\"", s)
	}
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, nil, bad()
	}
	body := s[1 : len(s)-1]
	var elems []string
	var ok []bool
	if strings.TrimSpace(body) == "" {
		return elems, ok, nil
	}
	for i := 0; i <= len(body); {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		var e strings.Builder
		quoted := i < len(body) && body[i] == '"'
		if quoted {
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				e.WriteByte(body[i])
				i++
			}
			if i >= len(body) {
				return nil, nil, bad()
			}
			i++
		} else {
			for i < len(body) && body[i] != ',' {
				if body[i] == '{' || body[i] == '}' || body[i] == '"' {
					return nil, nil, bad()
				}
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				e.WriteByte(body[i])
				i++
			}
		}
		v := e.String()
		if !quoted {
			v = strings.TrimRight(v, " ")
			if v == "" {
				return nil, nil, bad()
			}
		}
		for i < len(body) && body[i] == ' ' {
			i++
		}
		elems, ok = append(elems, v), append(ok, quoted || !strings.EqualFold(v, "NULL"))
		if i < len(body) && body[i] != ',' {
			return nil, nil, bad()
		}
		i++
	}
	return elems, ok, nil
}

// jsonPath follows path from v: object keys, array indexes (negative from
// the end). A NULL step or a missing member gives ok = false.
func jsonPath(v any, path []string, present []bool) (any, bool) {
	for i, p := range path {
		if !present[i] {
			return nil, false
		}
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[p]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			n, err := parseIndex(p)
			if err != nil {
				return nil, false
			}
			if n < 0 {
				n += int64(len(x))
			}
			if n < 0 || n >= int64(len(x)) {
				return nil, false
			}
			v = x[n]
		default:
			return nil, false
		}
	}
	return v, true
}

func parseIndex(p string) (int64, error) {
	d, err := parseText(p, repr.Int4, nil)
	return d.Int(), err
}

// nestValues nests an array's JSON values into arrays of shape dims.
func nestValues(vals []any, dims []int) []any {
	if len(dims) <= 1 {
		return vals
	}
	step := len(vals) / dims[0]
	out := make([]any, dims[0])
	for i := range out {
		out[i] = nestValues(vals[i*step:(i+1)*step], dims[1:])
	}
	return out
}

// pathArg reads the path operand of #> and #>>: a text[] value, or the
// text of an array literal.
func pathArg(d repr.Datum) ([]string, []bool, error) {
	if d.Family() != repr.FamArray {
		return parseTextArray(d.Text())
	}
	elems := d.Array()
	path, present := make([]string, len(elems)), make([]bool, len(elems))
	for i, e := range elems {
		if !e.IsNull() {
			path[i], present[i] = e.Text(), true
		}
	}
	return path, present, nil
}

// jsonResult returns v as jsonb, or for asText as text (strings unquoted,
// null as SQL NULL).
func jsonResult(v any, asText bool) repr.Datum {
	if !asText {
		return jsonDatum(v)
	}
	switch x := v.(type) {
	case nil:
		return repr.Null
	case string:
		return repr.NewText(x)
	}
	return repr.NewText(string(encodeJSON(nil, v)))
}

func jsonPathOp(asText bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		path, present, err := pathArg(a[1])
		if err != nil {
			return repr.Null, err
		}
		v, ok := jsonPath(decodeJSON(a[0].Text()), path, present)
		if !ok {
			return repr.Null, nil
		}
		return jsonResult(v, asText), nil
	}
}

// extractPathFunc instantiates jsonb_extract_path[_text](jsonb, VARIADIC text).
func extractPathFunc(asText bool) func([]repr.T) (*Func, error) {
	name := map[bool]string{false: "jsonb_extract_path", true: "jsonb_extract_path_text"}[asText]
	return func(args []repr.T) (*Func, error) {
		if len(args) < 1 || !implicitOK(args[0], repr.JSONB) && args[0].Family != repr.FamUnknown {
			return nil, funcError(name, args, false)
		}
		sig := []repr.T{repr.JSONB}
		for _, a := range args[1:] {
			if !textParam(a) {
				return nil, funcError(name, args, false)
			}
			sig = append(sig, repr.Text)
		}
		ret := repr.JSONB
		if asText {
			ret = repr.Text
		}
		return &Func{Name: name, Args: sig, Ret: ret, Impl: func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			if a[0].IsNull() {
				return repr.Null, nil
			}
			path, present := make([]string, len(a)-1), make([]bool, len(a)-1)
			for i, d := range a[1:] {
				path[i], present[i] = d.Text(), !d.IsNull()
			}
			v, ok := jsonPath(decodeJSON(a[0].Text()), path, present)
			if !ok {
				return repr.Null, nil
			}
			return jsonResult(v, asText), nil
		}}, nil
	}
}

// jsonExists is jsonb ? key: a top-level object key, a string element of a
// top-level array, or a string scalar equal to key.
func jsonExists(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		_, ok := x[key]
		return ok
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s == key {
				return true
			}
		}
	case string:
		return x == key
	}
	return false
}

// jsonContains is a @> b with PostgreSQL's rules: objects contain objects
// whose every pair they contain; arrays contain arrays whose every element
// some element contains; scalars equal (numbers numerically); and at the
// top level an array contains a scalar it has as an element.
func jsonContains(a, b any, top bool) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, bv := range y {
			av, ok := x[k]
			if !ok || !jsonContains(av, bv, false) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok {
			if top && isJSONScalar(b) {
				y = []any{b}
			} else {
				return false
			}
		}
		for _, bv := range y {
			found := false
			for _, av := range x {
				if isJSONScalar(bv) != isJSONScalar(av) {
					continue
				}
				if jsonContains(av, bv, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return jsonScalarEqual(a, b)
}

func isJSONScalar(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

func jsonScalarEqual(a, b any) bool {
	if x, ok := a.(json.Number); ok {
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		var dx, dy apd.Decimal
		if _, _, err := dx.SetString(string(x)); err != nil {
			return x == y
		}
		if _, _, err := dy.SetString(string(y)); err != nil {
			return false
		}
		return dx.Cmp(&dy) == 0
	}
	if isJSONScalar(b) {
		return a == b
	}
	return false
}

// jsonDeleteKey is jsonb - text: the object without key, the array
// without its string elements equal to key.
func jsonDeleteKey(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	switch x := decodeJSON(a[0].Text()).(type) {
	case map[string]any:
		delete(x, a[1].Text())
		return jsonDatum(x), nil
	case []any:
		out := []any{}
		for _, e := range x {
			if s, ok := e.(string); !ok || s != a[1].Text() {
				out = append(out, e)
			}
		}
		return jsonDatum(out), nil
	}
	return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "cannot delete from scalar")
}

// jsonConcat is jsonb || jsonb: objects merge (right wins), otherwise
// arrays concatenate (a scalar or object counts as a one-element array).
func jsonConcat(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	x, y := decodeJSON(a[0].Text()), decodeJSON(a[1].Text())
	xo, okx := x.(map[string]any)
	yo, oky := y.(map[string]any)
	if okx && oky {
		for k, v := range yo {
			xo[k] = v
		}
		return jsonDatum(xo), nil
	}
	asArray := func(v any) []any {
		if arr, ok := v.([]any); ok {
			return arr
		}
		return []any{v}
	}
	return jsonDatum(append(append([]any{}, asArray(x)...), asArray(y)...)), nil
}

// toJSONValue converts a SQL value to its JSON form as to_jsonb does:
// numbers as numbers (NaN and infinities as strings), booleans, jsonb as
// is, date/time values as ISO 8601 strings, everything else as its text.
func toJSONValue(d repr.Datum, t repr.T, loc *time.Location) any {
	if d.IsNull() {
		return nil
	}
	switch t.Family {
	case repr.FamBool:
		return d.Bool()
	case repr.FamInt:
		return json.Number(formatText(d, t, loc))
	case repr.FamNumeric:
		s := formatText(d, t, loc)
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return s
		}
		return json.Number(s)
	case repr.FamFloat:
		f := d.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return formatText(d, t, loc)
		}
		n, err := repr.Cast(d, t, repr.Numeric, loc, true)
		if err != nil {
			return formatText(d, t, loc)
		}
		return json.Number(formatText(n, repr.Numeric, loc))
	case repr.FamJSONB, repr.FamJSON:
		return decodeJSON(d.Text())
	case repr.FamRecord:
		return recordJSONValue(d, nil, loc)
	case repr.FamArray:
		elems := d.Array()
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = toJSONValue(e, t.ElemType(), loc)
		}
		return nestValues(out, d.ArrayDims())
	case repr.FamTimestamp, repr.FamTimestampTZ:
		s := formatText(d, t, loc)
		if isInfTs(d.Micros()) {
			return s
		}
		s = strings.Replace(s, " ", "T", 1)
		if t.Family == repr.FamTimestampTZ {
			s = isoOffset(s)
		}
		return s
	}
	return formatText(d, t, loc)
}

// isoOffset widens a trailing +hh offset to +hh:mm, as JSON dates print.
func isoOffset(s string) string {
	i := strings.LastIndexAny(s, "+-")
	if i > 0 && len(s)-i == 3 {
		return s + ":00"
	}
	return s
}

// toJSONBFunc instantiates to_jsonb(anyelement). An untyped literal is
// read as text (PostgreSQL refuses it with 42P18), so that a call over a
// text literal, which prints without its cast, parses back.
func toJSONBFunc(args []repr.T) (*Func, error) {
	if len(args) != 1 {
		return nil, funcError("to_jsonb", args, false)
	}
	ats, _ := textArgs(args)
	at := ats[0]
	return &Func{Name: "to_jsonb", Args: []repr.T{at}, Ret: repr.JSONB, Strict: true,
		zoned: zonedType(at),
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			return jsonDatum(toJSONValue(a[0], at, c.Location())), nil
		}}, nil
}

// buildObjectFunc instantiates jsonb_build_object(VARIADIC "any"): keys
// are printed as text (never NULL), values converted as to_jsonb.
func buildObjectFunc(args []repr.T) (*Func, error) {
	sig, zoned := textArgs(args)
	return &Func{Name: "jsonb_build_object", Args: sig, Ret: repr.JSONB, zoned: zoned,
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			if len(a)%2 != 0 {
				return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "argument list must have even number of elements").
					WithHint("The arguments of jsonb_build_object() must consist of alternating keys and values.")
			}
			obj := make(map[string]any, len(a)/2)
			for i := 0; i < len(a); i += 2 {
				if a[i].IsNull() {
					return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "argument %d: key must not be null", i+1)
				}
				if f := sig[i].Family; f == repr.FamJSONB || f == repr.FamArray {
					return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "key value must be scalar, not array, composite, or json")
				}
				obj[formatText(a[i], sig[i], c.Location())] = toJSONValue(a[i+1], sig[i+1], c.Location())
			}
			return jsonDatum(obj), nil
		}}, nil
}
