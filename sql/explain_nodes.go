package sql

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
)

// The plan nodes of the stateful and multi-input dataflow operators (see
// explain_build.go for the mapping and the estimates).

// sumTotal is the total cost of nodes.
func sumTotal(nodes []*planNode) float64 {
	t := 0.0
	for _, n := range nodes {
		t += n.total
	}
	return t
}

// aggregate is a Reduce: Aggregate (no key) or HashAggregate with its
// Group Key; DISTINCT is a HashAggregate without aggregates, as in
// PostgreSQL.
func (b *planBuilder) aggregate(i int, op dataflow.Reduce) *planNode {
	kids := b.children(i)
	in := kids[0].rows
	pn := &planNode{typ: "Aggregate", title: "Aggregate", children: kids, rows: 1,
		head: []planProp{{"Strategy", "Plain"}, {"Partial Mode", "Simple"}}}
	if len(op.Key) > 0 {
		pn.title, pn.rows = "HashAggregate", min(in, 200)
		pn.head[0].val = "Hashed"
		pn.tail = append(pn.tail, planProp{"Group Key", colLabels(op.Key, b.in(i, 0))})
	}
	pn.startup = kids[0].total + float64(in)*0.0025*float64(len(op.Key)+len(op.Aggs))
	pn.total = pn.startup + float64(pn.rows)*0.01
	if op.EmitOnClose {
		pn.tail = append(pn.tail, planProp{"Emit", "on window close"})
	}
	if op.AppendOnly {
		pn.tail = append(pn.tail, planProp{"Append Only", true})
	}
	return pn
}

// joinTypes are the JSON Join Types and the text titles' words of the
// join kinds.
var joinTypes = map[dataflow.JoinKind][2]string{
	dataflow.InnerJoin: {"Inner", ""}, dataflow.LeftJoin: {"Left", " Left"},
	dataflow.RightJoin: {"Right", " Right"}, dataflow.FullJoin: {"Full", " Full"},
}

// join is a Join: a Hash Join on its key (Hash Cond) with its residual
// (Join Filter), a Nested Loop without a key, and a Nested Loop over an
// Index Scan when one side is read from a shared arrangement. Costs, in
// PostgreSQL's units over the inputs' estimates: a Hash Join builds its
// inner input's table (0.01 a row and 0.0025 per key column) before its
// first row, then probes it with each outer row; a Nested Loop runs its
// inner Index Scan once per outer row, or without a key compares every
// pair; each output row costs 0.01 and each residual 0.0025 more.
func (b *planBuilder) join(i int, op dataflow.Join) *planNode {
	kids := b.children(i)
	l, r := b.in(i, 0), b.in(i, 1)
	var conds, swapped []string
	for k := range op.LeftKey {
		conds = append(conds, "("+l.col(op.LeftKey[k])+" = "+r.col(op.RightKey[k])+")")
		swapped = append(swapped, "("+r.col(op.RightKey[k])+" = "+l.col(op.LeftKey[k])+")")
	}
	jt := joinTypes[op.Kind]
	pn := &planNode{typ: "Hash Join", title: "Hash" + jt[1] + " Join", children: kids,
		head: []planProp{{"Join Type", jt[0]}, {"Inner Unique", false}}}
	pn.rows = equiJoinRows(kids[0], kids[1])
	perPair := float64(len(op.Residual)) * 0.0025
	switch {
	case len(conds) == 0:
		pn.typ, pn.title = "Nested Loop", "Nested Loop"+jt[1]
		if jt[1] != "" {
			pn.title += " Join"
		}
		pn.rows = kids[0].rows * kids[1].rows
		pn.startup = kids[0].startup + kids[1].startup
		pn.total = sumTotal(kids) + float64(kids[0].rows*kids[1].rows)*perPair
	case op.Shared != nil:
		// The Index Cond names the indexed (inner) side first.
		if op.Shared.Side == 1 {
			conds = swapped
		}
		b.sharedSide(pn, op.Shared, conds)
	default:
		hashJoin(pn, op, conds, swapped)
	}
	pn.total += float64(pn.rows) * (0.01 + perPair)
	if len(op.Residual) > 0 {
		var res []string
		for _, x := range op.Residual {
			res = append(res, pgExpr(x, b.labels[i]))
		}
		pn.tail = append(pn.tail, planProp{"Join Filter", conjunction(res)})
	}
	if op.AppendOnly {
		pn.tail = append(pn.tail, planProp{"Append Only", true})
	}
	return pn
}

