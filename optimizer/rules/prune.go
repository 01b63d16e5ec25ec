package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// PruneColumns is the column-pruning phase: it runs before Prune, whose
// rules then fuse the projections it leaves into maps and reduces.
var PruneColumns = Phase{Name: "prunecolumns", Rules: []Rule{PruneUnusedColumns}}

// PruneUnusedColumns narrows the input of a Project or Reduce to the
// columns it reads, pushing the narrowing down the tree (see narrow): Map
// expressions nobody reads are not computed, Filters, Unions, Joins,
// Negates, SessionWindows, Windows and TemporalFilters carry only the
// columns read above them or by their own predicates, keys, orders and
// window functions, aggregates and window functions nobody reads are
// dropped, and a stored collection is followed
// by a Project keeping what is read:
//
//	(Project (Map (Get t) [$a $b]) [#0 #n]) => (Project (Map (Project (Get t) [#0 ...]) [$a]) ...)
//
// Why: every column an operator carries is copied, encoded and kept in
// state per row. Safe: the result has the same columns (types and order)
// and the same multiset of rows at every time; an expression or aggregate
// that is not computed can only remove a run-time error (as the map
// pruning rules do). Columns a node's semantics depend on are always kept:
// join conditions, group keys and aggregate inputs, session keys and
// times, temporal bounds, and every input column of a Threshold
// (whole-row multiplicities) and of a TopK (ties are broken by the whole
// row, so a narrower row could rank differently). Watermarks survive: a column that
// a window column is computed from is read by that Map, so it is kept
// below it, and exec derives the window column's watermark when the Map
// runs. An inner or left join with a relation that always holds exactly
// one row (a global aggregate) whose columns nobody reads is its other
// input (filtered by the inner join's condition): decorrelated IN and
// scalar subqueries leave such joins. Safe under retractions: every
// rewrite keeps each operator's per-row or per-group behavior.
var PruneUnusedColumns = Rule{Name: "PruneUnusedColumns", Apply: func(e ir.Rel) ir.Rel {
	var out ir.Rel
	switch r := e.(type) {
	case *ir.Project:
		out = narrowProject(r.Input, r.Cols)
	case *ir.Reduce:
		need := keepSet(reduceColumns(r), ir.Arity(r.Input))
		in := narrow(r.Input, need)
		if p, ok := in.(*ir.Project); ok && p.Input == r.Input {
			return nil // a Reduce reads its input's columns in place
		}
		out = remapReduce(r, in, indexIn(need))
	default:
		return nil
	}
	if ir.Equal(out, e) {
		return nil
	}
	return out
}}

// narrowProject returns (Project in cols) with in narrowed to the columns
// cols reads.
func narrowProject(in ir.Rel, cols []int) ir.Rel {
	need := keepSet(cols, ir.Arity(in))
	nin := narrow(in, need)
	idx := indexIn(need)
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = idx(c)
	}
	return project(nin, out)
}

// project is ir.NewProject that composes with a Project input.
func project(in ir.Rel, cols []int) ir.Rel {
	if p, ok := in.(*ir.Project); ok {
		out := make([]int, len(cols))
		for i, c := range cols {
			out[i] = p.Cols[c]
		}
		return ir.NewProject(p.Input, out...)
	}
	return ir.NewProject(in, cols...)
}

