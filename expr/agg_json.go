package expr

import (
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The JSON aggregates keep their values already converted (AggDef.Convert:
// to_jsonb or to_json, applied by the planner to each input row), so
// their results only join texts: the state holds no SQL values whose JSON
// form depends on the session (a timestamptz's zone).

// finalJSONAgg is jsonb_agg and json_agg: the live boxed values in key
// order as a JSON array, NULL elements as null, "[a, b]" as PostgreSQL
// prints both. NULL if none.
func finalJSONAgg(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	b, n := []byte{'['}, 0
	vs.Ascend(func(v, _ repr.Datum, count int64) bool {
		if c.Distinct {
			count = 1
		}
		for ; count > 0; count-- {
			for _, e := range v.Array() {
				if n > 0 {
					b = append(b, ", "...)
				}
				b = appendJSONElem(b, e, n > 0)
				n++
			}
		}
		return true
	})
	if n == 0 {
		return repr.Null, nil
	}
	return aggJSONResult(c.T, append(b, ']')), nil
}

// finalJSONObjectAgg is jsonb_object_agg and json_object_agg over boxed
// text keys and converted values (in the separator column): a NULL key
// fails (22023), a NULL value is null. jsonb keeps one value per key (the
// last in key order) and orders keys as jsonb does; json keeps every pair
// as given, printed "{ "k" : v, ... }" as PostgreSQL does. NULL if none.
func finalJSONObjectAgg(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	type pair struct {
		key string
		val repr.Datum
	}
	var pairs []pair
	var err error
	vs.Ascend(func(v, sep repr.Datum, count int64) bool {
		k := v.Array()[0]
		if k.IsNull() {
			err = repr.Errorf(repr.CodeInvalidParameter, "field name must not be null")
			return false
		}
		for ; count > 0; count-- {
			pairs = append(pairs, pair{k.Text(), sep})
		}
		return true
	})
	if err != nil || pairs == nil {
		return repr.Null, err
	}
	if c.T.Family == repr.FamJSON {
		b := []byte("{ ")
		for i, p := range pairs {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(AppendJSONString(b, p.key), " : "...)
			b = appendJSONValue(b, p.val)
		}
		return repr.NewJSON(string(append(b, " }"...))), nil
	}
	// Stable: among equal keys the last pair wins.
	slices.SortStableFunc(pairs, func(x, y pair) int {
		switch {
		case LessJSONBKey(x.key, y.key):
			return -1
		case LessJSONBKey(y.key, x.key):
			return 1
		}
		return 0
	})
	b := []byte{'{'}
	for i, p := range pairs {
		if i+1 < len(pairs) && pairs[i+1].key == p.key {
			continue
		}
		if len(b) > 1 {
			b = append(b, ", "...)
		}
		b = append(AppendJSONString(b, p.key), ": "...)
		b = appendJSONValue(b, p.val)
	}
	return repr.NewJSONB(string(append(b, '}'))), nil
}

// appendJSONValue appends a converted value's text, null for NULL.
// structuredMark starts the JSON text of a json_agg element converted
// from a composite value (json_agg_structured): a byte no JSON text
// holds outside a string, so user values never carry it.
const structuredMark = "\x01"

func init() {
	internalFuncs["json_agg_structured"] = true
	fn("json_agg_structured", repr.JSON, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewJSON(structuredMark + a[0].Text()), nil
	}, repr.JSON)
}

// appendJSONElem appends one json_agg element: a composite element after
// the first starts on a new line, as PostgreSQL's json_agg_transfn
// separates structured values (", \n ").
func appendJSONElem(b []byte, v repr.Datum, later bool) []byte {
	if s, ok := strings.CutPrefix(v.Text(), structuredMark); ok && !v.IsNull() {
		if later {
			b = append(b, "\n "...)
		}
		return append(b, s...)
	}
	return appendJSONValue(b, v)
}

func appendJSONValue(b []byte, v repr.Datum) []byte {
	if v.IsNull() {
		return append(b, "null"...)
	}
	return append(b, v.Text()...)
}

// aggJSONResult is text b as a value of t (json or jsonb).
func aggJSONResult(t repr.T, b []byte) repr.Datum {
	if t.Family == repr.FamJSON {
		return repr.NewJSON(string(b))
	}
	return repr.NewJSONB(string(b))
}