// equiJoinRows estimates an equi-join's rows: its larger input's before
// their filters, scaled by what each input's filters keep (an input that
// is not a filtered scan keeps all of its rows).
func equiJoinRows(l, r *planNode) int64 {
	unfiltered := func(n *planNode) float64 { return float64(max(n.base, n.rows, 1)) }
	ul, ur := unfiltered(l), unfiltered(r)
	f := max(ul, ur) * (float64(l.rows) / ul) * (float64(r.rows) / ur)
	return max(1, int64(math.Round(f)))
}

// hashJoin makes join pn a Hash Join whose inner input, under a Hash
// node, is the smaller one, as PostgreSQL hashes the smaller side: when
// that is the left input the inputs change places, a left join becoming
// a Hash Right Join and a right join a Hash Left Join. Its Hash Cond
// names the outer side first (conds, or swapped after a change).
func hashJoin(pn *planNode, op dataflow.Join, conds, swapped []string) {
	if pn.children[1].rows > pn.children[0].rows {
		pn.children[0], pn.children[1] = pn.children[1], pn.children[0]
		conds = swapped
		flip := map[dataflow.JoinKind]dataflow.JoinKind{dataflow.LeftJoin: dataflow.RightJoin, dataflow.RightJoin: dataflow.LeftJoin}
		if k, ok := flip[op.Kind]; ok {
			jt := joinTypes[k]
			pn.title, pn.head[0].val = "Hash"+jt[1]+" Join", jt[0]
		}
	}
	outer, inner := pn.children[0], pn.children[1]
	outer.parent, inner.parent = "Outer", "Outer"
	hash := &planNode{typ: "Hash", title: "Hash", parent: "Inner", children: []*planNode{inner},
		startup: inner.total, total: inner.total, rows: inner.rows, width: inner.width, output: inner.output, actual: inner.actual}
	pn.children[1] = hash
	pn.tail = append(pn.tail, planProp{"Hash Cond", conjunction(conds)})
	keys := float64(len(op.LeftKey)) * 0.0025
	pn.startup = hash.total + float64(inner.rows)*(0.01+keys)
	pn.total = pn.startup + outer.total + float64(outer.rows)*keys
}

// perLoop makes an analyzed inner Index Scan's actual rows, counted over
// every lookup (exec's shared join), the rows per loop over loops outer
// rows, rounded as PostgreSQL prints them (%.0f).
func perLoop(inner *planNode, loops int64) {
	if inner.actual < 0 || loops < 0 {
		return
	}
	inner.loops = &loops
	if loops > 0 {
		inner.actual = int64(math.RoundToEven(float64(inner.actual) / float64(loops)))
	}
}

// sharedSide turns join pn into a Nested Loop whose inner side (the one
// read from shared arrangement sh, moved second) is an Index Scan using
// that index with the join's key as its Index Cond.
//
// The Index Scan's estimates are per loop, as PostgreSQL's: the join's
// rows over the outer input's, searched for in the scanned collection
// once per outer row.
func (b *planBuilder) sharedSide(pn *planNode, sh *dataflow.SharedArrangement, conds []string) {
	pn.typ, pn.title = "Nested Loop", "Nested Loop"
	if sh.Side == 0 {
		pn.children[0], pn.children[1] = pn.children[1], pn.children[0]
		pn.children[0].parent, pn.children[1].parent = "Outer", "Inner"
	}
	outer, inner := pn.children[0], pn.children[1]
	name, kind := b.arrangement(sh.Index)
	if inner.typ == "Seq Scan" {
		rel, _ := strings.CutPrefix(inner.title, "Seq Scan on ")
		inner.typ, inner.title = kind, kind+" using "+expr.QuoteIdent(name)+" on "+rel
		inner.head = append([]planProp{{"Scan Direction", "Forward"}, {"Index Name", name}}, inner.head...)
		inner.tail = append([]planProp{{"Index Cond", conjunction(conds)}}, inner.tail...)
		inner.rows = max(1, int64(math.Round(float64(pn.rows)/float64(max(outer.rows, 1)))))
		inner.startup, inner.total = indexScanCost(inner.base, inner.rows, inner.width, len(conds), max(outer.rows, 1))
		pn.startup = outer.startup + inner.startup
		pn.total = outer.total + float64(outer.rows)*inner.total
		perLoop(inner, outer.actual)
		return
	}
	pn.tail = append(pn.tail, planProp{"Join Cond", conjunction(conds)}, planProp{"Shared Arrangement", name})
	pn.startup = inner.total
	pn.total = sumTotal(pn.children) + float64(outer.rows+inner.rows)*0.01
}

