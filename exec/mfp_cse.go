package exec

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
)

// shareSubexprs returns an MFP equivalent to spec (over nIn input columns)
// in which every subexpression that its Map expressions repeat is computed
// once, as a map column of its own, and read by the others: the FILTER
// predicates of several aggregates (count(*) FILTER (WHERE p),
// count(DISTINCT x) FILTER (WHERE p), ...) are planned as CASE WHEN p ...
// in one Map, and p then runs once per row instead of once per aggregate.
// The output columns are unchanged.
//
// Equivalence: a subexpression is hoisted only if its first occurrence (in
// evaluation order: map by map, and lazily evaluated parts in order) is
// evaluated whenever its map expression is, and it is placed just before
// that map expression, after the same filters; so it runs on exactly the
// rows where it ran before, and each later occurrence reads the value it
// would have computed (expressions are deterministic; volatile calls are
// never hoisted). Two subexpressions are the same when they print the same
// and have the same type (printed expressions parse back to themselves).
func shareSubexprs(spec dataflow.MFP, nIn int) dataflow.MFP {
	if len(spec.Map) < 2 {
		return spec
	}
	out := dataflow.MFP{
		Map:     append([]expr.Expr(nil), spec.Map...),
		Filter:  append([]expr.Expr(nil), spec.Filter...),
		Project: append([]int(nil), spec.Project...),
	}
	for {
		k, c := repeatedSubexpr(out.Map)
		if c == nil {
			return out
		}
		hoist(&out, nIn, k, c)
	}
}

// occurrence is one subexpression seen while walking the map expressions.
type occurrence struct {
	first  int // map index of the first occurrence
	count  int
	always bool // the first occurrence is evaluated whenever its map is
	expr   expr.Expr
	size   int
}

// repeatedSubexpr returns the largest subexpression that occurs at least
// twice in maps and may be hoisted before map k, or nil.
func repeatedSubexpr(maps []expr.Expr) (int, expr.Expr) {
	seen := map[string]*occurrence{}
	var order []string
	for m, e := range maps {
		visitSubexprs(e, true, func(x expr.Expr, always bool) {
			key := exprKey(x)
			o := seen[key]
			if o == nil {
				o = &occurrence{first: m, always: always, expr: x, size: len(key)}
				seen[key] = o
				order = append(order, key)
			}
			o.count++
		})
	}
	var best *occurrence
	for _, key := range order {
		o := seen[key]
		if o.count >= 2 && o.always && (best == nil || o.size > best.size) {
			best = o
		}
	}
	if best == nil {
		return 0, nil
	}
	return best.first, best.expr
}

// exprKey identifies an expression by its printed form and type.
func exprKey(e expr.Expr) string {
	return e.String() + " :: " + expr.TypeName(e.Type())
}

// visitSubexprs calls f on every non-leaf, non-volatile subexpression of e
// in evaluation order, with always reporting whether it is evaluated
// whenever e is (always is the caller's flag for e itself).
func visitSubexprs(e expr.Expr, always bool, f func(expr.Expr, bool)) {
	kids := expr.Children(e)
	if len(kids) == 0 {
		return // a column, literal or parameter: nothing to share
	}
	if !expr.IsVolatile(e) {
		f(e, always)
	}
	for i, k := range kids {
		visitSubexprs(k, always && evaluatedWith(e, i), f)
	}
}

// evaluatedWith reports whether e's i'th child (in Children's order) is
// evaluated whenever e is.
func evaluatedWith(e expr.Expr, i int) bool {
	switch x := e.(type) {
	case *expr.Call:
		return i == 0 || !x.Fn.Strict // a strict call stops at a NULL argument
	case *expr.And, *expr.Or, *expr.Coalesce:
		return i == 0 // later arguments run only if earlier ones do not decide
	case *expr.Case:
		return i == 0 // the first condition; the rest depend on it
	}
	return true // Cast, Not, IsNull
}

// hoist inserts c as a new map column before map k and makes every map
// expression read that column where it computed c.
func hoist(spec *dataflow.MFP, nIn, k int, c expr.Expr) {
	at := nIn + k
	shift := func(i int) int {
		if i >= at {
			return i + 1
		}
		return i
	}
	key := exprKey(c)
	col := &expr.Col{Idx: at, T: c.Type()}
	maps := make([]expr.Expr, 0, len(spec.Map)+1)
	maps = append(maps, spec.Map[:k]...)
	maps = append(maps, c)
	for _, e := range spec.Map[k:] {
		// c reads only columns before at, so its occurrences are unchanged
		// by the shift and still match.
		maps = append(maps, replaceExpr(expr.Remap(e, shift), key, col))
	}
	spec.Map = maps
	for i, f := range spec.Filter {
		spec.Filter[i] = expr.Remap(f, shift)
	}
	for i, p := range spec.Project {
		spec.Project[i] = shift(p)
	}
}

// replaceExpr returns e with every subexpression whose key is key replaced
// by with.
func replaceExpr(e expr.Expr, key string, with expr.Expr) expr.Expr {
	kids := expr.Children(e)
	if len(kids) == 0 {
		return e
	}
	if exprKey(e) == key {
		return with
	}
	out := make([]expr.Expr, len(kids))
	for i, k := range kids {
		out[i] = replaceExpr(k, key, with)
	}
	return expr.WithChildren(e, out)
}
