package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/sql/types"
)

// mfpOp is the fused map/filter/project: for each input update it appends
// the Map expressions' values to the row (each may read the columns before
// it), keeps the update only if every Filter predicate is true (NULL and
// false drop it), and emits the Project columns with the same diff. It is
// linear, hence correct under retractions, and keeps no state.
//
// Filters run as soon as the columns they read exist, so a predicate can
// guard a later Map expression (as the planner expects when it moves
// filters before maps); a map expression error fails the Step.
type mfpOp struct {
	stateless
	spec dataflow.MFP
	// filterAt[i] is the number of map columns filter i needs to exist.
	filterAt []int
	width    int
	scratch  types.Row
}

func newMFP(spec dataflow.MFP, in []types.T) (*mfpOp, error) {
	width := len(in) + len(spec.Map)
	for _, c := range spec.Project {
		if c < 0 || c >= width {
			return nil, fmt.Errorf("MFP projects column #%d of %d", c, width)
		}
	}
	for _, f := range spec.Filter {
		if maxCol(f) >= width {
			return nil, fmt.Errorf("MFP filter %s reads a column out of range", f)
		}
	}
	spec = shareSubexprs(spec, len(in))
	o := &mfpOp{spec: spec, width: len(in) + len(spec.Map)}
	for _, f := range spec.Filter {
		need := maxCol(f) + 1 - len(in)
		o.filterAt = append(o.filterAt, max(need, 0))
		if need > len(spec.Map) {
			return nil, fmt.Errorf("MFP filter %s reads a column out of range", f)
		}
	}
	return o, nil
}

// maxCol returns the largest column index e reads, or -1.
func maxCol(e scalar.Expr) int {
	m := -1
	walkCols(e, func(c int) { m = max(m, c) })
	return m
}

// walkCols calls fn with every column index e reads.
func walkCols(e scalar.Expr, fn func(int)) {
	switch e := e.(type) {
	case *scalar.Col:
		fn(e.Idx)
	case *scalar.Call:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	case *scalar.Cast:
		walkCols(e.Arg, fn)
	case *scalar.And:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	case *scalar.Or:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	case *scalar.Not:
		walkCols(e.Arg, fn)
	case *scalar.IsNull:
		walkCols(e.Arg, fn)
	case *scalar.Case:
		for _, w := range e.Whens {
			walkCols(w.Cond, fn)
			walkCols(w.Then, fn)
		}
		if e.Else != nil {
			walkCols(e.Else, fn)
		}
	case *scalar.Coalesce:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	}
}

func (o *mfpOp) step(s *stepCtx, ins [][]Update) ([]Update, error) {
	out := make([]Update, 0, len(ins[0]))
	for _, u := range ins[0] {
		row, ok, err := o.apply(s, u.Row)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, Update{Row: row, Time: u.Time, Diff: u.Diff})
		}
	}
	return out, nil
}

// apply maps, filters and projects one row; ok is false if it is filtered out.
func (o *mfpOp) apply(s *stepCtx, in types.Row) (row types.Row, ok bool, err error) {
	r := append(o.scratch[:0], in...)
	f := 0
	for m := 0; ; m++ {
		for ; f < len(o.spec.Filter) && o.filterAt[f] <= m; f++ {
			v, err := o.spec.Filter[f].Eval(s.ctx, r)
			if err != nil || v.IsNull() || !v.Bool() {
				return nil, false, err
			}
		}
		if m == len(o.spec.Map) {
			break
		}
		v, err := o.spec.Map[m].Eval(s.ctx, r)
		if err != nil {
			return nil, false, err
		}
		r = append(r, v)
	}
	o.scratch = r
	out := s.slab.row(len(o.spec.Project))
	for i, c := range o.spec.Project {
		out[i] = r[c]
	}
	return out, true, nil
}
