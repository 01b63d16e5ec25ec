package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// simplify applies expr.Fold and then the identities of three-valued
// logic and lazy evaluation that Fold cannot see because a subtree is not
// constant, bottom-up, folding again whatever they expose:
//
//   - AND drops TRUE arguments and is FALSE if one argument is FALSE;
//     OR drops FALSE arguments and is TRUE if one is TRUE (an argument that
//     could have failed before the deciding literal is not evaluated,
//     which PostgreSQL does not promise to do either);
//   - CASE drops arms whose condition is FALSE or NULL, and is the result
//     of its first arm if that arm's condition is TRUE;
//   - COALESCE drops NULL literal arguments and stops at a non-NULL one;
//   - an OR whose arguments share conjuncts factors them out:
//     (a AND b) OR (a AND c) is a AND (b OR c), and (a) OR (a AND b) is a
//     (distributivity and absorption hold in three-valued logic), so a
//     join condition written per disjunct (TPC-H Q19) becomes an
//     equi-join key instead of a residual evaluated on every pair;
//   - a comparison of a widened term with a constant compares in the
//     term's own type (unwrapCastCompare), without a cast per row.
//
// Each identity holds for every row, NULLs included.
func simplify(e expr.Expr) expr.Expr {
	kids := expr.Children(e)
	if len(kids) > 0 {
		out := make([]expr.Expr, len(kids))
		for i, k := range kids {
			out[i] = simplify(k)
		}
		e = expr.WithChildren(e, out)
	}
	switch x := e.(type) {
	case *expr.And:
		e = simplifyConnective(x.Args, false)
	case *expr.Or:
		e = simplifyConnective(x.Args, true)
	case *expr.Case:
		e = simplifyCase(x)
	case *expr.Coalesce:
		e = simplifyCoalesce(x)
	case *expr.Call:
		e = unwrapCastCompare(x)
	}
	return expr.Fold(e)
}

// simplifyConnective rebuilds an AND (or=false) or OR (or=true) of args.
func simplifyConnective(args []expr.Expr, or bool) expr.Expr {
	var keep []expr.Expr
	for _, a := range args {
		switch {
		case isBoolLit(a, or):
			return a
		case isBoolLit(a, !or):
		default:
			keep = append(keep, a)
		}
	}
	switch {
	case len(keep) == 0:
		return boolLit(!or)
	case len(keep) == 1:
		return keep[0]
	case or:
		return factorOr(keep)
	}
	return &expr.And{Args: keep}
}

// factorOr returns the OR of args (at least two) with the conjuncts every
// argument shares factored out: common AND (OR of the rests), or just
// common when some argument has nothing else. Volatile expressions are
// left alone (factoring changes how often they are evaluated).
func factorOr(args []expr.Expr) expr.Expr {
	or := &expr.Or{Args: args}
	if expr.IsVolatile(or) {
		return or
	}
	lists := make([][]expr.Expr, len(args))
	for i, a := range args {
		lists[i] = conjuncts([]expr.Expr{a})
	}
	var common []expr.Expr
	for _, c := range lists[0] {
		if !slices.ContainsFunc(common, func(x expr.Expr) bool { return sameConjunct(x, c) }) && inAll(c, lists[1:]) {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return or
	}
	var rests []expr.Expr
	for _, l := range lists {
		rest := slices.DeleteFunc(slices.Clone(l), func(x expr.Expr) bool {
			return slices.ContainsFunc(common, func(c expr.Expr) bool { return sameConjunct(c, x) })
		})
		if len(rest) == 0 {
			return andOf(common) // absorption: common OR (common AND x) is common
		}
		rests = append(rests, andOf(rest))
	}
	return andOf(append(common, &expr.Or{Args: rests}))
}

// inAll reports whether every list has a conjunct printing like c.
func inAll(c expr.Expr, lists [][]expr.Expr) bool {
	for _, l := range lists {
		if !slices.ContainsFunc(l, func(x expr.Expr) bool { return sameConjunct(x, c) }) {
			return false
		}
	}
	return true
}

// sameConjunct reports whether a and b print alike, or are the same
// equality with its sides swapped.
func sameConjunct(a, b expr.Expr) bool {
	if a.String() == b.String() {
		return true
	}
	x, ok1 := a.(*expr.Call)
	y, ok2 := b.(*expr.Call)
	return ok1 && ok2 && x.Fn.Name == "=" && y.Fn.Name == "=" && len(x.Args) == 2 && len(y.Args) == 2 &&
		x.Args[0].String() == y.Args[1].String() && x.Args[1].String() == y.Args[0].String()
}

// andOf returns the AND of es (the one expression when alone).
func andOf(es []expr.Expr) expr.Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &expr.And{Args: es}
}

// simplifyCase removes dead arms of c.
func simplifyCase(c *expr.Case) expr.Expr {
	out := &expr.Case{Else: c.Else, T: c.T}
	for _, w := range c.Whens {
		if isFalseOrNull(w.Cond) {
			continue
		}
		if isTrue(w.Cond) && len(out.Whens) == 0 {
			return w.Then
		}
		out.Whens = append(out.Whens, w)
	}
	if len(out.Whens) > 0 {
		return out
	}
	if c.Else == nil {
		return &expr.Lit{D: repr.Null, T: c.T}
	}
	return c.Else
}

// simplifyCoalesce removes NULL literals from c and the arguments after its
// first non-NULL literal.
func simplifyCoalesce(c *expr.Coalesce) expr.Expr {
	var keep []expr.Expr
	for _, a := range c.Args {
		if l, ok := a.(*expr.Lit); ok {
			if l.D.IsNull() {
				continue
			}
			keep = append(keep, a)
			break
		}
		keep = append(keep, a)
	}
	switch len(keep) {
	case 0:
		return &expr.Lit{D: repr.Null, T: c.T}
	case 1:
		return keep[0]
	}
	return &expr.Coalesce{Args: keep, T: c.T}
}

// isBoolLit reports whether e is the non-NULL boolean literal v.
func isBoolLit(e expr.Expr, v bool) bool {
	l, ok := e.(*expr.Lit)
	return ok && !l.D.IsNull() && l.D.Family() == repr.FamBool && l.D.Bool() == v
}

func boolLit(v bool) expr.Expr { return &expr.Lit{D: repr.NewBool(v), T: repr.Bool} }
