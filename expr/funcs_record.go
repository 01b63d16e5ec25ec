package expr

import (
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
	variadics["record_in"] = recordInFunc
	internalFuncs["record_in"] = true
	internalFuncs["search_depth"] = true
	fn("search_depth", repr.Int8, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, _ := a[0].Record()
		if len(r) == 0 || r[0].Family() != repr.FamInt {
			return repr.Null, repr.Errorf(repr.CodeDatatypeMismatch, "record has no depth field")
		}
		return r[0], nil
	}, repr.Record)
	cmp := map[string]func(int) bool{
		"=": func(c int) bool { return c == 0 }, "<>": func(c int) bool { return c != 0 },
		"<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
		">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
	}
	for op, ok := range cmp {
		binop(op, repr.Record, repr.Record, repr.Bool, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewBool(ok(repr.Compare(a[0], a[1]))), nil
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
		if t.Family == repr.FamArray || t.Family == repr.FamRecord {
			return nil, repr.Unsupported("ROW field of type %s", t.Name())
		}
		sig[i] = t
	}
	return newFunc("row", repr.Record, false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewRecord(append(repr.Row(nil), a...), sig)
	}, sig...), nil
}

// recordInFunc instantiates record_in(text, t1, ..., tn) -> record: the
// text read as record_in reads a value of a composite type whose fields
// have types t1..tn (the planner passes typed NULLs, so the field types
// are part of the call's printed form). It is strict in its text.
func recordInFunc(args []repr.T) (*Func, error) {
	if len(args) < 2 || args[0].Family != repr.FamText {
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "function record_in must be called as record_in(text, type, ...)")
	}
	sig := append([]repr.T(nil), args...)
	fields := sig[1:]
	return newFunc("record_in", repr.Record, false, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, nil
		}
		return repr.ParseRecord(a[0].Text(), fields, c.Location())
	}, sig...), nil
}
