package rules

import (
	"slices"

	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/sql/types"
)

// simplify applies scalar.Fold and then the identities of three-valued
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
//     equi-join key instead of a residual evaluated on every pair.
//
// Each identity holds for every row, NULLs included.
func simplify(e scalar.Expr) scalar.Expr {
	kids := scalar.Children(e)
	if len(kids) > 0 {
		out := make([]scalar.Expr, len(kids))
		for i, k := range kids {
			out[i] = simplify(k)
		}
		e = scalar.WithChildren(e, out)
	}
	switch x := e.(type) {
	case *scalar.And:
		e = simplifyConnective(x.Args, false)
	case *scalar.Or:
		e = simplifyConnective(x.Args, true)
	case *scalar.Case:
		e = simplifyCase(x)
	case *scalar.Coalesce:
		e = simplifyCoalesce(x)
	}
	return scalar.Fold(e)
}

// simplifyConnective rebuilds an AND (or=false) or OR (or=true) of args.
func simplifyConnective(args []scalar.Expr, or bool) scalar.Expr {
	var keep []scalar.Expr
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
	return &scalar.And{Args: keep}
}

// factorOr returns the OR of args (at least two) with the conjuncts every
// argument shares factored out: common AND (OR of the rests), or just
// common when some argument has nothing else. Volatile expressions are
// left alone (factoring changes how often they are evaluated).
func factorOr(args []scalar.Expr) scalar.Expr {
	or := &scalar.Or{Args: args}
	if scalar.IsVolatile(or) {
		return or
	}
	lists := make([][]scalar.Expr, len(args))
	for i, a := range args {
		lists[i] = conjuncts([]scalar.Expr{a})
	}
	var common []scalar.Expr
	for _, c := range lists[0] {
		if !slices.ContainsFunc(common, func(x scalar.Expr) bool { return sameConjunct(x, c) }) && inAll(c, lists[1:]) {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return or
	}
	var rests []scalar.Expr
	for _, l := range lists {
		rest := slices.DeleteFunc(slices.Clone(l), func(x scalar.Expr) bool {
			return slices.ContainsFunc(common, func(c scalar.Expr) bool { return sameConjunct(c, x) })
		})
		if len(rest) == 0 {
			return andOf(common) // absorption: common OR (common AND x) is common
		}
		rests = append(rests, andOf(rest))
	}
	return andOf(append(common, &scalar.Or{Args: rests}))
}

// inAll reports whether every list has a conjunct printing like c.
func inAll(c scalar.Expr, lists [][]scalar.Expr) bool {
	for _, l := range lists {
		if !slices.ContainsFunc(l, func(x scalar.Expr) bool { return sameConjunct(x, c) }) {
			return false
		}
	}
	return true
}

// sameConjunct reports whether a and b print alike, or are the same
// equality with its sides swapped.
func sameConjunct(a, b scalar.Expr) bool {
	if a.String() == b.String() {
		return true
	}
	x, ok1 := a.(*scalar.Call)
	y, ok2 := b.(*scalar.Call)
	return ok1 && ok2 && x.Fn.Name == "=" && y.Fn.Name == "=" && len(x.Args) == 2 && len(y.Args) == 2 &&
		x.Args[0].String() == y.Args[1].String() && x.Args[1].String() == y.Args[0].String()
}

// andOf returns the AND of es (the one expression when alone).
func andOf(es []scalar.Expr) scalar.Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &scalar.And{Args: es}
}

// simplifyCase removes dead arms of c.
func simplifyCase(c *scalar.Case) scalar.Expr {
	out := &scalar.Case{Else: c.Else, T: c.T}
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
		return &scalar.Lit{D: types.Null, T: c.T}
	}
	return c.Else
}

// simplifyCoalesce removes NULL literals from c and the arguments after its
// first non-NULL literal.
func simplifyCoalesce(c *scalar.Coalesce) scalar.Expr {
	var keep []scalar.Expr
	for _, a := range c.Args {
		if l, ok := a.(*scalar.Lit); ok {
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
		return &scalar.Lit{D: types.Null, T: c.T}
	case 1:
		return keep[0]
	}
	return &scalar.Coalesce{Args: keep, T: c.T}
}

// isBoolLit reports whether e is the non-NULL boolean literal v.
func isBoolLit(e scalar.Expr, v bool) bool {
	l, ok := e.(*scalar.Lit)
	return ok && !l.D.IsNull() && l.D.Family() == types.FamBool && l.D.Bool() == v
}

func boolLit(v bool) scalar.Expr { return &scalar.Lit{D: types.NewBool(v), T: types.Bool} }
