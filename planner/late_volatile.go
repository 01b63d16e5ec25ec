package planner

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// PostgreSQL computes the select list after DISTINCT ON and after ORDER BY
// ... LIMIT when an entry is not a sort key: its plan is Limit over a
// Result (the projection) over the Sort, and Unique under the Result for
// DISTINCT ON. A volatile entry (nextval(), random()) is therefore
// evaluated once per row that reaches the projection (LIMIT n OFFSET m:
// m+n rows, DISTINCT ON: one per distinct value), not once per input row.
// deferVolatile gives Eddy's plan the same shape: the volatile entries
// (and the entries computed from them) are left NULL below the TopK that
// keeps the rows and computed by a Map above it.

// deferVolatile returns above(rel), where above builds a TopK over its
// input, with the volatile expressions of the Map at rel's top (under a
// Project or not) moved above the TopK, and whether any moved. keep are
// the columns of rel the TopK reads (its key and order); an expression
// that one of them needs stays below, and then nothing moves.
func deferVolatile(rel ir.Rel, keep []int, above func(ir.Rel) ir.Rel) (ir.Rel, bool) {
	cols := identityCols(ir.Arity(rel))
	m, ok := rel.(*ir.Map)
	if p, isProj := rel.(*ir.Project); isProj {
		m, ok = p.Input.(*ir.Map)
		cols = p.Cols
	}
	if !ok {
		return above(rel), false
	}
	base := ir.Arity(m.Input)
	late := lateExprs(m, base)
	if len(late) == 0 {
		return above(rel), false
	}
	for _, k := range keep {
		if k < len(cols) && cols[k] >= base && late[cols[k]-base] {
			return above(rel), false
		}
	}
	// Below: the Map with NULL in place of each late expression, projected
	// as before plus the columns the late expressions read.
	ts := m.ColTypes()
	lower := slices.Clone(m.Exprs)
	var needs []int
	for j, e := range m.Exprs {
		if !late[j] {
			continue
		}
		lower[j] = &expr.Lit{D: repr.Null, T: ts[base+j]}
		for _, c := range expr.Columns(e) {
			if (c < base || !late[c-base]) && !slices.Contains(needs, c) {
				needs = append(needs, c)
			}
		}
	}
	kept := above(ir.NewProject(ir.NewMap(m.Input, lower...), append(slices.Clone(cols), needs...)...))
	// Above: the late expressions over the kept rows, each reading the
	// extra columns or the late expressions before it.
	width := ir.Arity(kept)
	at := map[int]int{} // Map column -> column above
	for i, c := range needs {
		at[c] = len(cols) + i
	}
	var upper []expr.Expr
	for j, e := range m.Exprs {
		if late[j] {
			upper = append(upper, expr.Remap(e, func(c int) int { return at[c] }))
			at[base+j] = width + len(upper) - 1
		}
	}
	out := identityCols(len(cols))
	for i, c := range cols {
		if c >= base && late[c-base] {
			out[i] = at[c]
		}
	}
	return ir.NewProject(ir.NewMap(kept, upper...), out...), true
}

// lateExprs marks the expressions of m (whose input has base columns)
// that are volatile or read a marked one.
func lateExprs(m *ir.Map, base int) []bool {
	var late []bool
	found := false
	for _, e := range m.Exprs {
		v := expr.IsVolatile(e)
		for _, c := range expr.Columns(e) {
			v = v || c >= base && late[c-base]
		}
		late = append(late, v)
		found = found || v
	}
	if !found {
		return nil
	}
	return late
}

// sortCols returns the columns of order.
func sortCols(order []expr.SortCol) []int {
	out := make([]int, len(order))
	for i, o := range order {
		out[i] = o.Col
	}
	return out
}
