package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// withTies applies FETCH FIRST n ROWS WITH TIES (after OFFSET m) to p:
// the rows up to the (m+n)-th in ORDER BY order and every row tied with
// it, less the first m. The (m+n)-th row is a TopK of one row (per outer
// value), left-joined to every row, which is kept when it sorts no later
// than that row, or when there is none (fewer rows); a TopK of the first m
// rows is subtracted (its rows are all kept ones). p's rel then holds the
// result, with its ORDER BY and no limit. State: the two TopKs' input
// multisets and the join's arrangements.
func (b *builder) withTies(p *planned) error {
	if name := sequenceCallAtTop(p.rel); name != "" {
		return repr.Unsupported("%s() in the select list of FETCH FIRST ... WITH TIES", name)
	}
	key := limitKey(p)
	nth := &ir.TopK{Input: p.rel, Key: key, Order: p.order, Limit: 1, Offset: p.offset + p.limit - 1}
	w := ir.Arity(p.rel)
	marked := ir.NewMap(nth, boolLit(true))
	on := b.nullSafeKeys(p.rel, marked, key, key)
	if len(on) == 0 {
		on = []expr.Expr{boolLit(true)}
	}
	joined := ir.NewJoin(ir.JoinLeft, p.rel, marked, on...)
	ts := joined.ColTypes()
	notLater, err := b.sortsNoLater(p.order, ts, w)
	if err != nil {
		return err
	}
	none := &expr.IsNull{Arg: &expr.Col{Idx: 2 * w, T: repr.Bool}}
	rel := ir.NewProject(ir.NewFilter(joined, or(none, notLater)), identityCols(w)...)
	if p.offset > 0 {
		first := &ir.TopK{Input: p.rel, Key: key, Order: p.order, Limit: p.offset}
		rel = ir.NewProject(ir.NewUnion(rel, ir.NewNegate(first)), identityCols(w)...)
	}
	p.rel, p.limit, p.offset, p.atMostOne = rel, -1, 0, false
	return nil
}

// sortsNoLater builds whether the row in columns [0, w) sorts no later
// than the row in [w, 2w) by order: lexicographically, each column
// before (per its direction and NULLs placement) or, equal (NULL-safe),
// deciding by the next.
func (b *builder) sortsNoLater(order []expr.SortCol, ts []repr.T, w int) (expr.Expr, error) {
	ec := &ectx{b: b}
	var res expr.Expr
	for i := len(order) - 1; i >= 0; i-- {
		o := order[i]
		v, t := &expr.Col{Idx: o.Col, T: ts[o.Col]}, &expr.Col{Idx: w + o.Col, T: ts[w+o.Col]}
		op := "<"
		if o.Desc {
			op = ">"
		}
		cmp, err := ec.op(op, -1, v, t)
		if err != nil {
			return nil, err
		}
		eq, err := ec.notDistinct(v, t, -1)
		if err != nil {
			return nil, err
		}
		// A NULL sorts after every value (NULLS LAST) or before (FIRST).
		early, late := &expr.IsNull{Arg: v, Negate: true}, &expr.IsNull{Arg: t}
		if o.NullsFirst {
			early, late = &expr.IsNull{Arg: v}, &expr.IsNull{Arg: t, Negate: true}
		}
		before := or(and(early, late), &expr.Coalesce{Args: []expr.Expr{cmp, boolLit(false)}, T: repr.Bool})
		if res == nil {
			res = or(before, eq) // the last column: equal is no later
		} else {
			res = or(before, and(eq, res))
		}
	}
	return res, nil
}

// sequenceCallAtTop returns the name of a sequence-advancing function
// (nextval, setval) the select list of rel (its top Map, under a Project
// or not) calls, or "". PostgreSQL draws it for the rows its Limit pulls:
// the kept ones, the OFFSET ones and the first row after the ties, which
// withTies, computing every row, cannot count; refusing it is better than
// advancing the sequence a different number of times.
func sequenceCallAtTop(rel ir.Rel) string {
	if p, ok := rel.(*ir.Project); ok {
		rel = p.Input
	}
	m, ok := rel.(*ir.Map)
	if !ok {
		return ""
	}
	name := ""
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		if c, ok := e.(*expr.Call); ok && (c.Fn.Name == "nextval" || c.Fn.Name == "setval") {
			name = c.Fn.Name
		}
		for _, k := range expr.Children(e) {
			walk(k)
		}
	}
	for _, e := range m.Exprs {
		walk(e)
	}
	return name
}
