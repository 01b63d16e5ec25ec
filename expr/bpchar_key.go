package expr

import "github.com/eddydb/eddy/repr"

// BpcharKey returns what an operator keyed by e (grouping, DISTINCT, a
// join or set operation, a partition) reads instead of e, so that values
// equal under = share one key although bpchar values keep the trailing
// blanks they were written with (repr.TrimBpchar): a bpchar's text cast,
// eddy_bpchar_key(e) for an array of bpchar, a record or an array of
// records (which may hold bpchar fields), else e itself.
func BpcharKey(e Expr) Expr {
	t := e.Type()
	switch {
	case t.Family == repr.FamText && t.Kind == repr.KindChar:
		return &Cast{Arg: e, To: repr.Text}
	case repr.HoldsBpchar(t):
		return &Call{Fn: bpcharKeyFunc(t), Args: []Expr{e}}
	}
	return e
}

// IsBpcharKey reports whether e is a BpcharKey call (which needs no key of
// its own: its value is its own key).
func IsBpcharKey(e Expr) bool {
	c, ok := e.(*Call)
	return ok && c.Fn.Name == bpcharKeyName
}

// NeedsBpcharKey reports whether an operator keyed by a value of type t
// must key it by BpcharKey: t is bpchar without a length, whose values
// keep the blanks they were written with (char(n) values are all padded
// to n, so their keys agree with =), or an array or record that may hold
// bpchar values (repr.HoldsBpchar), whose = (array_eq, record_eq)
// ignores their blanks too.
func NeedsBpcharKey(t repr.T) bool {
	if t.Family == repr.FamText {
		return t.Kind == repr.KindChar && t.Length <= 0
	}
	return repr.HoldsBpchar(t)
}

// bpcharKeyName is the internal function of BpcharKey, registered so that
// plans print and parse it like any call.
const bpcharKeyName = "eddy_bpchar_key"

func init() {
	internalFuncs[bpcharKeyName] = true
	polyFunc(functions, bpcharKeyName, 1, func(args []repr.T) *Func {
		if !repr.HoldsBpchar(args[0]) || args[0].Family == repr.FamText {
			return nil
		}
		return bpcharKeyFunc(args[0])
	})
}

// bpcharKeyFunc is eddy_bpchar_key over values of type t.
func bpcharKeyFunc(t repr.T) *Func {
	return newFunc(bpcharKeyName, t, true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.TrimBpchar(a[0], t), nil
	}, t)
}

// compareTrimmed is Compare of two values of type t as their type's
// comparison operators compare them: bpchar values in them without their
// trailing blanks (record_cmp and array_cmp over bpchar).
func compareTrimmed(t repr.T) func(a, b repr.Datum) int {
	if !repr.HoldsBpchar(t) {
		return repr.Compare
	}
	return func(a, b repr.Datum) int {
		return repr.Compare(repr.TrimBpchar(a, t), repr.TrimBpchar(b, t))
	}
}
