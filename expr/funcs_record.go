package expr

import (
	"time"

	"github.com/eddydb/eddy/repr"
)

// Records (repr.Record): row(a, b, ...) builds one (SQL's ROW(a, b), an
// internal function here so plans print and parse it like any call), the
// comparison operators compare two as record_eq and record_cmp do, and
// search_depth(r) reads the depth field that WITH RECURSIVE ... SEARCH
// BREADTH FIRST puts first in its sequence record (PostgreSQL's
// FieldSelect of "*DEPTH*").

func init() {
	variadics["row"] = rowConstructor
	variadics["record_in"] = recordInFunc("record_in", repr.Record, repr.ParseRecord)
	variadics["record_array_in"] = recordInFunc("record_array_in", repr.ArrayOf(repr.Record), repr.ParseCompositeArray)
	internalFuncs["record_in"], internalFuncs["record_array_in"] = true, true
	internalFuncs["search_depth"] = true
	fn("search_depth", repr.Int8, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, _ := a[0].Record()
		if len(r) == 0 || r[0].Family() != repr.FamInt {
			return repr.Null, repr.Errorf(repr.CodeDatatypeMismatch, "record has no depth field")
		}
		return r[0], nil
	}, repr.Record)
	cmp := cmpPredicates()
	compare := compareTrimmed(repr.Record)
	for op, ok := range cmp {
		binop(op, repr.Record, repr.Record, repr.Bool, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewBool(ok(compare(a[0], a[1]))), nil
		})
	}
}

// rowConstructor instantiates row(x1, ..., xn) over scalar arguments
// (unknown literals become text). It is not strict: NULL arguments are
// NULL fields.
func rowConstructor(args []repr.T) (*Func, error) {
	sig := make([]repr.T, len(args))
	for i, t := range args {
		if t.Family == repr.FamUnknown {
			t = repr.Text
		}
		sig[i] = t
	}
	return newFunc("row", repr.Record, false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewRecord(append(repr.Row(nil), a...), sig)
	}, sig...), nil
}

// recordInFunc returns the instantiation of record_in(text, t1, ...,
// tn) -> record, the text read as record_in reads a value of a composite
// type whose fields have types t1..tn, or of record_array_in(text, t1,
// ..., tn) -> record[], an array of such values (parse is
// repr.ParseRecord or repr.ParseCompositeArray). The planner passes typed
// NULLs, so the field types are part of the call's printed form. NULL
// text gives NULL.
func recordInFunc(name string, ret repr.T, parse func(string, []repr.T, *time.Location) (repr.Datum, error)) func([]repr.T) (*Func, error) {
	return func(args []repr.T) (*Func, error) {
		if len(args) < 2 || args[0].Family != repr.FamText && args[0].Family != repr.FamUnknown {
			return nil, repr.Errorf(repr.CodeUndefinedFunction, "function %s must be called as %s(text, type, ...)", name, name)
		}
		// A folded literal prints bare ('(a,1)'), and a printed plan
		// reads it back as unknown: it is coerced to text.
		sig := append([]repr.T{repr.Text}, args[1:]...)
		fields := sig[1:]
		return newFunc(name, ret, false, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			if a[0].IsNull() {
				return repr.Null, nil
			}
			return parse(a[0].Text(), fields, c.Location())
		}, sig...), nil
	}
}
