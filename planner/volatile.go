package planner

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// A volatile expression (random(), nextval()) is evaluated exactly as
// often as PostgreSQL evaluates it: once per row of the relation that
// computes it, however many places read its column. The planner never
// substitutes a volatile expression into several places (a volatile SQL
// function argument, a volatile extra value of a subquery, becomes one
// column: sqlfunc_bind.go, subquery.go), and the optimizer's rules never
// copy one (rules/map.go, rules/project.go decline). What remains is a
// relation read twice: decorrelation reads the outer relation once for a
// subquery's domain and once to join the results back (subquery.go), and
// both reads must see the same drawn values, or the join back matches a
// row to another draw's result (or to none). When that relation calls a
// volatile function it is wrapped in one ir.Shared, which every read
// references and the dataflow evaluates once.

// relDomain returns the distinct values of c.rel's columns keys, read
// from c.rel itself (shared when volatile).
func (c *ectx) relDomain(keys []int) ir.Rel {
	c.shareRel()
	return ir.NewDistinct(ir.NewProject(c.guardedDomain(c.rel), keys...))
}

// shareRel wraps c.rel in an ir.Shared when it calls a volatile function
// (and is not one already), keeping its domain base.
func (c *ectx) shareRel() {
	if _, ok := c.rel.(*ir.Shared); ok || !ir.Volatile(c.rel) {
		return
	}
	old, base := c.rel, c.domainBase()
	c.rel = c.b.newShared(old)
	if base == old {
		base = c.rel
	}
	c.b.domainBases[c.rel] = base
}

// shareBase returns base, the domain base of c.rel, wrapped in an
// ir.Shared when it calls a volatile function, and makes c.rel read that
// Shared wherever it read base, so that the domain and the join back read
// one evaluation.
func (c *ectx) shareBase(base ir.Rel) ir.Rel {
	if _, ok := base.(*ir.Shared); ok || !ir.Volatile(base) {
		return base
	}
	s := c.b.newShared(base)
	if c.rel == base {
		c.rel = s
	} else {
		c.rel = replaceNode(c.rel, base, s, map[ir.Rel]ir.Rel{})
	}
	c.b.domainBases[c.rel] = s
	return s
}

// newShared wraps rel in an ir.Shared with a fresh identity.
func (b *builder) newShared(rel ir.Rel) ir.Rel {
	b.sharedSeq++
	return ir.NewShared(b.sharedSeq, rel)
}

// replaceNode returns root with every reference to the node old replaced
// by new (memo keeps shared subtrees shared).
func replaceNode(root, old, new ir.Rel, memo map[ir.Rel]ir.Rel) ir.Rel {
	if root == old {
		return new
	}
	if r, ok := memo[root]; ok {
		return r
	}
	r := ir.MapChildren(root, func(k ir.Rel) ir.Rel { return replaceNode(k, old, new, memo) })
	memo[root] = r
	return r
}

// relDrawsPerRow reports whether rel (a subquery's plan) evaluates a
// volatile function whose value may differ per call (drawsPerRow).
func relDrawsPerRow(rel ir.Rel) bool {
	seen := map[ir.Rel]bool{}
	var walk func(ir.Rel) bool
	walk = func(r ir.Rel) bool {
		if seen[r] {
			return false
		}
		seen[r] = true
		return slices.ContainsFunc(ir.OwnExprs(r), drawsPerRow) || slices.ContainsFunc(r.Children(), walk)
	}
	return walk(rel)
}

// rowToken is a value drawn per row (gen_random_uuid()): a correlated
// subquery that draws volatile values is keyed by it besides its outer
// values, so that it runs once per outer row as in PostgreSQL, not once
// per distinct outer value (two equal outer rows would read one draw).
// The outer relation is then volatile and read through an ir.Shared
// (relDomain), so the domain and the join back see the same tokens.
func rowToken() expr.Expr {
	f, _, err := expr.ResolveFunc("gen_random_uuid", nil)
	if err != nil {
		panic(err) // a built-in function
	}
	return &expr.Call{Fn: f}
}
