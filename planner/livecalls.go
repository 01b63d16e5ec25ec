package planner

import (
	"reflect"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// LiveCalls returns calls without those PostgreSQL would not check
// EXECUTE on in the query planned as rel: its planner drops the output
// columns of views and derived tables that nothing reads (pulling the
// query up, or remove_unused_subquery_outputs) before its executor
// checks the functions left, except where a column counts (DISTINCT, a
// grouping key, a set operation) or is volatile. A call or cast is
// dropped only when its expression is found in a Map column nothing
// above reads and nowhere else in rel (columns count through Project,
// Map, Filter, Join and Reduce; every other operator reads all its
// input's columns); one planning did not keep as a node, or that rel
// does not hold, stays (it may refuse, never wrongly admit).
func LiveCalls(rel ir.Rel, calls []Call) []Call {
	if rel == nil {
		return calls
	}
	l := liveness{parents: map[ir.Rel]int{}, done: map[ir.Rel]bool{}, dead: map[expr.Expr]bool{}, live: map[expr.Expr]bool{},
		seen: map[uintptr]bool{}, kept: map[ir.Rel][]int{}}
	for _, c := range calls {
		if c.rel != nil {
			l.kept[c.rel] = append(l.kept[c.rel], c.kept...)
		}
	}
	l.countParents(rel)
	l.visit(rel, allCols(ir.Arity(rel)))
	return slices.DeleteFunc(slices.Clone(calls), func(c Call) bool {
		return c.node != nil && l.dead[c.node] && !l.live[c.node]
	})
}

// liveness finds the expressions of a plan that compute a column read
// above them (live) and those that compute none (dead).
type liveness struct {
	parents    map[ir.Rel]int  // operators reading each
	done       map[ir.Rel]bool // visited reading every column
	dead, live map[expr.Expr]bool
	seen       map[uintptr]bool // pointers markLive followed
	kept       map[ir.Rel][]int // columns that count though not read (Call.kept)
}

// countParents counts the readers of each operator under r.
func (l *liveness) countParents(r ir.Rel) {
	for _, c := range r.Children() {
		l.parents[c]++
		if l.parents[c] == 1 {
			l.countParents(c)
		}
	}
}

// visit marks the expressions of r given the columns of r read above
// (need); an operator read by several is taken as read whole.
func (l *liveness) visit(r ir.Rel, need []bool) {
	if l.parents[r] > 1 {
		need = allCols(len(need))
	}
	if ks := l.kept[r]; len(ks) > 0 {
		need = slices.Clone(need)
		for _, k := range ks {
			if k < len(need) {
				need[k] = true
			}
		}
	}
	if !slices.Contains(need, false) {
		if l.done[r] {
			return
		}
		l.done[r] = true
	}
	switch r := r.(type) {
	case *ir.Project:
		in := make([]bool, ir.Arity(r.Input))
		for i, c := range r.Cols {
			in[c] = in[c] || need[i]
		}
		l.visit(r.Input, in)
	case *ir.Map:
		l.visitMap(r, need)
	case *ir.Filter:
		in := slices.Clone(need)
		l.reads(in, r.Preds...)
		l.visit(r.Input, in)
	case *ir.Join:
		all := slices.Clone(need)
		l.reads(all, r.On...)
		n := ir.Arity(r.Left)
		l.visit(r.Left, all[:n])
		l.visit(r.Right, all[n:])
	case *ir.Reduce:
		l.visitReduce(r, need)
	default:
		l.markLive(reflect.ValueOf(r))
		for _, c := range r.Children() {
			l.visit(c, allCols(ir.Arity(c)))
		}
	}
}

// visitMap marks a Map's expressions, last first (one may read an
// earlier one's column), volatile ones live whether read or not.
func (l *liveness) visitMap(m *ir.Map, need []bool) {
	need = slices.Clone(need)
	n := ir.Arity(m.Input)
	for i := len(m.Exprs) - 1; i >= 0; i-- {
		e := m.Exprs[i]
		if need[n+i] || expr.IsVolatile(e) {
			l.reads(need, e)
		} else {
			mark(e, l.dead)
		}
	}
	l.visit(m.Input, need[:n])
}

// visitReduce marks the columns a Reduce reads: its keys, and the
// arguments of the aggregates read above.
func (l *liveness) visitReduce(r *ir.Reduce, need []bool) {
	in := make([]bool, ir.Arity(r.Input))
	for _, k := range r.Key {
		in[k] = true
	}
	for i, a := range r.Aggs {
		if need[len(r.Key)+i] {
			for _, c := range a.Cols() {
				in[c] = true
			}
		}
	}
	l.visit(r.Input, in)
}

// reads marks es live and the columns they read in need.
func (l *liveness) reads(need []bool, es ...expr.Expr) {
	for _, e := range es {
		mark(e, l.live)
		for _, c := range expr.Columns(e) {
			need[c] = true
		}
	}
}

// markLive marks live every expression among v's fields, not descending
// into operators (which visit reaches).
func (l *liveness) markLive(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.CanInterface() {
			if e, ok := v.Interface().(expr.Expr); ok {
				mark(e, l.live)
				return
			}
			if _, ok := v.Interface().(ir.Rel); ok && v.Kind() == reflect.Interface {
				return
			}
		}
		if v.Kind() == reflect.Pointer {
			if l.seen[v.Pointer()] {
				return
			}
			l.seen[v.Pointer()] = true
		}
		l.markLive(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			l.markLive(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			l.markLive(v.Index(i))
		}
	}
}

// mark adds e and its subexpressions to set.
func mark(e expr.Expr, set map[expr.Expr]bool) {
	set[e] = true
	for _, k := range expr.Children(e) {
		mark(k, set)
	}
}

// allCols is n columns all read.
func allCols(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}
