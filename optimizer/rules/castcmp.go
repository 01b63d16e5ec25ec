package rules

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// unwrapCastCompare rewrites a comparison of a widened term with a
// constant into a comparison in the term's own type, so that the cast is
// not evaluated per row (TPC-H's `l_shipdate <= date '1998-12-01' -
// interval '90 day'` compares every lineitem's date cast to timestamp):
//
//	CAST(x AS timestamp) op t  =>  x op d        (x a date)
//	CAST(x AS bigint)    op n  =>  x op n::int4  (x an int2 or int4)
//
// (and the mirrored form, t op CAST(x), with op mirrored). For a date, d
// is the date of t when t is midnight (or ±infinity: casts map infinities
// to infinities); otherwise d is t's day, between whose midnight and
// the next midnight t lies, and `<`, `<=` become `<= d`, `>`, `>=`
// become `> d`, while = and <> are left alone. For integers the
// constant must fit the narrower type (else the rewrite declines). Each
// rewrite gives the same value for every x, NULL included (both sides
// are strict), with one exception: a date past 294276 AD, whose cast to
// timestamp fails with 22008, compares without the error. e is returned
// unchanged when it is not such a comparison.
func unwrapCastCompare(e expr.Expr) expr.Expr {
	c, ok := e.(*expr.Call)
	if !ok || len(c.Args) != 2 || mirrorOp[c.Fn.Name] == "" || c.Fn.Ret != repr.Bool {
		return e
	}
	op := c.Fn.Name
	cast, okCast := c.Args[0].(*expr.Cast)
	lit, okLit := c.Args[1].(*expr.Lit)
	if !okCast || !okLit {
		cast, okCast = c.Args[1].(*expr.Cast)
		lit, okLit = c.Args[0].(*expr.Lit)
		op = mirrorOp[op]
	}
	if !okCast || !okLit || lit.D.IsNull() || cast.To != lit.T || c.Fn.Args[0] != cast.To || c.Fn.Args[1] != cast.To {
		return e
	}
	from := cast.Arg.Type()
	var d repr.Datum
	switch {
	case from.Family == repr.FamDate && cast.To.Family == repr.FamTimestamp:
		d, op, ok = dateBound(lit.D, op)
	case isInt(from) && isInt(cast.To) && from.Width < cast.To.Width:
		d, ok = lit.D, fitsInt(lit.D.Int(), from.Width)
	default:
		ok = false
	}
	if !ok {
		return e
	}
	fn, _, err := expr.ResolveOp(op, []repr.T{from, from})
	if err != nil || fn.Ret != repr.Bool {
		return e
	}
	return &expr.Call{Fn: fn, Args: []expr.Expr{cast.Arg, &expr.Lit{D: d, T: from}}}
}

// mirrorOp maps each comparison to the one with its operands swapped.
var mirrorOp = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// dateBound returns the date d and operator such that `x op' d` equals
// `CAST(x AS timestamp) op t` for every date x (see unwrapCastCompare);
// ok is false for = and <> with a t that is not a midnight.
func dateBound(t repr.Datum, op string) (d repr.Datum, op2 string, ok bool) {
	d, err := repr.Cast(t, repr.Timestamp, repr.Date, nil, true)
	if err != nil {
		return repr.Null, "", false
	}
	back, err := repr.Cast(d, repr.Date, repr.Timestamp, nil, true)
	if err == nil && back.Micros() == t.Micros() {
		return d, op, true
	}
	// t lies strictly after midnight of d and before the next midnight.
	switch op {
	case "<", "<=":
		return d, "<=", true
	case ">", ">=":
		return d, ">", true
	}
	return repr.Null, "", false
}

// isInt reports whether t is int2, int4 or int8.
func isInt(t repr.T) bool { return t == repr.Int2 || t == repr.Int4 || t == repr.Int8 }

// fitsInt reports whether v fits an integer of width bits.
func fitsInt(v int64, width int32) bool {
	lim := int64(1) << (width - 1)
	return v >= -lim && v < lim
}