// arrangement names shared arrangement id for a scan: an index's name
// (an Index Scan), a table's primary key (its rows are kept in key
// order), or for a relation without one its name (an Eddy Arrangement
// Scan).
func (b *planBuilder) arrangement(id uint64) (name, kind string) {
	o := b.e.cat.byID[id]
	switch {
	case o == nil:
		return itoa(int(id)), "Index Scan"
	case o.Index != nil:
		return o.Name, "Index Scan"
	case len(o.PrimaryKey) > 0:
		return o.pkeyName(), "Index Scan"
	}
	return o.Name, "Arrangement Scan"
}

// deltaJoin is a DeltaJoin: Eddy's multiway join without intermediate
// state, its inputs Members, with its equalities (Join Cond), residual
// (Join Filter) and the arrangements its paths look inputs up in.
func (b *planBuilder) deltaJoin(i int, op dataflow.DeltaJoin) *planNode {
	kids := b.children(i)
	out := b.labels[i]
	var conds, res, lookups []string
	for _, p := range op.On {
		conds = append(conds, "("+out.col(p.L)+" = "+out.col(p.R)+")")
	}
	for _, x := range op.Residual {
		res = append(res, pgExpr(x, out))
	}
	for _, path := range op.Paths {
		for _, l := range path {
			where := "its own arrangement"
			if l.Shared != 0 {
				where = b.e.arrangementName(l.Shared)
			} else if l.Borrow != 0 {
				where = "an earlier Delta Join's arrangement"
				if borrowedState(b.plan, l.Borrow) == "groups" {
					where = "an Aggregate's groups"
				}
			}
			s := fmt.Sprintf("(%s) in %s", strings.Join(colLabels(l.Cols, out), ", "), where)
			if !slices.Contains(lookups, s) {
				lookups = append(lookups, s)
			}
		}
	}
	pn := &planNode{typ: "Delta Join", title: "Delta Join", children: kids, head: []planProp{{"Join Type", "Inner"}}}
	pn.tail = append(pn.tail, planProp{"Join Cond", conjunction(conds)})
	if len(res) > 0 {
		pn.tail = append(pn.tail, planProp{"Join Filter", conjunction(res)})
	}
	pn.tail = append(pn.tail, planProp{"Lookups", lookups})
	for _, k := range kids {
		pn.rows = max(pn.rows, k.rows)
	}
	pn.total = sumTotal(kids) + float64(pn.rows)*0.01*float64(len(kids))
	return pn
}

// topK is a TopK: PostgreSQL's Limit over a Sort when it has no
// partition key (ORDER BY ... LIMIT), else Eddy's TopK with its Group
// Key, Sort Key and Limit.
func (b *planBuilder) topK(i int, op dataflow.TopK) *planNode {
	kids := b.children(i)
	in := kids[0]
	keys := sortKeys(op.Order, b.in(i, 0))
	sortCost := in.total + float64(in.rows)*math.Log2(float64(in.rows)+1)*0.005
	if len(op.Key) > 0 || op.Rank {
		pn := &planNode{typ: "TopK", title: "TopK", children: kids, rows: in.rows, startup: sortCost, total: sortCost + float64(in.rows)*0.01}
		if len(op.Key) > 0 {
			pn.tail = append(pn.tail, planProp{"Group Key", colLabels(op.Key, b.in(i, 0))})
		}
		pn.tail = append(pn.tail, planProp{"Sort Key", keys})
		if op.Limit >= 0 {
			pn.tail = append(pn.tail, planProp{"Limit", op.Limit})
		}
		if op.Offset > 0 {
			pn.tail = append(pn.tail, planProp{"Offset", op.Offset})
		}
		b.finish(i, pn)
		return pn
	}
	in.parent = "Outer"
	sort := &planNode{typ: "Sort", title: "Sort", children: kids, rows: in.rows, startup: sortCost, total: sortCost + float64(in.rows)*0.01,
		tail: []planProp{{"Sort Key", keys}}}
	b.finish(i, sort)
	sort.output = b.in(i, 0)
	if b.counts != nil {
		sort.actual = b.counts[b.plan.Nodes[i].Inputs[0]]
	}
	limit := &planNode{typ: "Limit", title: "Limit", children: []*planNode{sort}, startup: sort.startup, total: sort.total}
	sort.parent = "Outer"
	limit.rows = in.rows - op.Offset
	if op.Limit >= 0 {
		limit.rows = min(limit.rows, op.Limit)
	}
	b.finish(i, limit)
	return limit
}

