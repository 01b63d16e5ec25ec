package rules

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/sql/types"
)

// isTrue reports whether e is the literal TRUE.
func isTrue(e scalar.Expr) bool {
	l, ok := e.(*scalar.Lit)
	return ok && !l.D.IsNull() && l.D.Family() == types.FamBool && l.D.Bool()
}

// isFalseOrNull reports whether e is the literal FALSE or a NULL literal:
// a predicate that keeps no row.
func isFalseOrNull(e scalar.Expr) bool {
	l, ok := e.(*scalar.Lit)
	return ok && (l.D.IsNull() || (l.D.Family() == types.FamBool && !l.D.Bool()))
}

// conjuncts flattens nested ANDs of es into one list, in evaluation order.
// The list means "every element is true", as a Filter's or a Join's
// predicates do, so flattening preserves three-valued semantics.
func conjuncts(es []scalar.Expr) []scalar.Expr {
	var out []scalar.Expr
	for _, e := range es {
		if a, ok := e.(*scalar.And); ok {
			out = append(out, conjuncts(a.Args)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

// hasAnd reports whether some element of es is an AND.
func hasAnd(es []scalar.Expr) bool {
	return slices.ContainsFunc(es, func(e scalar.Expr) bool {
		_, ok := e.(*scalar.And)
		return ok
	})
}

// colsWithin reports whether e references at least one column and only
// columns in [lo, hi).
func colsWithin(e scalar.Expr, lo, hi int) bool {
	cols := scalar.Columns(e)
	return len(cols) > 0 && cols[0] >= lo && cols[len(cols)-1] < hi
}

// colsBelow reports whether e references only columns below n (or none).
func colsBelow(e scalar.Expr, n int) bool {
	cols := scalar.Columns(e)
	return len(cols) == 0 || cols[len(cols)-1] < n
}

// shift returns e with every column index moved by k.
func shift(e scalar.Expr, k int) scalar.Expr {
	if k == 0 {
		return e
	}
	return scalar.Remap(e, func(c int) int { return c + k })
}

// remapAll applies m to the columns of every expression of es.
func remapAll(es []scalar.Expr, m func(int) int) []scalar.Expr {
	out := make([]scalar.Expr, len(es))
	for i, e := range es {
		out[i] = scalar.Remap(e, m)
	}
	return out
}

// foldAll constant-folds and simplifies each expression (see simplify)
// and reports whether anything changed. scalar.Fold never folds volatile
// or time-zone-dependent calls, and leaves a subtree that fails to evaluate
// alone so its error surfaces at run time (and only if reached).
func foldAll(es []scalar.Expr) ([]scalar.Expr, bool) {
	out := make([]scalar.Expr, len(es))
	changed := false
	for i, e := range es {
		out[i] = simplify(e)
		changed = changed || shrunk(e, out[i])
	}
	return out, changed
}

// shrunk reports whether after (simplify of before) differs from before.
// simplify only replaces subtrees by literals or by parts of themselves,
// or a call's overload by its bound specialization (scalar.Fold), so a
// change always shows as a literal where there was none, a different node
// kind, a different number of children, or a different Fn.
func shrunk(before, after scalar.Expr) bool {
	if fmt.Sprintf("%T", before) != fmt.Sprintf("%T", after) {
		return true
	}
	if bc, ok := before.(*scalar.Call); ok && bc.Fn != after.(*scalar.Call).Fn {
		return true // Fold bound the call to a specialized overload (once: a bound one does not rebind)
	}
	bk, ak := scalar.Children(before), scalar.Children(after)
	if len(bk) != len(ak) {
		return true
	}
	for i := range bk {
		if shrunk(bk[i], ak[i]) {
			return true
		}
	}
	return false
}

// empty returns the empty relation with the column types of r.
func empty(r ir.Rel) *ir.Values {
	return &ir.Values{Types: slices.Clone(r.ColTypes())}
}

// isEmpty reports whether r is a Values with no rows.
func isEmpty(r ir.Rel) bool {
	v, ok := r.(*ir.Values)
	return ok && len(v.Rows) == 0
}
