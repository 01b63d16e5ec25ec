package expr

import (
	"strconv"
	"time"

	"github.com/eddydb/eddy/repr"
)

// JSON of records. to_json, row_to_json and to_jsonb of a record build
// an object of its fields: PostgreSQL names an anonymous record's fields
// f1, f2, ...; a record whose field names the planner knows (a table's
// whole row: SELECT to_json(t) FROM t) is converted by
// record_to_json(rec, 'a', 'b', ...) and record_to_jsonb, which take the
// names as arguments because Eddy's record values do not carry them.
// to_json's object is compact ({"f1":1,"f2":"x"}), as row_to_json's.
func init() {
	variadics["record_to_json"] = recordJSONFunc("record_to_json", repr.JSON)
	variadics["record_to_jsonb"] = recordJSONFunc("record_to_jsonb", repr.JSONB)
	variadics["record_array_to_json"] = recordArrayJSONFunc("record_array_to_json", repr.JSON)
	variadics["record_array_to_jsonb"] = recordArrayJSONFunc("record_array_to_jsonb", repr.JSONB)
	fn("row_to_json", repr.JSON, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewJSON(recordJSONText(a[0], nil, c)), nil
	}, repr.Record).Strict = true
}

// recordJSONFunc instantiates record_to_json[b](record, VARIADIC text):
// the record's fields under the given names (as many as it has fields).
func recordJSONFunc(name string, ret repr.T) func(args []repr.T) (*Func, error) {
	return namedFieldsFunc(name, ret, repr.Record, func(c *Ctx, rec repr.Datum, names []string) (repr.Datum, error) {
		if ret.Family == repr.FamJSONB {
			return jsonDatum(recordJSONValue(rec, names, c.Location())), nil
		}
		return repr.NewJSON(recordJSONText(rec, names, c)), nil
	})
}

// namedFieldsFunc instantiates a function of a first argument of type
// first (a record or an array of records) and the VARIADIC text names of
// its records' fields, computed by f; any other argument types are 42883.
func namedFieldsFunc(name string, ret, first repr.T, f func(c *Ctx, v repr.Datum, names []string) (repr.Datum, error)) func(args []repr.T) (*Func, error) {
	return func(args []repr.T) (*Func, error) {
		if len(args) == 0 || args[0].Family != first.Family || (first.Family == repr.FamArray && args[0].Elem != first.Elem) {
			return nil, funcError(name, args, false)
		}
		sig := []repr.T{first}
		for _, t := range args[1:] {
			if t.Family != repr.FamText && t.Family != repr.FamUnknown {
				return nil, funcError(name, args, false)
			}
			sig = append(sig, repr.Text)
		}
		return &Func{Name: name, Args: sig, Ret: ret, Strict: true, zoned: true,
			Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
				names := make([]string, len(a)-1)
				for i, d := range a[1:] {
					names[i] = d.Text()
				}
				return f(c, a[0], names)
			}}, nil
	}
}

// fieldName is the name of field i: names[i], or PostgreSQL's f<i+1>
// for an anonymous record (or a field past the names given).
func fieldName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return "f" + strconv.Itoa(i+1)
}

// recordJSONText is row_to_json: {"name":value,...} without spaces, each
// value as to_json prints it.
func recordJSONText(d repr.Datum, names []string, c *Ctx) string {
	fields, types := d.Record()
	b := []byte{'{'}
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONStr(b, fieldName(names, i))
		b = append(b, ':')
		b = append(b, jsonText(f, types[i], c)...)
	}
	return string(append(b, '}'))
}

// recordJSONValue is to_jsonb of a record: an object of its fields.
func recordJSONValue(d repr.Datum, names []string, loc *time.Location) any {
	fields, types := d.Record()
	obj := make(map[string]any, len(fields))
	for i, f := range fields {
		obj[fieldName(names, i)] = toJSONValue(f, types[i], loc)
	}
	return obj
}

// recordArrayJSONFunc instantiates record_array_to_json[b](record[],
// VARIADIC text): to_json of an array of records whose field names the
// planner knows, each element an object under the given names (NULL
// elements null), nested by dimension as array_to_json nests.
func recordArrayJSONFunc(name string, ret repr.T) func(args []repr.T) (*Func, error) {
	return namedFieldsFunc(name, ret, repr.ArrayOf(repr.Record), func(c *Ctx, arr repr.Datum, names []string) (repr.Datum, error) {
		parts := make([]string, 0, arr.ArrayLen())
		for _, e := range arr.Array() {
			if e.IsNull() {
				parts = append(parts, "null")
				continue
			}
			parts = append(parts, recordJSONText(e, names, c))
		}
		text := nestJSON(parts, arr.ArrayDims())
		if ret.Family == repr.FamJSONB {
			return repr.ParseJSONB(text)
		}
		return repr.NewJSON(text), nil
	})
}
