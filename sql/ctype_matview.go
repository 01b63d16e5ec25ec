package sql

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/parse"
)

// matviewKeepsPlan reports whether materialized view x keeps running its
// stored plan, and its state stays valid, when the fields of the
// composite type o change to those of its copy in shadow (ALTER TYPE ...
// ADD, DROP or RENAME ATTRIBUTE). Its query, planned again under shadow,
// must give the same columns and dataflow (a field read by position,
// record_field(#c, i, ...), reads the same field: an attribute added at
// the end or renamed, or dropped after the fields it reads), and no
// operator's state nor the view's rows may hold values of o, so the tables' values rewritten to the
// new fields (commitTypeChange) flow through unchanged. PostgreSQL keeps
// such a view too (it reads fields by number); a view whose query names
// the type (a cast would now build the new fields) or that keeps values
// of the type is left to typeInUse's refusal.
//
// nx is x, or x with the stored query a RENAME ATTRIBUTE rewrote
// (renameFieldInMatviews), which is planned under shadow instead.
func (e *Engine) matviewKeepsPlan(x, nx, o *Object, shadow *Catalog) bool {
	if x.Kind != planner.RelMaterializedView || x.Plan == "" || viewNamesType(x, o) {
		return false
	}
	plan, err := dataflow.Parse(x.Plan)
	if err != nil {
		return false
	}
	if !e.stateFreeOf(plan, typeOID(o)) {
		return false
	}
	// Plan with the sizes the stored plan saw (collectionSize).
	e.planRows = x.PlanRows
	if e.planRows == nil {
		e.planRows = map[uint64]int64{}
	}
	defer func() { e.planRows = nil }()
	cols, _, err := e.planText(x, e.cat)
	if err != nil {
		return false
	}
	cols2, flow2, err := e.planText(nx, shadow)
	return err == nil && cols == cols2 && flow2 == x.Plan
}

// stateFreeOf reports whether values holding the composite type oid pass
// only through stateless nodes of plan: a Source or MFP may output them
// if the plan's output does not, and its consumers are MFPs or Reduces
// that neither group nor aggregate by those columns (a Reduce keeps only
// its keys and its aggregates' states).
func (e *Engine) stateFreeOf(plan *dataflow.Plan, oid uint32) bool {
	consumers := make([][]int, len(plan.Nodes))
	for i, n := range plan.Nodes {
		for _, in := range n.Inputs {
			consumers[in] = append(consumers[in], i)
		}
	}
	for i, n := range plan.Nodes {
		var carry []int
		for c, t := range n.Types {
			if e.cat.typeContains(t, oid) {
				carry = append(carry, c)
			}
		}
		if len(carry) == 0 {
			continue
		}
		switch n.Op.(type) {
		case dataflow.Source, dataflow.MFP:
		default:
			return false
		}
		if i == plan.Output {
			return false
		}
		for _, j := range consumers[i] {
			if !readsNone(plan.Nodes[j].Op, carry) {
				return false
			}
		}
	}
	return true
}

// readsNone reports whether operator op, fed rows whose columns cols hold
// values of a changed composite type, keeps none of them in its state.
func readsNone(op dataflow.Op, cols []int) bool {
	switch op := op.(type) {
	case dataflow.MFP:
		return true // its own output is checked as a node
	case dataflow.Reduce:
		for _, k := range op.Key {
			if slices.Contains(cols, k) {
				return false
			}
		}
		return !slices.ContainsFunc(op.Aggs, func(a expr.Agg) bool { return aggReads(a, cols) })
	}
	return false
}

// aggReads reports whether aggregate a reads one of the columns cols (its
// argument, a binary aggregate's second argument, an ORDER BY column).
func aggReads(a expr.Agg, cols []int) bool {
	d := a.Kind.Def()
	switch {
	case slices.ContainsFunc(a.Order, func(s expr.SortCol) bool { return slices.Contains(cols, s.Col) }):
		return true
	case d.Shape == expr.AggStar || d.Shape == expr.AggOrderedSet:
		return false
	}
	return slices.Contains(cols, a.Col) || d.Shape == expr.AggBinary && slices.Contains(cols, a.Sep)
}

// typeUsers returns the views and materialized views that use the
// composite type o or read a table with a column of it (typeInUse's).
func (e *Engine) typeUsers(o *Object) []*Object {
	d := e.cat.typeDependents(o)
	var out []*Object
	for _, v := range d.views {
		out = append(out, e.dropSet(v)...)
	}
	for _, t := range d.order {
		out = append(out, e.dropSet(t)[1:]...)
	}
	return out
}

// renameFieldInMatviews rewrites the stored queries of the materialized
// views using the composite type o that select its field from by name
// ((v).from) to select to, keeping a select-list entry's output name
// ((v).from becomes (v).to AS from), as PostgreSQL's views keep reading
// the field by number under its new name. It returns the rewritten copies
// by id; matviewKeepsPlan then proves each plans as before (a field of
// another type called from makes the rewritten query fail to plan or
// plan differently, and the rename is refused).
func (e *Engine) renameFieldInMatviews(o *Object, from, to string) (map[uint64]*Object, error) {
	out := map[uint64]*Object{}
	for _, x := range e.typeUsers(o) {
		if x.Kind != planner.RelMaterializedView || !viewNamesField(x, from) {
			continue
		}
		n, err := parseOne(x.SQL)
		if err != nil {
			return nil, err
		}
		walkProto(n, func(m proto.Message) {
			switch m := m.(type) {
			case *pg.ResTarget:
				if ind := m.Val.GetAIndirection(); ind != nil && m.Name == "" && len(ind.Indirection) > 0 &&
					ind.Indirection[len(ind.Indirection)-1].GetString_().GetSval() == from {
					m.Name = from
				}
			case *pg.A_Indirection:
				for i, f := range m.Indirection {
					if f.GetString_().GetSval() == from {
						m.Indirection[i] = pg.MakeStrNode(to)
					}
				}
			}
		})
		text, err := parse.Deparse(n)
		if err != nil {
			return nil, err
		}
		nx := x.clone()
		nx.SQL = text
		if nx.rel, err = nx.relation(); err != nil {
			return nil, err
		}
		out[x.ID] = nx
	}
	return out, nil
}
