package rules

import (
	"errors"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// PushFilterThroughFlatMap moves predicates over input columns only below
// a FlatMap:
//
//	(Filter (FlatMap $in $funcs) $p) => (FlatMap (Filter $in $p) $funcs)   when $p reads only $in's columns
//
// The functions are then not called for rows the filter drops. Safe
// because every output row of one input row carries that row's columns
// unchanged, so a deterministic predicate over them keeps or drops all of
// them alike, the NULL-padded row of an Outer FlatMap included (as a WHERE
// over the preserved side of a left join may move below it). Predicates
// over the functions' columns, volatile ones and those without columns
// stay above. Safe under retractions: FlatMap and Filter are linear.
var PushFilterThroughFlatMap = Rule{Name: "PushFilterThroughFlatMap", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	m, ok := f.Input.(*ir.FlatMap)
	if !ok {
		return nil
	}
	n := ir.Arity(m.Input)
	down, keep := partition(f.Preds, func(p expr.Expr) bool {
		return !expr.IsVolatile(p) && colsWithin(p, 0, n)
	})
	if len(down) == 0 {
		return nil
	}
	nm := *m
	nm.Input = &ir.Filter{Input: m.Input, Preds: down}
	return ir.NewFilter(&nm, keep...)
}}

// FoldFlatMap constant-folds a FlatMap's arguments and On predicates, and
// evaluates a FlatMap over literal Values (a function in FROM with
// constant arguments: generate_series(1, 3)) into Values, so a view over
// it is a constant collection:
//
//	(FlatMap (Values $rows) $funcs) => (Values $rows')   when at most foldRowsMax rows
//
// Calls that fail, produce more rows, or depend on the session time zone
// or the clock (expr.TableFunc.Foldable) are left to run time, where their errors surface
// only if reached. Safe under retractions: Values never change.
var FoldFlatMap = Rule{Name: "FoldFlatMap", Root: (*ir.FlatMap)(nil), Apply: func(e ir.Rel) ir.Rel {
	m, ok := e.(*ir.FlatMap)
	if !ok {
		return nil
	}
	if v := evalFlatMap(m); v != nil {
		return v
	}
	nm, changed := *m, false
	nm.Funcs = slices.Clone(m.Funcs)
	for i, c := range nm.Funcs {
		args, ch := foldAll(c.Args)
		nm.Funcs[i].Args, changed = args, changed || ch
	}
	on, ch := foldAll(m.On)
	if !changed && !ch {
		return nil
	}
	nm.On = on
	return &nm
}}

// foldRowsMax bounds the rows FoldFlatMap materializes into a plan. The
// calls are evaluated within it too: a call past what is left of it stops
// and the FlatMap is left to run time, so planning never builds a larger
// call's rows (generate_series(1, 1000000) built its million rows, about
// 200 MB that no memory account held, at every pass of the rules before
// giving up).
const foldRowsMax = 1000

// evalFlatMap returns m evaluated as Values, or nil (see FoldFlatMap).
func evalFlatMap(m *ir.FlatMap) ir.Rel {
	v, ok := m.Input.(*ir.Values)
	if !ok || len(m.On) > 0 || m.Outer || !foldable(m) {
		return nil
	}
	out := &ir.Values{Types: m.ColTypes()}
	for _, r := range v.Rows {
		row, ok := literalRow(r)
		if !ok {
			return nil
		}
		rows, err := expandRow(m, row, foldRowsMax-len(out.Rows))
		if err != nil {
			return nil
		}
		for _, er := range rows {
			out.Rows = append(out.Rows, literals(er, out.Types))
		}
	}
	return out
}

// foldable reports whether every call of m depends on its arguments alone
// (not on the session time zone, the clock or randomness).
func foldable(m *ir.FlatMap) bool {
	for _, c := range m.Funcs {
		if !c.Func.Foldable() {
			return false
		}
	}
	return true
}

// literalRow returns the values of a Values row of literals.
func literalRow(r []expr.Expr) (repr.Row, bool) {
	row := make(repr.Row, len(r))
	for i, e := range r {
		l, ok := e.(*expr.Lit)
		if !ok {
			return nil, false
		}
		row[i] = l.D
	}
	return row, true
}

// errFoldTooLarge stops a call whose rows pass what folding may keep.
var errFoldTooLarge = errors.New("more rows than a plan keeps")

// expandRow computes m's output rows for one input row, as the FlatMap
// operator does (lockstep, NULL padding, ordinality), or errFoldTooLarge
// as soon as a call produces more than limit rows.
func expandRow(m *ir.FlatMap, in repr.Row, limit int) ([]repr.Row, error) {
	ctx := &expr.Ctx{}
	results := make([][]repr.Row, len(m.Funcs))
	n := 0
	for i, c := range m.Funcs {
		var rows []repr.Row
		err := c.Run(ctx, in, func(vals []repr.Datum) error {
			if len(rows) >= limit {
				return errFoldTooLarge
			}
			rows = append(rows, append(repr.Row(nil), vals...))
			return nil
		})
		if err != nil {
			return nil, err
		}
		results[i], n = rows, max(n, len(rows))
	}
	out := make([]repr.Row, n)
	for k := range out {
		r := slices.Clone(in)
		for i, c := range m.Funcs {
			if k < len(results[i]) {
				r = append(r, results[i][k]...)
			} else {
				r = append(r, make(repr.Row, len(c.Func.Cols))...)
			}
		}
		if m.Ordinality {
			r = append(r, repr.NewInt(int64(k+1)))
		}
		out[k] = r
	}
	return out, nil
}

// literals turns a row into literal expressions of types ts.
func literals(r repr.Row, ts []repr.T) []expr.Expr {
	out := make([]expr.Expr, len(r))
	for i, d := range r {
		out[i] = &expr.Lit{D: d, T: ts[i]}
	}
	return out
}

// narrowFlatMap keeps below a FlatMap only the input columns read above
// it or by its arguments and On predicates. Every function stays: in
// lockstep each one's length counts toward the number of rows. The
// ordinality goes when nothing above or in On reads it (the rows stay,
// as a multiset, the same).
func narrowFlatMap(r *ir.FlatMap, need []int) ir.Rel {
	if ord := ir.Arity(r) - 1; r.Ordinality && !slices.Contains(need, ord) && !slices.Contains(columnsOf(r.On), ord) {
		c := *r
		c.Ordinality = false
		r = &c
	}
	n := ir.Arity(r.Input)
	if n == 0 {
		return project(r, need)
	}
	var read []int
	for _, c := range need {
		if c < n {
			read = append(read, c)
		}
	}
	for _, c := range r.Funcs {
		read = append(read, columnsOf(c.Args)...)
	}
	for _, c := range columnsOf(r.On) {
		if c < n {
			read = append(read, c)
		}
	}
	keep := keepSet(read, n)
	if len(keep) == n {
		return project(&ir.FlatMap{Input: narrow(r.Input, identity(n)), Funcs: r.Funcs, Ordinality: r.Ordinality,
			Outer: r.Outer, On: r.On}, need)
	}
	idx := indexIn(keep)
	m := func(c int) int {
		if c < n {
			return idx(c)
		}
		return c - n + len(keep)
	}
	nm := &ir.FlatMap{Input: narrow(r.Input, keep), Ordinality: r.Ordinality, Outer: r.Outer, On: remapAll(r.On, m)}
	for _, c := range r.Funcs {
		nm.Funcs = append(nm.Funcs, c.Remap(idx))
	}
	return project(nm, remapCols(need, m))
}

// identity returns the columns 0..n-1.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
