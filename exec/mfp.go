package exec

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
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
	// maps and filters are spec's expressions as evaluated
	// (expr.Specialize), in spec's order.
	maps, filters []expr.Expr
	// inCols are the input columns the expressions read, copied in this
	// order before the map columns (nil: the whole input row).
	inCols  []int
	width   int
	scratch repr.Row
	// kept is step's scratch for the updates that pass the filters.
	kept []repr.Update
	// volatile is set when an expression calls a volatile function
	// (nextval, random): a row inserted n times is then evaluated n times,
	// as PostgreSQL evaluates it once per row.
	volatile bool
}

func newMFP(spec dataflow.MFP, in []repr.T) (*mfpOp, error) {
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
	nIn := len(in)
	var inCols []int
	if len(spec.Map) > 0 {
		spec, inCols = narrowInput(spec, nIn)
		if inCols != nil {
			nIn = len(inCols)
		}
	}
	o := &mfpOp{spec: spec, inCols: inCols, width: nIn + len(spec.Map)}
	for _, f := range spec.Filter {
		need := maxCol(f) + 1 - nIn
		o.filterAt = append(o.filterAt, max(need, 0))
	}
	o.maps, o.filters = specializeAll(spec.Map), specializeAll(spec.Filter)
	o.volatile = slices.ContainsFunc(spec.Map, expr.IsVolatile) || slices.ContainsFunc(spec.Filter, expr.IsVolatile)
	return o, nil
}

// specializeAll returns es as evaluated (expr.Specialize), a new slice.
func specializeAll(es []expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = expr.Specialize(e)
	}
	return out
}

// narrowInput returns spec rewritten over only the input columns it reads
// (inCols, in order; empty, not nil, when it reads none), or spec and nil
// if it reads them all: apply then copies those columns, not the whole
// input row, before the map columns.
func narrowInput(spec dataflow.MFP, nIn int) (dataflow.MFP, []int) {
	used := mfpReads(spec, nIn)
	pos := make([]int, nIn)
	inCols := make([]int, 0, nIn) // not nil when it reads none (SELECT 1 FROM t)
	for c, u := range used {
		if u {
			pos[c] = len(inCols)
			inCols = append(inCols, c)
		}
	}
	if len(inCols) == nIn {
		return spec, nil
	}
	m := func(c int) int {
		if c < nIn {
			return pos[c]
		}
		return c - nIn + len(inCols)
	}
	out := dataflow.MFP{Map: make([]expr.Expr, len(spec.Map)), Filter: make([]expr.Expr, len(spec.Filter)), Project: make([]int, len(spec.Project))}
	for i, e := range spec.Map {
		out.Map[i] = expr.Remap(e, m)
	}
	for i, f := range spec.Filter {
		out.Filter[i] = expr.Remap(f, m)
	}
	for i, c := range spec.Project {
		out.Project[i] = m(c)
	}
	return out, inCols
}

// maxCol returns the largest column index e reads, or -1.
func maxCol(e expr.Expr) int {
	m := -1
	walkCols(e, func(c int) { m = max(m, c) })
	return m
}

// walkCols calls fn with every column index e reads.
func walkCols(e expr.Expr, fn func(int)) {
	switch e := e.(type) {
	case *expr.Col:
		fn(e.Idx)
	case *expr.Call:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	case *expr.Cast:
		walkCols(e.Arg, fn)
	case *expr.And:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	case *expr.Or:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	case *expr.Not:
		walkCols(e.Arg, fn)
	case *expr.IsNull:
		walkCols(e.Arg, fn)
	case *expr.Case:
		for _, w := range e.Whens {
			walkCols(w.Cond, fn)
			walkCols(w.Then, fn)
		}
		if e.Else != nil {
			walkCols(e.Else, fn)
		}
	case *expr.Coalesce:
		for _, a := range e.Args {
			walkCols(a, fn)
		}
	}
}

// step applies the MFP to every input update. The output is sized for
// every input update unless filters may drop some and the batch is at
// most maxKeptUpdates: then the updates that pass collect in the
// operator's scratch and are copied out at their exact count, so a
// selective filter (most views filter their inputs) allocates for the
// updates it keeps, not for every update it reads.
func (o *mfpOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	if len(o.spec.Filter) == 0 || len(ins[0]) > maxKeptUpdates {
		return o.collect(s, ins[0], make([]repr.Update, 0, len(ins[0])))
	}
	kept, err := o.collect(s, ins[0], o.kept[:0])
	out := slices.Clone(kept)
	clear(kept) // keeps no rows alive
	o.kept = kept
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxKeptUpdates bounds an MFP's scratch for the updates that pass its
// filters (grown as needed: at most about 160 KiB).
const maxKeptUpdates = 4096

// collect appends the updates of ins that pass to out.
func (o *mfpOp) collect(s *stepCtx, ins []repr.Update, out []repr.Update) ([]repr.Update, error) {
	for _, u := range ins {
		if err := s.poll(); err != nil {
			return nil, err
		}
		if o.volatile && u.Diff > 1 {
			var err error
			if out, err = o.collectEach(s, u, out); err != nil {
				return nil, err
			}
			continue
		}
		row, ok, err := o.apply(s, u.Row)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, repr.Update{Row: row, Time: u.Time, Diff: u.Diff})
		}
	}
	return out, nil
}

// collectEach evaluates the copies of an inserted row one by one (a
// volatile expression draws once per copy).
func (o *mfpOp) collectEach(s *stepCtx, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	for range u.Diff {
		if err := s.poll(); err != nil {
			return nil, err
		}
		row, ok, err := o.apply(s, u.Row)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, repr.Update{Row: row, Time: u.Time, Diff: 1})
		}
	}
	return out, nil
}

// apply maps, filters and projects one row; ok is false if it is filtered out.
func (o *mfpOp) apply(s *stepCtx, in repr.Row) (row repr.Row, ok bool, err error) {
	r, ok, err := o.eval(s, in)
	if !ok || err != nil {
		return nil, false, err
	}
	out := s.slab.row(len(o.spec.Project))
	for i, c := range o.spec.Project {
		out[i] = r[c]
	}
	return out, true, nil
}

// eval maps and filters one row: ok is false if it is filtered out, else
// r holds the input columns the expressions read (all of them when
// inCols is nil) and then the map columns, the row Project indexes. r is
// the operator's scratch (or in itself, without Map expressions), valid
// until the next call.
func (o *mfpOp) eval(s *stepCtx, in repr.Row) (r repr.Row, ok bool, err error) {
	r = o.scratch[:0]
	switch {
	case len(o.spec.Map) == 0:
		r = in // filters and projection read the input in place
	case o.inCols != nil:
		for _, c := range o.inCols {
			r = append(r, in[c])
		}
	default:
		r = append(r, in...)
	}
	f := 0
	for m := 0; ; m++ {
		for ; f < len(o.spec.Filter) && o.filterAt[f] <= m; f++ {
			v, err := o.filters[f].Eval(s.ctx, r)
			if err != nil || v.IsNull() || !v.Bool() {
				return nil, false, err
			}
		}
		if m == len(o.spec.Map) {
			break
		}
		v, err := o.maps[m].Eval(s.ctx, r)
		if err != nil {
			return nil, false, err
		}
		r = append(r, v)
	}
	if len(o.spec.Map) > 0 {
		o.scratch = r
	}
	return r, true, nil
}
