package expr

import (
	"encoding/json"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The json type keeps its input text verbatim, so its operators return
// the exact spans of the input: json -> and ->> (by key, the last of
// duplicate keys, or by index), #> and #>> (path as a text array
// literal), json_typeof, json_array_length, to_json and json_build_object
// (keys in argument order, duplicates kept, printed "k" : v as PostgreSQL
// does).
func init() {
	js, t, i4 := repr.JSON, repr.Text, repr.Int4
	binop("->", js, t, js, jsonRawGet(false, false))
	binop("->", js, i4, js, jsonRawGet(true, false))
	binop("->>", js, t, t, jsonRawGet(false, true))
	binop("->>", js, i4, t, jsonRawGet(true, true))
	binop("#>", js, t, js, jsonRawPath(false))
	binop("#>>", js, t, t, jsonRawPath(true))
	binop("#>", js, repr.ArrayOf(t), js, jsonRawPath(false))
	binop("#>>", js, repr.ArrayOf(t), t, jsonRawPath(true))
	fn("json_typeof", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewText(jsonTypeof(strings.TrimSpace(a[0].Text()))), nil
	}, js)
	fn("json_array_length", i4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		doc := strings.TrimSpace(a[0].Text())
		var elems []json.RawMessage
		if !strings.HasPrefix(doc, "[") || json.Unmarshal([]byte(doc), &elems) != nil {
			what := "scalar"
			if strings.HasPrefix(doc, "{") {
				what = "non-array"
			}
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "cannot get array length of a %s", what)
		}
		return repr.NewInt(int64(len(elems))), nil
	}, js)
	variadics["to_json"] = toJSONFunc
	variadics["json_build_object"] = jsonBuildObjectFunc
}

// rawStep returns the span of member key or element index of raw json.
func rawStep(doc string, key string, index int64, byIndex bool) (string, bool) {
	doc = strings.TrimSpace(doc)
	var raw json.RawMessage
	var ok bool
	if byIndex {
		raw, ok = jsonIndex(doc, index)
	} else {
		raw, ok = jsonField(doc, key)
	}
	return string(raw), ok
}

// rawResult returns a span as json, or as text for ->> and #>>.
func rawResult(span string, asText bool) repr.Datum {
	if !asText {
		return repr.NewJSON(span)
	}
	var s string
	switch {
	case span == "null":
		return repr.Null
	case strings.HasPrefix(span, `"`) && json.Unmarshal([]byte(span), &s) == nil:
		return repr.NewText(s)
	}
	return repr.NewText(span)
}

func jsonRawGet(byIndex, asText bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		var span string
		var ok bool
		if byIndex {
			span, ok = rawStep(a[0].Text(), "", a[1].Int(), true)
		} else {
			span, ok = rawStep(a[0].Text(), a[1].Text(), 0, false)
		}
		if !ok {
			return repr.Null, nil
		}
		return rawResult(span, asText), nil
	}
}

func jsonRawPath(asText bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		path, present, err := pathArg(a[1])
		if err != nil {
			return repr.Null, err
		}
		span := strings.TrimSpace(a[0].Text())
		for i, p := range path {
			if !present[i] {
				return repr.Null, nil
			}
			var ok bool
			if strings.HasPrefix(span, "[") {
				n, err := parseIndex(p)
				if err != nil {
					return repr.Null, nil
				}
				span, ok = rawStep(span, "", n, true)
			} else {
				span, ok = rawStep(span, p, 0, false)
			}
			if !ok {
				return repr.Null, nil
			}
		}
		return rawResult(span, asText), nil
	}
}

// jsonText returns the JSON text of a SQL value as to_json prints it.
func jsonText(d repr.Datum, t repr.T, c *Ctx) string {
	switch {
	case d.IsNull():
		return "null"
	case t.Family == repr.FamJSON:
		return d.Text()
	case t.Family == repr.FamArray:
		// array_to_json: elements as to_json prints them, no spaces,
		// nested by dimension.
		parts := make([]string, 0, d.ArrayLen())
		for _, e := range d.Array() {
			parts = append(parts, jsonText(e, t.ElemType(), c))
		}
		return nestJSON(parts, d.ArrayDims())
	case t.Family == repr.FamRecord:
		return recordJSONText(d, nil, c)
	}
	return string(encodeJSON(nil, toJSONValue(d, t, c.Location())))
}

// nestJSON joins the JSON texts of an array's elements into nested JSON
// arrays of shape dims ([] for none).
func nestJSON(parts []string, dims []int) string {
	if len(dims) <= 1 {
		return "[" + strings.Join(parts, ",") + "]"
	}
	step := len(parts) / dims[0]
	subs := make([]string, dims[0])
	for i := range subs {
		subs[i] = nestJSON(parts[i*step:(i+1)*step], dims[1:])
	}
	return "[" + strings.Join(subs, ",") + "]"
}

// toJSONFunc instantiates to_json(anyelement); an untyped literal is text.
func toJSONFunc(args []repr.T) (*Func, error) {
	if len(args) != 1 {
		return nil, funcError("to_json", args, false)
	}
	ats, _ := textArgs(args)
	at := ats[0]
	return &Func{Name: "to_json", Args: []repr.T{at}, Ret: repr.JSON, Strict: true,
		zoned: zonedType(at),
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewJSON(jsonText(a[0], at, c)), nil
		}}, nil
}

// jsonBuildObjectFunc instantiates json_build_object(VARIADIC "any").
func jsonBuildObjectFunc(args []repr.T) (*Func, error) {
	sig, zoned := textArgs(args)
	return &Func{Name: "json_build_object", Args: sig, Ret: repr.JSON, zoned: zoned,
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			if len(a)%2 != 0 {
				return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "argument list must have even number of elements").
					WithHint("The arguments of json_build_object() must consist of alternating keys and values.")
			}
			b := []byte{'{'}
			for i := 0; i < len(a); i += 2 {
				if a[i].IsNull() {
					return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "argument %d cannot be null", i+1).
						WithHint("Object keys should be text.")
				}
				if f := sig[i].Family; f == repr.FamJSON || f == repr.FamJSONB || f == repr.FamArray {
					return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "key value must be scalar, not array, composite, or json")
				}
				if i > 0 {
					b = append(b, ", "...)
				}
				b = appendJSONStr(b, formatText(a[i], sig[i], c.Location()))
				b = append(b, " : "...)
				b = append(b, jsonText(a[i+1], sig[i+1], c)...)
			}
			return checkLen(string(append(b, '}')))
		}}, nil
}