// narrow returns a relation whose output is exactly the columns need
// (sorted, distinct indices into rel's output, not empty when rel has
// columns: see keepSet) of rel, in that order, pushing the narrowing into
// rel's inputs where the operator allows it. When need is every column,
// rel is returned as is: the rule runs bottom up, so every Project and
// Reduce below has already narrowed its own input, and keeping the
// subtree (not a copy) lets ir.Equal see that nothing changed at once.
func narrow(rel ir.Rel, need []int) ir.Rel {
	if len(need) == ir.Arity(rel) {
		return rel
	}
	switch r := rel.(type) {
	case *ir.Project:
		cols := make([]int, len(need))
		for i, c := range need {
			cols[i] = r.Cols[c]
		}
		return narrowProject(r.Input, cols)
	case *ir.Map:
		return narrowMap(r, need)
	case *ir.Filter:
		return narrowWith(rel, need, columnsOf(r.Preds), func(in ir.Rel, m func(int) int) ir.Rel {
			return &ir.Filter{Input: in, Preds: remapAll(r.Preds, m)}
		})
	case *ir.Union:
		ins := make([]ir.Rel, len(r.Inputs))
		for i, in := range r.Inputs {
			ins[i] = narrow(in, need)
		}
		return &ir.Union{Inputs: ins}
	case *ir.Negate:
		return &ir.Negate{Input: narrow(r.Input, need)}
	case *ir.Join:
		return narrowJoin(r, need)
	case *ir.Reduce:
		return narrowReduce(r, need)
	case *ir.TemporalFilter:
		read := append(columnsOf(r.Lower), columnsOf(r.Upper)...)
		return narrowWith(rel, need, read, func(in ir.Rel, m func(int) int) ir.Rel {
			return &ir.TemporalFilter{Input: in, Lower: remapAll(r.Lower, m), Upper: remapAll(r.Upper, m)}
		})
	case *ir.SessionWindow:
		return narrowSession(r, need)
	case *ir.Window:
		return narrowWindow(r, need)
	case *ir.FlatMap:
		return narrowFlatMap(r, need)
	}
	return ir.NewProject(rel, need...)
}

// narrowWith narrows an operator that passes its input's columns through
// unchanged and reads the columns read: its input keeps need and read,
// rebuild makes the operator over the narrowed input (m renumbers input
// columns), and a Project restores need's order.
func narrowWith(rel ir.Rel, need, read []int, rebuild func(ir.Rel, func(int) int) ir.Rel) ir.Rel {
	in := rel.Children()[0]
	keep := keepSet(append(slices.Clone(need), read...), ir.Arity(in))
	if len(keep) == ir.Arity(in) {
		return project(rel, need) // the input keeps every column: rel as is
	}
	m := indexIn(keep)
	out := rebuild(narrow(in, keep), m)
	return project(out, remapCols(need, m))
}

// narrowMap keeps the expressions need reads (directly or through later
// expressions), the volatile ones (see pruneMap), and the input columns
// they and need read.
func narrowMap(r *ir.Map, need []int) ir.Rel {
	n := ir.Arity(r.Input)
	keepExpr := volatileExprs(r.Exprs)
	var inNeed []int
	for _, c := range need {
		if c >= n {
			keepExpr[c-n] = true
		} else {
			inNeed = append(inNeed, c)
		}
	}
	for i := len(r.Exprs) - 1; i >= 0; i-- {
		if !keepExpr[i] {
			continue
		}
		for _, c := range expr.Columns(r.Exprs[i]) {
			if c >= n {
				keepExpr[c-n] = true
			} else {
				inNeed = append(inNeed, c)
			}
		}
	}
	inNeed = keepSet(inNeed, n)
	if len(inNeed) == n && !slices.Contains(keepExpr, false) {
		return project(r, need) // every expression and input column stays
	}
	idx := indexIn(inNeed)
	newIdx := make([]int, len(r.Exprs))
	k := len(inNeed)
	for i, ok := range keepExpr {
		newIdx[i] = k
		if ok {
			k++
		}
	}
	m := func(c int) int {
		if c < n {
			return idx(c)
		}
		return newIdx[c-n]
	}
	var exprs []expr.Expr
	for i, e := range r.Exprs {
		if keepExpr[i] {
			exprs = append(exprs, expr.Remap(e, m))
		}
	}
	return project(ir.NewMap(narrow(r.Input, inNeed), exprs...), remapCols(need, m))
}

