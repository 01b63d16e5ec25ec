package lower

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// unboundedBpchar reports whether t is bpchar without a length. Its values
// keep the trailing blanks they were written with ('ab' and 'ab  '), which
// bpchar's = ignores but Eddy's key encoding (repr.AppendKey) does not;
// char(n) values are all padded to n, so their keys agree with =.
func unboundedBpchar(t repr.T) bool {
	return t.Family == repr.FamText && t.Kind == repr.KindChar && t.Length <= 0
}

// bpcharKeys rewrites an operator that groups, partitions, deduplicates or
// orders by an unbounded bpchar column, or by an array or record that may
// hold bpchar values (expr.NeedsBpcharKey), so that it does so by the column's
// expr.BpcharKey: a bpchar's text cast, which strips the trailing blanks
// bpchar's = and < ignore (PostgreSQL's bpchar_ops hash and compare the
// value without them), or the array or record with its bpchar values
// stripped (record_eq and array_eq compare them with bpchar's =). The
// keys are appended to the input (Map), the operator reads them instead
// of the columns, and a Project restores the operator's own columns. It
// returns nil when rel needs no rewrite.
//
//   - Reduce (GROUP BY, DISTINCT, UNION, IN (subquery)): a group's bpchar
//     value is min(column), one of the values written (PostgreSQL shows
//     one of them too; min keeps a multiset of them per group, so it
//     stays right under retractions). count(DISTINCT c) counts the keys;
//     min/max(DISTINCT c) are min/max(c); the other DISTINCT aggregates
//     of an array or record read its key (PostgreSQL shows one of the
//     values; this is the one without blanks), and the planner gives
//     those of a bpchar the value without its blanks (planner.
//     trimDistinctBpchar), so one that still reads such a column is 0A000.
//   - TopK, Window, SessionWindow (DISTINCT ON, PARTITION BY, ORDER BY in
//     a window or a top-k): the output rows are the input's, so nothing
//     else changes.
//   - Threshold: 0A000. The planner plans INTERSECT and EXCEPT over such
//     columns by their keys (planner.trimmedSetOp), so a Threshold never
//     sees one but in a plan this rewrite does not know.
func bpcharKeys(rel ir.Rel) (ir.Rel, error) {
	switch r := rel.(type) {
	case *ir.Reduce:
		return bpcharReduce(r)
	case *ir.TopK:
		c := *r
		t := newTrimmer(r.Input)
		c.Key, c.Order = t.cols(r.Key), t.order(r.Order)
		return t.wrap(&c, func(in ir.Rel) { c.Input = in })
	case *ir.Window:
		c := *r
		t := newTrimmer(r.Input)
		c.Key, c.Order = t.cols(r.Key), t.order(r.Order)
		return t.wrap(&c, func(in ir.Rel) { c.Input = in })
	case *ir.SessionWindow:
		c := *r
		t := newTrimmer(r.Input)
		c.Key = t.cols(r.Key)
		return t.wrap(&c, func(in ir.Rel) { c.Input = in })
	case *ir.Threshold:
		for c, ty := range r.Input.ColTypes() {
			if expr.NeedsBpcharKey(ty) && !isBpcharKey(r.Input, c) {
				return nil, repr.Unsupported("INTERSECT or EXCEPT by a bpchar value without a length, or an array or record of them (their trailing blanks would count); cast it to text or char(n)")
			}
		}
	}
	return nil, nil
}

// trimmer appends to an input the keys (expr.BpcharKey) of its columns
// that an operator reads as keys and expr.NeedsBpcharKey, each once.
type trimmer struct {
	in    ir.Rel
	types []repr.T
	casts []expr.Expr
	at    map[int]int // input column -> its cast's column
}

func newTrimmer(in ir.Rel) *trimmer {
	return &trimmer{in: in, types: in.ColTypes(), at: map[int]int{}}
}

// needs reports whether input column c must be read by its key: its type
// needs one (expr.NeedsBpcharKey) and it is not a key already (a column
// a rewrite added, whose type is the column's own).
func (t *trimmer) needs(c int) bool {
	return c >= 0 && c < len(t.types) && expr.NeedsBpcharKey(t.types[c]) && !isBpcharKey(t.in, c)
}

