package rules

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// isTrue reports whether e is the literal TRUE.
func isTrue(e expr.Expr) bool {
	l, ok := e.(*expr.Lit)
	return ok && !l.D.IsNull() && l.D.Family() == repr.FamBool && l.D.Bool()
}

// isFalseOrNull reports whether e is the literal FALSE or a NULL literal:
// a predicate that keeps no row.
func isFalseOrNull(e expr.Expr) bool {
	l, ok := e.(*expr.Lit)
	return ok && (l.D.IsNull() || (l.D.Family() == repr.FamBool && !l.D.Bool()))
}

// conjuncts flattens nested ANDs of es into one list, in evaluation order.
// The list means "every element is true", as a Filter's or a Join's
// predicates do, so flattening preserves three-valued semantics.
func conjuncts(es []expr.Expr) []expr.Expr {
	var out []expr.Expr
	for _, e := range es {
		if a, ok := e.(*expr.And); ok {
			out = append(out, conjuncts(a.Args)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

// hasAnd reports whether some element of es is an AND.
func hasAnd(es []expr.Expr) bool {
	return slices.ContainsFunc(es, func(e expr.Expr) bool {
		_, ok := e.(*expr.And)
		return ok
	})
}

// colsWithin reports whether e references at least one column and only
// columns in [lo, hi).
func colsWithin(e expr.Expr, lo, hi int) bool {
	cols := expr.Columns(e)
	return len(cols) > 0 && cols[0] >= lo && cols[len(cols)-1] < hi
}

// colsBelow reports whether e references only columns below n (or none).
func colsBelow(e expr.Expr, n int) bool {
	cols := expr.Columns(e)
	return len(cols) == 0 || cols[len(cols)-1] < n
}

// shift returns e with every column index moved by k.
func shift(e expr.Expr, k int) expr.Expr {
	if k == 0 {
		return e
	}
	return expr.Remap(e, func(c int) int { return c + k })
}

// remapAll applies m to the columns of every expression of es.
func remapAll(es []expr.Expr, m func(int) int) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = expr.Remap(e, m)
	}
	return out
}

// foldAll constant-folds and simplifies each expression (see simplify)
// and reports whether anything changed. expr.Fold never folds volatile
// or time-zone-dependent calls, and leaves a subtree that fails to evaluate
// alone so its error surfaces at run time (and only if reached).
func foldAll(es []expr.Expr) ([]expr.Expr, bool) {
	out := make([]expr.Expr, len(es))
	changed := false
	for i, e := range es {
		out[i] = simplify(e)
		changed = changed || shrunk(e, out[i])
	}
	return out, changed
}

// shrunk reports whether after (simplify of before) differs from before.
// simplify only replaces subtrees by literals or by parts of themselves,
// or a call's overload by its bound specialization (expr.Fold), so a
// change always shows as a literal where there was none, a different node
// kind, a different number of children, or a different Fn.
func shrunk(before, after expr.Expr) bool {
	if fmt.Sprintf("%T", before) != fmt.Sprintf("%T", after) {
		return true
	}
	if bc, ok := before.(*expr.Call); ok && bc.Fn != after.(*expr.Call).Fn {
		return true // Fold bound the call to a specialized overload (once: a bound one does not rebind)
	}
	bk, ak := expr.Children(before), expr.Children(after)
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
