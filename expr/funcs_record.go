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
