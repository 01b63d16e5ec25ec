package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// PushFilterThroughWindow moves predicates over partition key columns
// only below a Window:
//
//	(Filter (Window $in $key ...) $p) => (Window (Filter $in $p) $key ...)   when $p reads only $key
//
// The filtered-out partitions then keep no rows in the window's state.
// Safe because window functions are computed per partition and a
// deterministic predicate over the key keeps or drops a whole partition,
// so the values in the surviving partitions are unchanged. Everything else
// stays above: a predicate over another input column would remove rows
// that other rows' values count (SQL evaluates window functions after
// WHERE, so a filter above them must not move below), one over a function
// column reads a column that does not exist below, and volatile
// predicates or those without columns would be evaluated differently.
// Safe under retractions: a partition's fate does not depend on its
// contents.
var PushFilterThroughWindow = Rule{Name: "PushFilterThroughWindow", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	w, ok := f.Input.(*ir.Window)
	if !ok {
		return nil
	}
	down, keep := partition(f.Preds, func(p expr.Expr) bool {
		cols := expr.Columns(p)
		return !expr.IsVolatile(p) && len(cols) > 0 && subset(cols, w.Key)
	})
	if len(down) == 0 {
		return nil
	}
	nw := *w
	nw.Input = &ir.Filter{Input: w.Input, Preds: down}
	return ir.NewFilter(&nw, keep...)
}}

// narrowWindow drops the window functions need does not read and keeps
// below the Window only the columns read above it or by its key, order
// and functions. Dropping other columns can merge rows that differed only
// in them into copies of one row, which only changes how peers (rows
// equal in the window's order) are ordered among themselves, which SQL
// leaves unspecified.
func narrowWindow(r *ir.Window, need []int) ir.Rel {
	n := ir.Arity(r.Input)
	read := slices.Clone(r.Key)
	for _, o := range r.Order {
		read = append(read, o.Col)
	}
	fpos := make([]int, len(r.Funcs))
	var funcs []expr.WinFunc
	for _, c := range need {
		if c < n {
			read = append(read, c)
		} else if fpos[c-n] == 0 {
			funcs = append(funcs, r.Funcs[c-n])
			fpos[c-n] = len(funcs)
			read = append(read, r.Funcs[c-n].Cols()...)
		}
	}
	if len(funcs) == 0 {
		return narrow(r.Input, need) // a Window without functions passes its input through
	}
	keep := keepSet(read, n)
	idx := indexIn(keep)
	w := &ir.Window{Input: narrow(r.Input, keep), Key: remapCols(r.Key, idx), Order: slices.Clone(r.Order)}
	for i := range w.Order {
		w.Order[i].Col = idx(w.Order[i].Col)
	}
	for _, f := range funcs {
		w.Funcs = append(w.Funcs, f.Remap(idx))
	}
	return project(w, remapCols(need, func(c int) int {
		if c >= n {
			return len(keep) + fpos[c-n] - 1
		}
		return idx(c)
	}))
}