// isBpcharKey reports whether column c of rel is an expr.BpcharKey call,
// looking through the operators that pass it on (maps, filters and
// projections; the set operations' unions, negations, thresholds and
// distinct rows).
func isBpcharKey(rel ir.Rel, c int) bool {
	switch r := rel.(type) {
	case *ir.Map:
		if n := ir.Arity(r.Input); c >= n {
			return expr.IsBpcharKey(r.Exprs[c-n])
		}
		return isBpcharKey(r.Input, c)
	case *ir.Project:
		return isBpcharKey(r.Input, r.Cols[c])
	case *ir.Filter:
		return isBpcharKey(r.Input, c)
	case *ir.Negate:
		return isBpcharKey(r.Input, c)
	case *ir.Shared:
		return isBpcharKey(r.Input, c)
	case *ir.Threshold:
		return isBpcharKey(r.Input, c)
	case *ir.Reduce:
		return c < len(r.Key) && isBpcharKey(r.Input, r.Key[c])
	case *ir.Union:
		for _, in := range r.Inputs {
			if !isBpcharKey(in, c) {
				return false
			}
		}
		return len(r.Inputs) > 0
	}
	return false
}

// col returns the column to read for input column c: its key when it
// needs one, else c.
func (t *trimmer) col(c int) int {
	if !t.needs(c) {
		return c
	}
	if j, ok := t.at[c]; ok {
		return j
	}
	j := len(t.types) + len(t.casts)
	t.casts = append(t.casts, expr.BpcharKey(&expr.Col{Idx: c, T: t.types[c]}))
	t.at[c] = j
	return j
}

// cols maps col over cols, into a new slice.
func (t *trimmer) cols(cols []int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = t.col(c)
	}
	return out
}

// order maps col over the sort columns, into a new slice.
func (t *trimmer) order(order []expr.SortCol) []expr.SortCol {
	out := append([]expr.SortCol(nil), order...)
	for i := range out {
		out[i].Col = t.col(out[i].Col)
	}
	return out
}

// wrap finishes the rewrite of op, an operator whose output is its input's
// columns followed by columns of its own: nil when no cast was needed,
// else op over the input with the casts (setInput), projected back to
// the input's columns and op's own.
func (t *trimmer) wrap(op ir.Rel, setInput func(ir.Rel)) (ir.Rel, error) {
	if len(t.casts) == 0 {
		return nil, nil
	}
	setInput(ir.NewMap(t.in, t.casts...))
	n, m := len(t.types), len(t.casts)
	var cols []int
	for i := range ir.Arity(op) - m {
		if i >= n {
			i += m
		}
		cols = append(cols, i)
	}
	return ir.NewProject(op, cols...), nil
}

// bpcharReduce is bpcharKeys of a Reduce.
func bpcharReduce(r *ir.Reduce) (ir.Rel, error) {
	t := newTrimmer(r.Input)
	c := *r
	c.Key = t.cols(r.Key)
	c.Aggs = append([]expr.Agg(nil), r.Aggs...)
	for i, a := range c.Aggs {
		if !a.Distinct || !t.needs(a.Col) {
			continue
		}
		switch a.Kind {
		case expr.AggCount:
			c.Aggs[i].Col = t.col(a.Col)
		case expr.AggMin, expr.AggMax:
			c.Aggs[i].Distinct = false
		default:
			if !unboundedBpchar(t.types[a.Col]) { // the key keeps the type
				c.Aggs[i].Col = t.col(a.Col)
				continue
			}
			return nil, repr.Unsupported("%s(DISTINCT ...) of a bpchar value without a length, or an array or record of them (their trailing blanks would count); cast it to text or char(n)", a.Kind)
		}
	}
	if len(t.casts) == 0 {
		return nil, nil
	}
	nk, na := len(c.Key), len(c.Aggs)
	cols := make([]int, 0, nk+na)
	for i, k := range r.Key {
		if c.Key[i] == k {
			cols = append(cols, i)
			continue
		}
		cols = append(cols, nk+len(c.Aggs))
		c.Aggs = append(c.Aggs, expr.Agg{Kind: expr.AggMin, Col: k, T: t.types[k]})
	}
	for j := range na {
		cols = append(cols, nk+j)
	}
	c.Input = ir.NewMap(t.in, t.casts...)
	return ir.NewProject(&c, cols...), nil
}
