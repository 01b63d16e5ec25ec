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
		if !multiRepType(types[k]) || isBpcharKey(r.Input, k) { // bpcharReduce outputs min already
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
