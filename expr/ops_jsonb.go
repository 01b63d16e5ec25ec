package expr

import (
	"encoding/json"
	"strings"

	"github.com/eddydb/eddy/repr"
)

func init() {
	j, t := repr.JSONB, repr.Text
	binop("->", j, t, j, jsonGet(false, false))
	binop("->", j, repr.Int4, j, jsonGet(true, false))
	binop("->>", j, t, t, jsonGet(false, true))
	binop("->>", j, repr.Int4, t, jsonGet(true, true))
	fn("jsonb_typeof", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewText(jsonTypeof(a[0].Text())), nil
	}, j)
}

// jsonGet is jsonb -> key / -> index (asText: ->>). Missing keys, out of
// range indexes and wrong container kinds give NULL, as in PostgreSQL; a
// negative index counts from the end.
func jsonGet(byIndex, asText bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		var raw json.RawMessage
		var ok bool
		if byIndex {
			raw, ok = jsonIndex(a[0].Text(), a[1].Int())
		} else {
			raw, ok = jsonField(a[0].Text(), a[1].Text())
		}
		if !ok {
			return repr.Null, nil
		}
		if !asText {
			return repr.NewJSONB(string(raw)), nil
		}
		var s string
		switch {
		case string(raw) == "null":
			return repr.Null, nil
		case json.Unmarshal(raw, &s) == nil:
			return repr.NewText(s), nil
		}
		return repr.NewText(string(raw)), nil
	}
}

// The canonical jsonb text is what PostgreSQL prints, so a member's span
// is itself canonical and can be returned as is: decode one level only.
func jsonField(doc, key string) (json.RawMessage, bool) {
	if !strings.HasPrefix(doc, "{") {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var found json.RawMessage
	ok := false
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		if k == key {
			found, ok = v, true
		}
	}
	return spanOf(doc, found), ok
}

func jsonIndex(doc string, i int64) (json.RawMessage, bool) {
	if !strings.HasPrefix(doc, "[") {
		return nil, false
	}
	var elems []json.RawMessage
	if json.Unmarshal([]byte(doc), &elems) != nil {
		return nil, false
	}
	if i < 0 {
		i += int64(len(elems))
	}
	if i < 0 || i >= int64(len(elems)) {
		return nil, false
	}
	return spanOf(doc, elems[i]), true
}

// spanOf returns raw unchanged: encoding/json keeps a RawMessage's bytes
// exactly as in the input, so PostgreSQL's spacing survives.
func spanOf(_ string, raw json.RawMessage) json.RawMessage { return raw }

func jsonTypeof(doc string) string {
	switch {
	case doc == "":
		return "null"
	case doc[0] == '{':
		return "object"
	case doc[0] == '[':
		return "array"
	case doc[0] == '"':
		return "string"
	case doc == "true" || doc == "false":
		return "boolean"
	case doc == "null":
		return "null"
	}
	return "number"
}
