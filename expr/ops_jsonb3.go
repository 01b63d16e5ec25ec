package expr

import (
	"sort"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// jsonb functions for changing documents: jsonb_set, #- (delete a path),
// jsonb_strip_nulls, jsonb_pretty, and the ?| and ?& key tests (their key
// list is a text array literal such as '{a,b}').
func init() {
	j, t, b := repr.JSONB, repr.Text, repr.Bool
	fn("jsonb_set", j, jsonbSet, j, t, j)
	fn("jsonb_set", j, jsonbSet, j, t, j, b)
	binop("#-", j, t, j, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		path, present, err := parseTextArray(a[1].Text())
		if err != nil {
			return repr.Null, err
		}
		v := decodeJSON(a[0].Text())
		if isJSONScalar(v) {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "cannot delete path in scalar")
		}
		for _, p := range present {
			if !p {
				return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "path element at position %d is null", 1)
			}
		}
		return jsonDatum(deletePath(v, path)), nil
	})
	fn("jsonb_strip_nulls", j, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return jsonDatum(stripNulls(decodeJSON(a[0].Text()))), nil
	}, j)
	fn("jsonb_pretty", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return checkLen(string(prettyJSON(nil, decodeJSON(a[0].Text()), 0)))
	}, j)
	for op, all := range map[string]bool{"?|": false, "?&": true} {
		binop(op, j, t, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			keys, present, err := parseTextArray(a[1].Text())
			if err != nil {
				return repr.Null, err
			}
			v := decodeJSON(a[0].Text())
			for i, k := range keys {
				if !present[i] {
					continue
				}
				if jsonExists(v, k) != all {
					return repr.NewBool(!all), nil
				}
			}
			return repr.NewBool(all), nil
		})
	}
}

// jsonbSet is jsonb_set(target, path, value [, create_missing]).
func jsonbSet(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	path, present, err := parseTextArray(a[1].Text())
	if err != nil {
		return repr.Null, err
	}
	for i, p := range present {
		if !p {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "path element at position %d is null", i+1)
		}
	}
	v := decodeJSON(a[0].Text())
	if isJSONScalar(v) {
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "cannot set path in scalar")
	}
	create := len(a) < 4 || a[3].Bool()
	out, err := setPath(v, path, decodeJSON(a[2].Text()), create)
	if err != nil {
		return repr.Null, err
	}
	return jsonDatum(out), nil
}

// setPath returns v with the value at path replaced by nv (or, with
// create, added when only the last step is missing).
func setPath(v any, path []string, nv any, create bool) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	switch x := v.(type) {
	case map[string]any:
		cur, ok := x[path[0]]
		switch {
		case len(path) == 1 && (ok || create):
			x[path[0]] = nv
		case ok && len(path) > 1:
			r, err := setPath(cur, path[1:], nv, create)
			if err != nil {
				return nil, err
			}
			x[path[0]] = r
		}
		return x, nil
	case []any:
		n, err := parseIndex(path[0])
		if err != nil {
			return nil, repr.Errorf(repr.CodeInvalidText, "path element at position 1 is not an integer: \"%s\"", path[0])
		}
		i := n
		if i < 0 {
			i += int64(len(x))
		}
		switch {
		case i >= 0 && i < int64(len(x)) && len(path) == 1:
			x[i] = nv
		case i >= 0 && i < int64(len(x)):
			r, err := setPath(x[i], path[1:], nv, create)
			if err != nil {
				return nil, err
			}
			x[i] = r
		case len(path) == 1 && create && i < 0:
			return append([]any{nv}, x...), nil
		case len(path) == 1 && create:
			return append(x, nv), nil
		}
		return x, nil
	}
	return v, nil
}

// deletePath returns v without the member or element at path.
func deletePath(v any, path []string) any {
	if len(path) == 0 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
		} else if cur, ok := x[path[0]]; ok {
			x[path[0]] = deletePath(cur, path[1:])
		}
		return x
	case []any:
		n, err := parseIndex(path[0])
		if err != nil {
			return x
		}
		if n < 0 {
			n += int64(len(x))
		}
		if n < 0 || n >= int64(len(x)) {
			return x
		}
		if len(path) == 1 {
			return append(append([]any{}, x[:n]...), x[n+1:]...)
		}
		x[n] = deletePath(x[n], path[1:])
		return x
	}
	return v
}

// stripNulls drops object members whose value is null, at every depth.
func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = stripNulls(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = stripNulls(e)
		}
	}
	return v
}

// prettyJSON prints v as jsonb_pretty does: four-space indents, one
// member or element per line, an empty container's bracket on its own
// line.
func prettyJSON(b []byte, v any, depth int) []byte {
	indent := func(d int) { b = append(b, strings.Repeat("    ", d)...) }
	switch x := v.(type) {
	case []any:
		b = append(b, "[\n"...)
		for i, e := range x {
			indent(depth + 1)
			b = prettyJSON(b, e, depth+1)
			if i < len(x)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		indent(depth)
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		b = append(b, "{\n"...)
		for i, k := range keys {
			indent(depth + 1)
			b = appendJSONStr(b, k)
			b = append(b, ": "...)
			b = prettyJSON(b, x[k], depth+1)
			if i < len(keys)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		indent(depth)
		return append(b, '}')
	}
	return encodeJSON(b, v)
}
