package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// flatMapOp calls the set-returning functions of a dataflow.FlatMap for
// each input update and emits every resulting row with the update's time
// and diff: the input row, each function's columns in lockstep (NULL past
// a shorter result), the ordinality, kept when every On predicate is true;
// with Outer, an input row with no kept row is emitted once padded with
// NULLs. Stateless and linear: a retraction recomputes the same rows from
// the same input row and retracts them. A function error fails the Step.
type flatMapOp struct {
	stateless
	spec dataflow.FlatMap
	// nIn is the input's width and width the output's.
	nIn, width int
}

func newFlatMap(spec dataflow.FlatMap, in []repr.T) (*flatMapOp, error) {
	width := len(expr.TableCallTypes(spec.Funcs, spec.Ordinality, in))
	for _, c := range spec.Funcs {
		for _, a := range c.Args {
			if maxCol(a) >= len(in) {
				return nil, fmt.Errorf("FlatMap argument %s reads a column out of range", a)
			}
		}
	}
	for _, p := range spec.On {
		if maxCol(p) >= width {
			return nil, fmt.Errorf("FlatMap predicate %s reads a column out of range", p)
		}
	}
	return &flatMapOp{spec: spec, nIn: len(in), width: width}, nil
}

func (o *flatMapOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	out := make([]repr.Update, 0, len(ins[0]))
	for _, u := range ins[0] {
		if err := s.poll(); err != nil {
			return nil, err
		}
		n := len(out)
		emit := func(r repr.Row) { out = append(out, repr.Update{Row: r, Time: u.Time, Diff: u.Diff}) }
		var err error
		if len(o.spec.Funcs) == 1 {
			err = o.expandOne(s, u.Row, emit)
		} else {
			err = o.expand(s, u.Row, emit)
		}
		if err != nil {
			return nil, err
		}
		if len(out) == n && o.spec.Outer {
			r := s.slab.row(o.width)
			copy(r, u.Row)
			emit(r)
		}
	}
	return out, nil
}

// expand emits the output rows of one input row (before Outer padding).
func (o *flatMapOp) expand(s *stepCtx, in repr.Row, emit func(repr.Row)) error {
	results := make([][]repr.Row, len(o.spec.Funcs))
	n := 0
	for i, c := range o.spec.Funcs {
		rows, err := c.Eval(s.ctx, in)
		if err != nil {
			return err
		}
		results[i], n = rows, max(n, len(rows))
	}
	for k := 0; k < n; k++ {
		r := o.zip(s, in, results, k)
		ok, err := o.accept(s, r)
		if err != nil {
			return err
		}
		if ok {
			emit(r)
		}
	}
	return nil
}

// expandOne is expand for a single function, building each output row
// once, in the step's slab, as the function produces it.
func (o *flatMapOp) expandOne(s *stepCtx, in repr.Row, emit func(repr.Row)) error {
	k := 0
	return o.spec.Funcs[0].Run(s.ctx, in, func(vals []repr.Datum) error {
		if err := s.poll(); err != nil {
			return err
		}
		k++
		r := s.slab.row(o.width)
		copy(r, in)
		copy(r[o.nIn:], vals)
		if o.spec.Ordinality {
			r[o.width-1] = repr.NewInt(int64(k))
		}
		ok, err := o.accept(s, r)
		if ok {
			emit(r)
		}
		return err
	})
}

// zip builds output row k: the input, each function's k-th row (NULLs
// past its end), then the ordinality k+1.
func (o *flatMapOp) zip(s *stepCtx, in repr.Row, results [][]repr.Row, k int) repr.Row {
	r := s.slab.row(o.width)
	at := copy(r, in)
	for i, c := range o.spec.Funcs {
		if k < len(results[i]) {
			copy(r[at:], results[i][k])
		}
		at += len(c.Func.Cols)
	}
	if o.spec.Ordinality {
		r[at] = repr.NewInt(int64(k + 1))
	}
	return r
}

// accept reports whether every On predicate is true over r.
func (o *flatMapOp) accept(s *stepCtx, r repr.Row) (bool, error) {
	for _, p := range o.spec.On {
		v, err := p.Eval(s.ctx, r)
		if err != nil || v.IsNull() || !v.Bool() {
			return false, err
		}
	}
	return true, nil
}
