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
// orders by an unbounded bpchar column so that it does so by the column's
// text cast, which strips the trailing blanks bpchar's = and < ignore
// (PostgreSQL's bpchar_ops hash and compare the value without them). The
// casts are appended to the input (Map), the operator reads them instead
// of the columns, and a Project restores the operator's own columns. It
// returns nil when rel needs no rewrite.
//
//   - Reduce (GROUP BY, DISTINCT, UNION, IN (subquery)): a group's bpchar
//     value is min(column), one of the values written (PostgreSQL shows
//     one of them too; min keeps a multiset of them per group, so it
//     stays right under retractions). count(DISTINCT c) counts the casts;
//     min/max(DISTINCT c) are min/max(c); the planner gives the other
//     DISTINCT aggregates the value without its blanks (planner.
//     trimDistinctBpchar), so one that still reads such a column is 0A000.
//   - TopK, Window, SessionWindow (DISTINCT ON, PARTITION BY, ORDER BY in
//     a window or a top-k): the output rows are the input's, so nothing
//     else changes.
//   - Threshold: 0A000. The planner plans INTERSECT and EXCEPT over such
//     columns by their text casts (planner.trimmedSetOp), so a Threshold
//     never sees one but in a plan this rewrite does not know.
func bpcharKeys(rel ir.Rel) (ir.Rel, error) {
	if err := bpcharArrayKeys(rel); err != nil {
		return nil, err
	}
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
		for _, ty := range r.Input.ColTypes() {
			if unboundedBpchar(ty) {
				return nil, repr.Unsupported("INTERSECT or EXCEPT by a bpchar value without a length (its trailing blanks would count); cast it to text or char(n)")
			}
		}
	}
	return nil, nil
}

// bpcharArray reports whether t is an array of bpchar without a length,
// whose elements keep their trailing blanks as bpchar's values do.
func bpcharArray(t repr.T) bool {
	return t.Family == repr.FamArray && t.Elem == repr.FamText && t.Kind == repr.KindChar && t.Length <= 0
}

// bpcharArrayKeys refuses (0A000) an operator keyed by an array of
// bpchar without a length: its key encoding would count the elements'
// blanks, which bpchar's = ignores. array_agg(DISTINCT c) reads such a
// column (its value boxed), whose values the planner trimmed.
func bpcharArrayKeys(rel ir.Rel) error {
	var types []repr.T
	var keys []int
	switch r := rel.(type) {
	case *ir.Reduce:
		types, keys = r.Input.ColTypes(), r.Key
		for _, a := range r.Aggs {
			if a.Distinct && a.Kind != expr.AggArrayAgg && a.Col >= 0 {
				keys = append(keys, a.Col)
			}
		}
	case *ir.TopK:
		types, keys = r.Input.ColTypes(), r.Key
	case *ir.Window:
		types, keys = r.Input.ColTypes(), r.Key
	case *ir.Threshold:
		types = r.Input.ColTypes()
		keys = make([]int, len(types))
		for i := range keys {
			keys[i] = i
		}
	}
	for _, k := range keys {
		if k < len(types) && bpcharArray(types[k]) {
			return repr.Unsupported("grouping, DISTINCT, PARTITION BY or INTERSECT/EXCEPT by an array of bpchar without a length (its elements' trailing blanks would count); cast it to text[]")
		}
	}
	return nil
}

// trimmer appends to an input the text casts of its unbounded bpchar
// columns that an operator reads as keys, each once.
type trimmer struct {
	in    ir.Rel
	types []repr.T
	casts []expr.Expr
	at    map[int]int // input column -> its cast's column
}

func newTrimmer(in ir.Rel) *trimmer {
	return &trimmer{in: in, types: in.ColTypes(), at: map[int]int{}}
}

// col returns the column to read for input column c: its cast when c is
// an unbounded bpchar, else c.
func (t *trimmer) col(c int) int {
	if c < 0 || c >= len(t.types) || !unboundedBpchar(t.types[c]) {
		return c
	}
	if j, ok := t.at[c]; ok {
		return j
	}
	j := len(t.types) + len(t.casts)
	t.casts = append(t.casts, &expr.Cast{Arg: &expr.Col{Idx: c, T: t.types[c]}, To: repr.Text})
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
		if !a.Distinct || a.Col < 0 || a.Col >= len(t.types) || !unboundedBpchar(t.types[a.Col]) {
			continue
		}
		switch a.Kind {
		case expr.AggCount:
			c.Aggs[i].Col = t.col(a.Col)
		case expr.AggMin, expr.AggMax:
			c.Aggs[i].Distinct = false
		default:
			return nil, repr.Unsupported("%s(DISTINCT ...) of a bpchar value without a length (its trailing blanks would count); cast it to text or char(n)", a.Kind)
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