// narrowJoin narrows each side to the columns need and the condition read.
func narrowJoin(r *ir.Join, need []int) ir.Rel {
	nl := ir.Arity(r.Left)
	read := sortedSet(append(slices.Clone(need), columnsOf(r.On)...))
	var ln, rn []int
	for _, c := range read {
		if c < nl {
			ln = append(ln, c)
		} else {
			rn = append(rn, c-nl)
		}
	}
	if len(rn) == 0 && exactlyOneRow(r.Right) && r.Kind != ir.JoinFull && r.Kind != ir.JoinRight {
		// Every left row meets the one right row (inner: when On holds;
		// left: once either way), and nobody reads the right columns.
		if r.Kind == ir.JoinLeft {
			return narrow(r.Left, need)
		}
		return narrow(ir.NewFilter(r.Left, r.On...), need)
	}
	ln, rn = keepSet(ln, nl), keepSet(rn, ir.Arity(r.Right))
	if len(ln) == nl && len(rn) == ir.Arity(r.Right) {
		return project(r, need) // both sides keep every column
	}
	li, ri := indexIn(ln), indexIn(rn)
	m := func(c int) int {
		if c < nl {
			return li(c)
		}
		return len(ln) + ri(c-nl)
	}
	j := &ir.Join{Kind: r.Kind, Left: narrow(r.Left, ln), Right: narrow(r.Right, rn), On: remapAll(r.On, m)}
	return project(j, remapCols(need, m))
}

// exactlyOneRow reports whether r always holds exactly one row: a global
// aggregate (without EMIT ON WINDOW CLOSE) or a one-row VALUES, through
// maps and projections.
func exactlyOneRow(r ir.Rel) bool {
	switch n := r.(type) {
	case *ir.Reduce:
		return len(n.Key) == 0 && !n.EmitOnClose
	case *ir.Values:
		return len(n.Rows) == 1
	case *ir.Map:
		return exactlyOneRow(n.Input)
	case *ir.Project:
		return exactlyOneRow(n.Input)
	}
	return false
}

// narrowReduce drops the aggregates need does not read (keys stay: they
// define the groups) and narrows the input to what is left.
func narrowReduce(r *ir.Reduce, need []int) ir.Rel {
	nk := len(r.Key)
	var aggs []expr.Agg
	outIdx := make([]int, nk+len(r.Aggs))
	for i := range nk {
		outIdx[i] = i
	}
	for _, c := range need {
		if c >= nk {
			outIdx[c] = nk + len(aggs)
			aggs = append(aggs, r.Aggs[c-nk])
		}
	}
	kept := &ir.Reduce{Input: r.Input, Key: r.Key, Aggs: aggs, EmitOnClose: r.EmitOnClose}
	in := keepSet(reduceColumns(kept), ir.Arity(r.Input))
	if len(aggs) == len(r.Aggs) && len(in) == ir.Arity(r.Input) {
		return project(r, need) // every aggregate and input column stays
	}
	red := remapReduce(kept, narrow(r.Input, in), indexIn(in))
	return project(red, remapCols(need, func(c int) int { return outIdx[c] }))
}

// narrowSession keeps the session key and time columns below the window.
func narrowSession(r *ir.SessionWindow, need []int) ir.Rel {
	n := ir.Arity(r.Input)
	read := append(slices.Clone(r.Key), r.TimeCol)
	for _, c := range need {
		if c < n {
			read = append(read, c)
		}
	}
	keep := keepSet(read, n)
	idx := indexIn(keep)
	s := &ir.SessionWindow{Input: narrow(r.Input, keep), Key: remapCols(r.Key, idx), TimeCol: idx(r.TimeCol), Gap: r.Gap}
	return project(s, remapCols(need, func(c int) int {
		if c >= n {
			return len(keep) + c - n // window_start, window_end
		}
		return idx(c)
	}))
}

// sortedSet returns the distinct elements of cols in increasing order.
func sortedSet(cols []int) []int {
	out := slices.Clone(cols)
	slices.Sort(out)
	return slices.Compact(out)
}

// keepSet is sortedSet(cols), or column 0 when cols is empty and the
// relation has n > 0 columns: narrowing never produces zero-width rows,
// which would save nothing and which not every operator expects.
func keepSet(cols []int, n int) []int {
	if len(cols) == 0 && n > 0 {
		return []int{0}
	}
	return sortedSet(cols)
}

// indexIn maps a column listed in set (sorted, distinct) to its position.
func indexIn(set []int) func(int) int {
	return func(c int) int {
		i, _ := slices.BinarySearch(set, c)
		return i
	}
}

// remapCols applies m to each column.
func remapCols(cols []int, m func(int) int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = m(c)
	}
	return out
}

// columnsOf returns the columns the expressions read (with repeats).
func columnsOf(es []expr.Expr) []int {
	var out []int
	for _, e := range es {
		out = append(out, expr.Columns(e)...)
	}
	return out
}
