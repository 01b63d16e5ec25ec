package expr

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The jsonb and json set-returning functions: *_array_elements[_text]
// (one row per array element), *_each[_text] (one row per object member:
// key, value) and *_object_keys. jsonb objects yield their members in
// jsonb's canonical key order (by length, then bytes) with duplicates
// already merged; json objects yield them in input order with duplicates
// kept, and json values are the exact input spans, as PostgreSQL does.
func init() {
	j, js, t := repr.JSONB, repr.JSON, repr.Text
	value := func(vt repr.T) []TableCol { return []TableCol{{Name: "value", T: vt}} }
	each := func(vt repr.T) []TableCol { return []TableCol{{Name: "key", T: t}, {Name: "value", T: vt}} }
	tableFn("jsonb_array_elements", value(j), jsonbElements(false), j)
	tableFn("jsonb_array_elements_text", value(t), jsonbElements(true), j)
	tableFn("jsonb_each", each(j), jsonbEach("jsonb_each", false), j).Present = 1
	tableFn("jsonb_each_text", each(t), jsonbEach("jsonb_each_text", true), j).Present = 1
	tableFn("jsonb_object_keys", col1(t), jsonbKeys, j)
	tableFn("json_array_elements", value(js), jsonElements(false), js)
	tableFn("json_array_elements_text", value(t), jsonElements(true), js)
	tableFn("json_each", each(js), jsonEach("json_each", false), js).Present = 1
	tableFn("json_each_text", each(t), jsonEach("json_each_text", true), js).Present = 1
	tableFn("json_object_keys", col1(t), jsonKeys, js)
}

// errNotArray is the error of the *_array_elements functions over a
// non-array; what is "a scalar" or "an object".
func errNotArray(what string) error {
	return repr.Errorf(repr.CodeInvalidParameter, "cannot extract elements from %s", what)
}

// jsonWhat names the kind of a non-array, non-object value for errors.
func jsonWhat(isObject bool) string {
	if isObject {
		return "an object"
	}
	return "a scalar"
}

func jsonbElements(asText bool) TableGen {
	return func(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		v := decodeJSON(a[0].Text())
		arr, ok := v.([]any)
		if !ok {
			_, obj := v.(map[string]any)
			return errNotArray(jsonWhat(obj))
		}
		buf := make([]repr.Datum, 1)
		for _, e := range arr {
			buf[0] = jsonResult(e, asText)
			if err := emit(buf); err != nil {
				return err
			}
		}
		return nil
	}
}

// jsonbObject decodes an object and returns it with its keys in canonical
// order, or 22023 naming fn ("cannot call jsonb_each on a non-object").
func jsonbObject(fn, doc string) (map[string]any, []string, error) {
	v := decodeJSON(doc)
	obj, ok := v.(map[string]any)
	if !ok {
		if fn == "jsonb_object_keys" {
			what := "a scalar"
			if _, arr := v.([]any); arr {
				what = "an array"
			}
			return nil, nil, repr.Errorf(repr.CodeInvalidParameter, "cannot call %s on %s", fn, what)
		}
		return nil, nil, repr.Errorf(repr.CodeInvalidParameter, "cannot call %s on a non-object", fn)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return obj, keys, nil
}

func jsonbEach(name string, asText bool) TableGen {
	return func(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		obj, keys, err := jsonbObject(name, a[0].Text())
		if err != nil {
			return err
		}
		buf := make([]repr.Datum, 2)
		for _, k := range keys {
			buf[0], buf[1] = repr.NewText(k), jsonResult(obj[k], asText)
			if err := emit(buf); err != nil {
				return err
			}
		}
		return nil
	}
}

func jsonbKeys(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	_, keys, err := jsonbObject("jsonb_object_keys", a[0].Text())
	if err != nil {
		return err
	}
	buf := make([]repr.Datum, 1)
	for _, k := range keys {
		buf[0] = repr.NewText(k)
		if err := emit(buf); err != nil {
			return err
		}
	}
	return nil
}

func jsonElements(asText bool) TableGen {
	return func(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		doc := strings.TrimSpace(a[0].Text())
		var elems []json.RawMessage
		if !strings.HasPrefix(doc, "[") || json.Unmarshal([]byte(doc), &elems) != nil {
			return errNotArray(jsonWhat(strings.HasPrefix(doc, "{")))
		}
		buf := make([]repr.Datum, 1)
		for _, e := range elems {
			buf[0] = rawResult(string(e), asText)
			if err := emit(buf); err != nil {
				return err
			}
		}
		return nil
	}
}

// jsonMembers returns a json object's members in input order (duplicates
// kept) as key and value span pairs, or 22023 for a non-object.
func jsonMembers(fn, doc string) ([][2]string, error) {
	doc = strings.TrimSpace(doc)
	dec := json.NewDecoder(strings.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		what := "a scalar"
		if strings.HasPrefix(doc, "[") {
			what = "an array"
		}
		if fn == "json_object_keys" {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "cannot call %s on %s", fn, what)
		}
		return nil, repr.Errorf(repr.CodeInvalidParameter, "cannot deconstruct %s as an object", what)
	}
	var out [][2]string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, [2]string{tok.(string), string(raw)})
	}
	return out, nil
}

func jsonEach(name string, asText bool) TableGen {
	return func(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		members, err := jsonMembers(name, a[0].Text())
		if err != nil {
			return err
		}
		buf := make([]repr.Datum, 2)
		for _, m := range members {
			buf[0], buf[1] = repr.NewText(m[0]), rawResult(m[1], asText)
			if err := emit(buf); err != nil {
				return err
			}
		}
		return nil
	}
}

func jsonKeys(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	members, err := jsonMembers("json_object_keys", a[0].Text())
	if err != nil {
		return err
	}
	buf := make([]repr.Datum, 1)
	for _, m := range members {
		buf[0] = repr.NewText(m[0])
		if err := emit(buf); err != nil {
			return err
		}
	}
	return nil
}
