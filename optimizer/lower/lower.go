package lower

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Lower turns an IR tree into an exec dataflow. Chains of Map, Filter and
// Project fuse into MFP nodes, Join.On is split into equi-join keys and a
// residual, Values becomes Constant and Get becomes Source. A subtree that
// appears several times in the tree (the same pointer, as decorrelation
// produces, or structurally equal, see dag) is lowered once and its node
// shared; a fused chain stops below such a subtree.
func Lower(rel ir.Rel) (*dataflow.Plan, error) {
	l := &lowerer{plan: &dataflow.Plan{}, memo: map[ir.Rel]int{}, dag: newDAG()}
	out, err := l.lower(l.dag.intern(rel))
	if err != nil {
		return nil, err
	}
	l.plan.Output = out
	return l.plan, nil
}

// lowerer accumulates the plan's nodes in topological order.
type lowerer struct {
	plan *dataflow.Plan
	memo map[ir.Rel]int
	dag  *dag
	// loop is the Iterate whose body is being lowered (nil: none).
	loop *loopScope
	// repDone holds the Reduces repKeys made (reps.go).
	repDone map[*ir.Reduce]bool
}

// add appends a node and returns its index.
func (l *lowerer) add(op dataflow.Op, ts []repr.T, inputs ...int) int {
	l.plan.Nodes = append(l.plan.Nodes, dataflow.Node{Op: op, Inputs: inputs, Types: ts})
	return len(l.plan.Nodes) - 1
}

// lower returns the index of the node producing rel, lowering it once.
func (l *lowerer) lower(rel ir.Rel) (int, error) {
	memo := l.memo
	if l.loop != nil && l.loop.readsVar(rel) {
		memo = l.loop.memo
	}
	if i, ok := memo[rel]; ok {
		return i, nil
	}
	i, err := l.lowerNode(rel)
	if err != nil {
		return 0, err
	}
	memo[rel] = i
	return i, nil
}

func (l *lowerer) lowerNode(rel ir.Rel) (int, error) {
	if rw, err := bpcharKeys(rel); err != nil || rw != nil {
		if err != nil {
			return 0, err
		}
		return l.lower(rw)
	}
	switch r := rel.(type) {
	case *ir.Get:
		src := dataflow.Source{Collection: r.ID, Name: r.Name, HasEventTime: r.HasEventTime, EventTimeCol: r.EventTimeCol,
			Retracts: r.HasEventTime && !r.AppendOnly && !r.DeletionsChecked}
		return l.add(src, r.Types), nil
	case *ir.Values:
		return l.lowerValues(r), nil
	case *ir.Map, *ir.Filter, *ir.Project:
		return l.lowerMFP(rel)
	case *ir.Join:
		return l.lowerJoin(r)
	case *ir.Reduce:
		if l.repDone == nil {
			l.repDone = map[*ir.Reduce]bool{}
		}
		if rw := repKeys(r, l.repDone); rw != nil {
			return l.lower(*rw)
		}
		return l.unary(dataflow.Reduce{Key: r.Key, Aggs: r.Aggs, EmitOnClose: r.EmitOnClose,
			AppendOnly: ir.AppendOnly(r.Input)}, r)
	case *ir.TopK:
		return l.unary(dataflow.TopK{Key: r.Key, Order: r.Order, Limit: r.Limit, Offset: r.Offset, Rank: r.Rank,
			AppendOnly: ir.AppendOnly(r.Input)}, r)
	case *ir.SessionWindow:
		return l.unary(dataflow.SessionWindow{Key: r.Key, TimeCol: r.TimeCol, Gap: r.Gap}, r)
	case *ir.Window:
		return l.unary(dataflow.Window{Key: r.Key, Order: r.Order, Funcs: r.Funcs}, r)
	case *ir.FlatMap:
		return l.unary(dataflow.FlatMap{Funcs: r.Funcs, Ordinality: r.Ordinality, Outer: r.Outer, On: r.On}, r)
	case *ir.Negate:
		return l.unary(dataflow.Negate{}, r)
	case *ir.Threshold:
		return l.unary(dataflow.Threshold{}, r)
	case *ir.TemporalFilter:
		return l.unary(dataflow.TemporalFilter{Lower: r.Lower, Upper: r.Upper}, r)
	case *ir.Iterate:
		return l.lowerIterate(r)
	case *ir.Shared:
		return l.lower(r.Input)
	case *ir.LoopVar:
		if l.loop == nil || l.loop.id != r.ID {
			// The reference crosses Iterates (a WITH RECURSIVE inside
			// the recursive term of another, reading the outer one or
			// read from outside its own loop): exec's loops do not nest
			// that way.
			return 0, repr.Unsupported("recursive query %q referenced across the recursion of another recursive query", r.Name)
		}
		return l.loop.v, nil
	case *ir.Union:
		ins := make([]int, len(r.Inputs))
		for i, in := range r.Inputs {
			var err error
			if ins[i], err = l.lower(in); err != nil {
				return 0, err
			}
		}
		return l.add(dataflow.Union{}, r.ColTypes(), ins...), nil
	}
	return 0, fmt.Errorf("lower: unknown operator %T", rel)
}

// unary lowers r's single input and adds op over it.
func (l *lowerer) unary(op dataflow.Op, r ir.Rel) (int, error) {
	in, err := l.lower(r.Children()[0])
	if err != nil {
		return 0, err
	}
	return l.add(op, r.ColTypes(), in), nil
}

// lowerValues emits the literal rows as one Constant. Rows with computed
// expressions become a one-row Constant (with no columns) under an MFP that
// maps them, so evaluation happens in the dataflow (with its Ctx) and data
// errors surface at run time, as in PostgreSQL; the pieces are unioned.
func (l *lowerer) lowerValues(v *ir.Values) int {
	var lits []repr.Row
	var parts []int
	for _, row := range v.Rows {
		if r, ok := literalRow(row); ok {
			lits = append(lits, r)
			continue
		}
		unit := l.add(dataflow.Constant{Rows: []repr.Row{{}}}, nil)
		parts = append(parts, l.add(dataflow.MFP{Map: row, Project: identity(len(row))}, v.Types, unit))
	}
	if len(lits) > 0 || len(parts) == 0 {
		parts = append(parts, l.add(dataflow.Constant{Rows: lits}, v.Types))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return l.add(dataflow.Union{}, v.Types, parts...)
}

// literalRow returns the row's values when every expression is a literal.
func literalRow(row []expr.Expr) (repr.Row, bool) {
	out := make(repr.Row, len(row))
	for i, e := range row {
		lit, ok := e.(*expr.Lit)
		if !ok {
			return nil, false
		}
		out[i] = lit.D
	}
	return out, true
}

// identity returns 0, 1, ..., n-1.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