// other builds the remaining operators: stateless ones, scans of
// constants and functions, windows and loops.
func (b *planBuilder) other(i int) *planNode {
	n := b.plan.Nodes[i]
	switch op := n.Op.(type) {
	case dataflow.Constant:
		return b.constant(op)
	case dataflow.FlatMap:
		return b.flatMap(i, op)
	case dataflow.Variable:
		name := expr.QuoteIdent(op.Name)
		return &planNode{typ: "WorkTable Scan", title: "WorkTable Scan on " + name,
			head: []planProp{{"CTE Name", op.Name}, {"Alias", op.Name}}, rows: 100, total: 1}
	case dataflow.Fixpoint:
		body := b.build(n.Inputs[1])
		body.parent = "Outer"
		return &planNode{typ: "Recursive Union", title: "Recursive Union", children: []*planNode{body},
			rows: body.rows, total: body.total * 10}
	}
	kids := b.children(i)
	pn := &planNode{typ: dataflow.OpName(n.Op), children: kids, total: sumTotal(kids)}
	for _, k := range kids {
		pn.rows += k.rows
	}
	pn.total += float64(pn.rows) * 0.01
	switch op := n.Op.(type) {
	case dataflow.Union:
		pn.typ = "Append"
	case dataflow.Window:
		pn.typ = "WindowAgg"
		if len(op.Key) > 0 {
			pn.tail = append(pn.tail, planProp{"Partition Key", colLabels(op.Key, b.in(i, 0))})
		}
		if len(op.Order) > 0 {
			pn.tail = append(pn.tail, planProp{"Sort Key", sortKeys(op.Order, b.in(i, 0))})
		}
	case dataflow.TemporalFilter:
		pn.typ = "Temporal Filter"
		pn.tail = append(pn.tail, planProp{"Filter", b.temporalCond(i, op)})
	case dataflow.SessionWindow:
		pn.typ = "Session Window"
		pn.tail = append(pn.tail, planProp{"Group Key", colLabels(op.Key, b.in(i, 0))},
			planProp{"Time Key", b.in(i, 0).col(op.TimeCol)}, planProp{"Gap", fmt.Sprintf("%d us", op.Gap)})
	}
	pn.title = pn.typ
	return pn
}

// temporalCond prints a TemporalFilter's bounds as the condition it keeps
// rows by: (lower <= now()) AND (now() < upper).
func (b *planBuilder) temporalCond(i int, op dataflow.TemporalFilter) string {
	var conds []string
	for _, x := range op.Lower {
		conds = append(conds, "("+pgExpr(x, b.in(i, 0))+" <= now())")
	}
	for _, x := range op.Upper {
		conds = append(conds, "(now() < "+pgExpr(x, b.in(i, 0))+")")
	}
	return conjunction(conds)
}

// constant is a Result (one row) or a Values Scan.
func (b *planBuilder) constant(op dataflow.Constant) *planNode {
	rows := int64(len(op.Rows))
	if rows == 1 {
		return &planNode{typ: "Result", title: "Result", rows: 1, total: 0.01}
	}
	return &planNode{typ: "Values Scan", title: `Values Scan on "*VALUES*"`,
		head: []planProp{{"Alias", "*VALUES*"}}, rows: rows, total: float64(rows) * 0.0125}
}

// flatMap is a Function Scan when the FlatMap reads one empty row (a
// function in FROM), else a ProjectSet over its input.
func (b *planBuilder) flatMap(i int, op dataflow.FlatMap) *planNode {
	in := b.plan.Nodes[i].Inputs[0]
	calls := make([]string, len(op.Funcs))
	for k, f := range op.Funcs {
		args := make([]string, len(f.Args))
		for a, x := range f.Args {
			args[a] = pgExpr(x, b.labels[in])
		}
		calls[k] = f.Func.Name + "(" + strings.Join(args, ", ") + ")"
	}
	if c, ok := b.plan.Nodes[in].Op.(dataflow.Constant); ok && len(c.Rows) == 1 && len(c.Rows[0]) == 0 && len(op.Funcs) == 1 {
		name := op.Funcs[0].Func.Name
		return &planNode{typ: "Function Scan", title: "Function Scan on " + expr.QuoteIdent(name),
			head: []planProp{{"Function Name", name}, {"Alias", name}}, rows: 1000, total: 10,
			tail: []planProp{{"Function Call", calls[0]}}}
	}
	kids := b.children(i)
	pn := &planNode{typ: "ProjectSet", title: "ProjectSet", children: kids, rows: kids[0].rows * 10,
		tail: []planProp{{"Function Call", calls}}}
	if len(op.On) > 0 {
		var on []string
		for _, x := range op.On {
			on = append(on, pgExpr(x, b.labels[i]))
		}
		pn.tail = append(pn.tail, planProp{"Join Filter", conjunction(on)})
	}
	pn.total = sumTotal(kids) + float64(pn.rows)*0.01
	return pn
}
