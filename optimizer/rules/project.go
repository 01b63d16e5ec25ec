package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// MergeProjects composes nested projections:
//
//	(Project (Project $in $a) $b) => (Project $in [$a[$b[0]] $a[$b[1]] ...])
//
// One projection instead of two (or none, when the composition is the
// identity). Always safe. Safe under retractions: Project is linear.
var MergeProjects = Rule{Name: "MergeProjects", Root: (*ir.Project)(nil), Apply: func(e ir.Rel) ir.Rel {
	outer, ok := e.(*ir.Project)
	if !ok {
		return nil
	}
	inner, ok := outer.Input.(*ir.Project)
	if !ok {
		return nil
	}
	cols := make([]int, len(outer.Cols))
	for i, c := range outer.Cols {
		cols[i] = inner.Cols[c]
	}
	return ir.NewProject(inner.Input, cols...)
}}

// RemoveIdentityProject drops a projection that keeps every input column
// in order:
//
//	(Project $in [#0 #1 ... #n-1]) => $in
//
// Always safe. Safe under retractions: the identity.
var RemoveIdentityProject = Rule{Name: "RemoveIdentityProject", Root: (*ir.Project)(nil), Apply: func(e ir.Rel) ir.Rel {
	p, ok := e.(*ir.Project)
	if !ok || !ir.IsIdentity(p.Cols, ir.Arity(p.Input)) {
		return nil
	}
	return p.Input
}}

// FuseProjectIntoMap simplifies a projection over a map: a projected
// mapped column that is a bare column reference is read from the
// referenced column instead, and map expressions that neither the
// projection nor a later map expression reads are dropped (the map itself
// when none is left):
//
//	(Project (Map $in [#0 (#1 + 1)]) [#0 #n]) => (Project $in [#0 #0])
//
// The dropped expressions are never computed. Safe: expressions have no
// side effects, so not computing an unread one can only remove a run-time
// error (as PostgreSQL does for unread subquery outputs). Safe under
// retractions: both operators are linear.
var FuseProjectIntoMap = Rule{Name: "FuseProjectIntoMap", Root: (*ir.Project)(nil), Apply: func(e ir.Rel) ir.Rel {
	p, ok := e.(*ir.Project)
	if !ok {
		return nil
	}
	m, ok := p.Input.(*ir.Map)
	if !ok {
		return nil
	}
	n := ir.Arity(m.Input)
	cols := make([]int, len(p.Cols))
	for i, c := range p.Cols {
		cols[i] = resolveMapCol(m, n, c)
	}
	in, cm, pruned := pruneMap(m, cols)
	if !pruned && slices.Equal(cols, p.Cols) {
		return nil
	}
	for i, c := range cols {
		cols[i] = cm(c)
	}
	return ir.NewProject(in, cols...)
}}

// volatileExprs marks the expressions of es that call a volatile function.
func volatileExprs(es []expr.Expr) []bool {
	out := make([]bool, len(es))
	for i, e := range es {
		out[i] = expr.IsVolatile(e)
	}
	return out
}

// resolveMapCol follows column c of m's output through mapped expressions
// that are bare column references (n is m's input arity). It terminates
// because a mapped expression only reads columns before its own.
func resolveMapCol(m *ir.Map, n, c int) int {
	for c >= n {
		col, ok := m.Exprs[c-n].(*expr.Col)
		if !ok {
			break
		}
		c = col.Idx
	}
	return c
}

// pruneMap drops the expressions of m that no column of used (indices into
// m's output) needs, directly or through a later expression, and that are
// not volatile (PostgreSQL computes an unread volatile output of a
// subquery for its side effects: remove_unused_subquery_outputs). It returns the
// pruned map (m's input when nothing is left), the renumbering of m's
// output columns to it, and whether anything was dropped.
func pruneMap(m *ir.Map, used []int) (ir.Rel, func(int) int, bool) {
	n := ir.Arity(m.Input)
	need := volatileExprs(m.Exprs)
	for _, c := range used {
		if c >= n {
			need[c-n] = true
		}
	}
	for i := len(m.Exprs) - 1; i >= 0; i-- {
		if !need[i] {
			continue
		}
		for _, c := range expr.Columns(m.Exprs[i]) {
			if c >= n {
				need[c-n] = true
			}
		}
	}
	newIdx := make([]int, len(m.Exprs))
	kept := 0
	for i, ok := range need {
		newIdx[i] = n + kept
		if ok {
			kept++
		}
	}
	cm := func(c int) int {
		if c < n {
			return c
		}
		return newIdx[c-n]
	}
	if kept == len(m.Exprs) {
		return m, cm, false
	}
	var exprs []expr.Expr
	for i, e := range m.Exprs {
		if need[i] {
			exprs = append(exprs, expr.Remap(e, cm))
		}
	}
	return ir.NewMap(m.Input, exprs...), cm, true
}

// PruneMapBelowFilter drops the map expressions that neither a projection
// nor the filter between them reads:
//
//	(Project (Filter (Map $in [$a $b]) $p) $cols) => (Project (Filter (Map $in [$a]) $p') $cols')
//
// The shape `SELECT exprs ... WHERE` takes after pushdown when some mapped
// columns (hidden sort keys, dropped aliases) are not selected. Safe for
// the reasons FuseProjectIntoMap is. Safe under retractions: all three
// operators are linear.
var PruneMapBelowFilter = Rule{Name: "PruneMapBelowFilter", Root: (*ir.Project)(nil), Apply: func(e ir.Rel) ir.Rel {
	p, ok := e.(*ir.Project)
	if !ok {
		return nil
	}
	f, ok := p.Input.(*ir.Filter)
	if !ok {
		return nil
	}
	m, ok := f.Input.(*ir.Map)
	if !ok {
		return nil
	}
	used := slices.Clone(p.Cols)
	for _, pred := range f.Preds {
		used = append(used, expr.Columns(pred)...)
	}
	in, cm, pruned := pruneMap(m, used)
	if !pruned {
		return nil
	}
	cols := make([]int, len(p.Cols))
	for i, c := range p.Cols {
		cols[i] = cm(c)
	}
	return ir.NewProject(&ir.Filter{Input: in, Preds: remapAll(f.Preds, cm)}, cols...)
}}
