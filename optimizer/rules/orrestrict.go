package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// DeriveOrRestrictions adds, for a disjunction over several inputs of an
// inner join tree, the restriction it implies for each input alone, as
// PostgreSQL's extract_restriction_or_clauses does:
//
//	(Filter (Join inner $a $b) [(Or (And $a1 $b1) (And $a2 $b2))])
//	  => (Filter (Join inner $a $b) [(Or ...) (Or $a1 $a2) (Or $b1 $b2)])
//
// where $a1, $a2 reference only $a's columns (every arm must have such a
// conjunct, else the input gets nothing). When the disjunction is TRUE
// some arm is, and so are its conjuncts over $a: the derived predicate
// is implied, so adding it changes no result; the disjunction stays.
// Pushdown then moves it into $a, which is filtered before the join
// (TPC-H Q07's `(n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 = 'GERMANY' AND
// n2 = 'FRANCE')` gives each nation `n_name = 'FRANCE' OR n_name =
// 'GERMANY'`, so a delta join path stops 23 of 25 lineitems at their
// supplier's nation instead of after every lookup). Inputs are the
// leaves of the tree of inner and cross joins under a Filter, or of an
// inner Join's own tree for its ON. Declines volatile disjunctions (each
// copy would evaluate apart). A Pass, run once before Pushdown: as a
// rule it would fire again each time Pushdown moved the derived
// predicate away. Safe under retractions: a filter is linear.
var DeriveOrRestrictions = Pass{Name: "DeriveOrRestrictions", Apply: func(r ir.Rel) ir.Rel {
	return orDeriver{}.visit(r)
}}

// orDeriver maps each node DeriveOrRestrictions has visited to its
// result, so that a subtree shared by reference is rebuilt once (see
// reorderer).
type orDeriver map[ir.Rel]ir.Rel

func (d orDeriver) visit(r ir.Rel) ir.Rel {
	if out, ok := d[r]; ok {
		return out
	}
	out := ir.MapChildren(r, d.visit)
	switch n := out.(type) {
	case *ir.Filter:
		if extra := orRestrictions(n.Preds, joinLeaves(n.Input, 0)); len(extra) > 0 {
			c := *n
			c.Preds = append(slices.Clone(n.Preds), extra...)
			out = &c
		}
	case *ir.Join:
		if n.Kind == ir.JoinInner {
			if extra := orRestrictions(n.On, joinLeaves(n, 0)); len(extra) > 0 {
				c := *n
				c.On = append(slices.Clone(n.On), extra...)
				out = &c
			}
		}
	}
	d[r] = out
	return out
}

// joinLeaves returns the column ranges [lo, hi) of the inputs of the tree
// of inner and cross joins rel is the root of (rel's own range when it is
// no such join), its first column at off.
func joinLeaves(rel ir.Rel, off int) [][2]int {
	if j, ok := rel.(*ir.Join); ok && (j.Kind == ir.JoinInner || j.Kind == ir.JoinCross) {
		nl := ir.Arity(j.Left)
		return append(joinLeaves(j.Left, off), joinLeaves(j.Right, off+nl)...)
	}
	return [][2]int{{off, off + ir.Arity(rel)}}
}

// orRestrictions returns the restrictions the disjunctions among preds
// imply for each leaf, leaving out any already among preds and any that
// is the disjunction itself (all of it over one leaf: Pushdown moves it).
func orRestrictions(preds []expr.Expr, leaves [][2]int) []expr.Expr {
	if len(leaves) < 2 {
		return nil
	}
	var out []expr.Expr
	have := map[string]bool{}
	for _, p := range preds {
		have[p.String()] = true
	}
	for _, p := range preds {
		or, ok := p.(*expr.Or)
		if !ok || expr.IsVolatile(p) {
			continue
		}
		for _, leaf := range leaves {
			r := orRestriction(or, leaf[0], leaf[1])
			if r == nil || have[r.String()] {
				continue
			}
			have[r.String()] = true
			out = append(out, r)
		}
	}
	return out
}

// orRestriction returns the OR over or's arms of each arm's conjuncts
// over only columns in [lo, hi), nil when an arm has none or when every
// conjunct of every arm is (the result would be or itself).
func orRestriction(or *expr.Or, lo, hi int) expr.Expr {
	arms := make([]expr.Expr, len(or.Args))
	all := true
	for i, arm := range or.Args {
		cs := conjuncts([]expr.Expr{arm})
		var kept []expr.Expr
		for _, c := range cs {
			if colsWithin(c, lo, hi) {
				kept = append(kept, c)
			}
		}
		switch {
		case len(kept) == 0:
			return nil
		case len(kept) == 1:
			arms[i] = kept[0]
		default:
			arms[i] = &expr.And{Args: kept}
		}
		all = all && len(kept) == len(cs)
	}
	if all {
		return nil
	}
	return &expr.Or{Args: arms}
}
