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
	out, moved, _ := deferLate(rel, keep, nil, above)
	return out, moved
}

// deferLate is deferVolatile; with srfBase (the relation the select
// list's set-returning calls expand), those calls (the FlatMaps between
// the Map and srfBase, one per level of nested calls) move above the TopK
// too, with the expressions that read them, as PostgreSQL's ProjectSets
// sit above Unique: DISTINCT ON keeps one input row per value, which the
// calls then expand. (Not above a LIMIT, which counts the expanded rows.)
// Calls it cannot move (another operator between their FlatMaps) are
// 0A000 rather than expanded before the TopK.
func deferLate(rel ir.Rel, keep []int, srfBase ir.Rel, above func(ir.Rel) ir.Rel) (ir.Rel, bool, error) {
	cols := identityCols(ir.Arity(rel))
	top := rel
	if p, isProj := rel.(*ir.Project); isProj {
		top, cols = p.Input, p.Cols
	}
	m, _ := top.(*ir.Map)
	if m == nil {
		m = &ir.Map{Input: top}
	}
	in, fms := m.Input, []*ir.FlatMap(nil) // fms: the calls' levels, top first
	for srfBase != nil && in != srfBase {
		f, ok := in.(*ir.FlatMap)
		if !ok || f.Ordinality || f.Outer || len(f.On) > 0 {
			return nil, false, repr.Unsupported("set-returning functions in the select list of SELECT DISTINCT ON with ORDER BY over this plan")
		}
		fms, in = append(fms, f), f.Input
	}
	base, mbase := ir.Arity(in), ir.Arity(m.Input) // input columns; then the calls' columns
	late := lateExprs(m, mbase, base, len(fms) > 0)
	if late == nil {
		return above(rel), false, nil
	}
	isLate := func(c int) bool { return c >= base && (c < mbase || late[c-mbase]) }
	for _, k := range keep {
		if k < len(cols) && isLate(cols[k]) {
			return above(rel), false, nil
		}
	}
	// Below: the Map over the input, NULL in place of the calls' columns
	// and of each late expression, projected as before plus the columns
	// the late parts read.
	ts := m.ColTypes()
	var lower []expr.Expr
	for c := base; c < mbase; c++ {
		lower = append(lower, &expr.Lit{D: repr.Null, T: ts[c]})
	}
	var needs []int
	need := func(e expr.Expr) {
		for _, c := range expr.Columns(e) {
			if !isLate(c) && !slices.Contains(needs, c) {
				needs = append(needs, c)
			}
		}
	}
	for _, fm := range fms {
		for _, f := range fm.Funcs {
			for _, a := range f.Args {
				need(a)
			}
		}
	}
	for j, e := range m.Exprs {
		if !late[j] {
			lower = append(lower, e)
			continue
		}
		lower = append(lower, &expr.Lit{D: repr.Null, T: ts[mbase+j]})
		need(e)
	}
	kept := above(ir.NewProject(ir.NewMap(in, lower...), append(slices.Clone(cols), needs...)...))
	// Above: the calls, then the late expressions, over the kept rows.
	at := map[int]int{} // column below -> column above
	for i, c := range needs {
		at[c] = len(cols) + i
	}
	remap := func(c int) int { return at[c] }
	var upper ir.Rel = kept
	for c := base; c < mbase; c++ { // the levels keep their columns' order
		at[c] = ir.Arity(kept) + c - base
	}
	for i := len(fms) - 1; i >= 0; i-- {
		funcs := make([]expr.TableCall, len(fms[i].Funcs))
		for j, f := range fms[i].Funcs {
			funcs[j] = f.Remap(remap)
		}
		upper = &ir.FlatMap{Input: upper, Funcs: funcs}
	}
	width := ir.Arity(upper)
	var exprs []expr.Expr
	for j, e := range m.Exprs {
		if late[j] {
			exprs = append(exprs, expr.Remap(e, remap))
			at[mbase+j] = width + len(exprs) - 1
		}
	}
	out := identityCols(len(cols))
	for i, c := range cols {
		if isLate(c) {
			out[i] = at[c]
		}
	}
	return ir.NewProject(ir.NewMap(upper, exprs...), out...), true, nil
}

// drawsPerRow reports whether e calls a volatile function whose value may
// differ per call (nextval, random, clock_timestamp, ...). The functions
// of the statement time (nowFuncs, and age, which reads it) are volatile
// to Eddy (never folded, not in views) but the same on every row of a
// statement: moving them changes nothing, and PostgreSQL, which calls
// them stable, does not move them.
func drawsPerRow(e expr.Expr) bool {
	if c, ok := e.(*expr.Call); ok && c.Fn.Volatile && !nowFuncs[c.Fn.Name] && c.Fn.Name != "age" {
		return true
	}
	return slices.ContainsFunc(expr.Children(e), drawsPerRow)
}

// lateExprs marks the expressions of m (whose input has mbase columns)
// that are volatile or read a marked one, or, with calls (m's input is
// the FlatMaps moving up), that read the calls' columns (from base on).
// It returns nil when nothing moves.
func lateExprs(m *ir.Map, mbase, base int, calls bool) []bool {
	late := make([]bool, 0, len(m.Exprs))
	found := calls
	for _, e := range m.Exprs {
		v := drawsPerRow(e)
		for _, c := range expr.Columns(e) {
			v = v || c >= mbase && late[c-mbase] || calls && c < mbase && c >= base
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
