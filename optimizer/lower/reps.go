package lower

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// multiRepType reports whether values of type t may be equal under = but
// print differently (repr.MultiRep): numerics (2 and 2.00), floats (-0
// and 0), intervals ('1 day' and '24 hours'), jsonb (1.0 and 1), and
// arrays and records that may hold them.
func multiRepType(t repr.T) bool {
	switch t.Family {
	case repr.FamNumeric, repr.FamFloat, repr.FamInterval, repr.FamJSONB, repr.FamRecord:
		return true
	case repr.FamArray:
		switch t.Elem {
		case repr.FamNumeric, repr.FamFloat, repr.FamInterval, repr.FamJSONB, repr.FamRecord:
			return true
		}
	}
	return false
}

// repKeys rewrites a Reduce (GROUP BY, DISTINCT, UNION, IN (subquery))
// whose key has a column of a multiRepType so that the group's output
// value of that column is min(column), not the key's value: the key
// encoding folds 2 and 2.00 into one group, as = does, and the group kept
// the first value it saw, which stayed in the output after that row was
// deleted (and a recomputation, seeing other rows first, showed another).
// min's multiset keys values exactly (repr.AppendKeyExact), so min is the
// least representation the group holds (in the order of the exact key's
// suffix: 2 before 2.0 before 2.00), a value of the group whatever the
// order of arrival:
// PostgreSQL shows one of the group's values too (the first it reads).
// It returns nil when r needs no rewrite or is one (done holds those).
func repKeys(r *ir.Reduce, done map[*ir.Reduce]bool) *ir.Rel {
	if done[r] {
		return nil
	}
	types := r.Input.ColTypes()
	c := *r
	c.Aggs = append([]expr.Agg(nil), r.Aggs...)
	nk, na := len(r.Key), len(r.Aggs)
	cols := make([]int, 0, nk+na)
	for i, k := range r.Key {
		if !multiRepType(types[k]) || isBpcharKey(r.Input, k) || // bpcharReduce outputs min already
			fixedScale(r.Input, k) {
			cols = append(cols, i)
			continue
		}
		cols = append(cols, nk+len(c.Aggs))
		c.Aggs = append(c.Aggs, expr.Agg{Kind: expr.AggMin, Col: k, T: types[k]})
	}
	if len(c.Aggs) == na {
		return nil
	}
	for j := range na {
		cols = append(cols, nk+j)
	}
	done[&c] = true
	var out ir.Rel = ir.NewProject(&c, cols...)
	return &out
}

// fixedScale reports whether every value of column c of rel is a numeric
// of one display scale, so that values equal under = print alike and a
// group's key value needs no min: a stored collection's numeric(p,s)
// column (every write, COPY, cast and decoder rounds its values to scale s
// with repr's fitNumeric, as PostgreSQL's typmod does, and NaN has one
// form), passed on unchanged by the operators that copy columns (a Map's
// plain column reference; outer joins add only NULLs). A value computed
// from one (a sum, a product, a CASE) is not trusted: its type's typmod
// may not bind its values. TPC-H's GROUP BY o_totalprice (Q18) and
// c_acctbal (Q10) are such columns; the min cost BenchmarkReduceNumericKey
// measures (a multiset entry per group and an exact key per row).
func fixedScale(rel ir.Rel, c int) bool {
	switch r := rel.(type) {
	case *ir.Get:
		t := r.Types[c]
		return t.Family == repr.FamNumeric && t.Precision > 0
	case *ir.Project:
		return fixedScale(r.Input, r.Cols[c])
	case *ir.Filter:
		return fixedScale(r.Input, c)
	case *ir.Map:
		if n := ir.Arity(r.Input); c >= n {
			col, ok := r.Exprs[c-n].(*expr.Col)
			return ok && col.Idx < c && fixedScale(r, col.Idx)
		}
		return fixedScale(r.Input, c)
	case *ir.Join:
		if n := ir.Arity(r.Left); c >= n {
			return fixedScale(r.Right, c-n)
		}
		return fixedScale(r.Left, c)
	case *ir.Reduce:
		return c < len(r.Key) && fixedScale(r.Input, r.Key[c])
	case *ir.TopK:
		return c < ir.Arity(r.Input) && fixedScale(r.Input, c)
	case *ir.Negate:
		return fixedScale(r.Input, c)
	case *ir.Shared:
		return fixedScale(r.Input, c)
	case *ir.Threshold:
		return fixedScale(r.Input, c)
	case *ir.Union:
		for _, in := range r.Inputs {
			if !fixedScale(in, c) {
				return false
			}
		}
		return len(r.Inputs) > 0
	}
	return false
}
