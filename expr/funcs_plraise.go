package expr

import "github.com/eddydb/eddy/repr"

// eddy_plpgsql_raise(sqlstate, message, detail, hint) fails with that
// error; it never returns a value. The planner writes it where it
// translates a PL/pgSQL function into one expression (a call in a
// materialized view, planner/plinline.go): RAISE EXCEPTION, and the end
// of a function that reached no RETURN (2F005). It is not volatile, so a
// call of it over literals is folded, and as Fold leaves a failing
// subtree in place, the error surfaces only when the row reaches it (as
// a CASE-guarded division by zero). A NULL detail or hint is none.
func init() {
	f := fn("eddy_plpgsql_raise", repr.Text, plRaise, repr.Text, repr.Text, repr.Text, repr.Text)
	f.Strict = false
}

// plRaise is eddy_plpgsql_raise's implementation.
func plRaise(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	e := &repr.Error{Code: "P0001"}
	if !a[0].IsNull() && len(a[0].Text()) == 5 {
		e.Code = a[0].Text()
	}
	if !a[1].IsNull() {
		e.Message = a[1].Text()
	}
	if !a[2].IsNull() {
		e.Detail = a[2].Text()
	}
	if !a[3].IsNull() {
		e.Hint = a[3].Text()
	}
	return repr.Null, e
}
