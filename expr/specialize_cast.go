package expr

import "github.com/eddydb/eddy/repr"

// specializeCast returns c with its argument specialized, or, when the
// cast cannot change a value (relabels), a relabel of the specialized
// argument.
func specializeCast(c *Cast) Expr {
	arg := Specialize(c.Arg)
	if relabels(c.Arg.Type(), c.To) {
		return &relabel{cast: c, arg: arg}
	}
	if arg == c.Arg {
		return c
	}
	return &Cast{Arg: arg, To: c.To, Explicit: c.Explicit}
}

// specializeArms returns a connective's arms specialized, ok false when
// none changed or when the connective evaluates them as a hashed member
// set (members: its arms must stay the calls it recognises).
func specializeArms(arms []Expr, op string) (out []Expr, ok bool) {
	if buildMembers(arms, op) != noMembers {
		return arms, false
	}
	for i, a := range arms {
		if s := Specialize(a); s != a {
			if !ok {
				out, ok = append([]Expr(nil), arms...), true
			}
			out[i] = s
		}
	}
	return out, ok
}

// relabels reports whether a cast from one string type to another keeps
// every value as it is, as PostgreSQL's binary-coercible casts do
// (RelabelType): the target has no length to pad or cut to, and the cast
// is not the one that drops char(n)'s trailing blanks (char to text or
// varchar). `l_shipmode IN ('MAIL', 'SHIP')` compares l_shipmode::bpchar,
// a char(10) relabelled to char, once per row and arm.
func relabels(from, to repr.T) bool {
	plain := func(t repr.T) bool {
		return t == repr.T{Family: repr.FamText, Kind: t.Kind, Length: t.Length} &&
			(t.Kind == repr.KindText || t.Kind == repr.KindVarchar || t.Kind == repr.KindChar)
	}
	if !plain(from) || !plain(to) || to.Length > 0 {
		return false
	}
	return from.Kind == to.Kind || from.Kind != repr.KindChar && to.Kind != repr.KindChar
}

// relabel is a Cast that relabels (see relabels): its argument's value
// as the cast's type.
type relabel struct {
	cast *Cast
	arg  Expr
}

// Type is the cast's type.
func (r *relabel) Type() repr.T { return r.cast.To }

// String prints the cast it replaces.
func (r *relabel) String() string { return r.cast.String() }

// Eval returns the argument's string as the cast's value, as the cast
// would (a new text datum of the same string); a value that is not a
// string (never, from a well-typed plan) takes the cast itself.
func (r *relabel) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := evalArg(ctx, r.arg, row)
	if err != nil || d.IsNull() {
		return repr.Null, err
	}
	if d.Family() != repr.FamText {
		return (&Cast{Arg: &Lit{D: d, T: r.cast.Arg.Type()}, To: r.cast.To, Explicit: r.cast.Explicit}).Eval(ctx, nil)
	}
	return repr.NewText(d.Text()), nil
}
