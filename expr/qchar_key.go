package expr

import "github.com/eddydb/eddy/repr"

// QCharKey returns what a sort by e reads instead of e when e is a "char"
// value: PostgreSQL orders "char" by its byte as an unsigned number, but
// a "char" datum holds its output text (a high byte as `\ooo`, which
// Compare would put between '[' and ']'), so the sort reads
// eddy_qchar_key(e), the byte as an int4. Any other e is returned as is.
// Equality needs no key: each byte has one text.
func QCharKey(e Expr) Expr {
	if t := e.Type(); t.Family != repr.FamText || t.Kind != repr.KindQChar {
		return e
	}
	return &Call{Fn: qcharKeyFunc, Args: []Expr{e}}
}

// NeedsQCharKey reports whether a sort by a value of type t must sort by
// QCharKey.
func NeedsQCharKey(t repr.T) bool { return t.Family == repr.FamText && t.Kind == repr.KindQChar }

const qcharKeyName = "eddy_qchar_key"

var qcharKeyFunc = fn(qcharKeyName, repr.Int4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	return repr.NewInt(int64(repr.QCharByte(a[0].Text()))), nil
}, repr.QChar)

func init() { internalFuncs[qcharKeyName] = true }
