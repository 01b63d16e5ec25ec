package sql

import (
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// The PostgreSQL-shaped plan tree of a dataflow (explain_tree.go prints
// it). Each dataflow operator maps to the PostgreSQL node that does the
// same work, or to a node of Eddy's own where none does:
//
//	Source                Seq Scan on t (Index Scan using i on t when an
//	                      ad hoc query reads it by key, see pointread.go)
//	MFP                   merged into its input node (Output, Filter), as
//	                      PostgreSQL puts quals and targetlists on scans
//	                      and joins; a Result node over a shared input
//	Reduce                Aggregate (Strategy Plain) / HashAggregate
//	Join                  Hash Join (Hash Cond, Join Filter), or Nested
//	                      Loop over an Index Scan when one side is read
//	                      from a shared arrangement (an index)
//	DeltaJoin             Delta Join (one lookup path per input)
//	Union                 Append
//	TopK                  Limit over Sort without a partition key, else
//	                      TopK (Group Key, Sort Key, Limit)
//	Window                WindowAgg
//	Constant              Result (one row) or Values Scan on "*VALUES*"
//	FlatMap               Function Scan on f (over one empty row), else
//	                      ProjectSet
//	Variable, Fixpoint    WorkTable Scan, Recursive Union
//	Negate, Threshold,    Negate, Threshold, Temporal Filter,
//	TemporalFilter,       Session Window
//	SessionWindow
//
// Estimates come from the collections' current sizes (as the join
// planner's do): a scan's rows are the collection's, a filter conjunct
// keeps a third (an equality with a constant 0.5%), an equi-join keeps
// its larger input's unfiltered rows scaled by what both inputs' filters
// keep, a key read one row per value of a unique key, a grouped
// aggregate at most 200 groups; costs follow PostgreSQL's units
// (cpu_tuple_cost 0.01 per row, 0.0025 per operator evaluation, a page
// per 8 kB scanned, a random page 4.0 for an Index Scan).

// planBuilder builds the tree of one dataflow plan. The caller holds
// e.mu shared.
type planBuilder struct {
	e    *Engine
	plan *dataflow.Plan
	// qualify prints columns as table.column (VERBOSE, or several
	// tables); verbose also names relations with their schema.
	qualify, verbose bool
	// points are the sources an ad hoc query reads by key, by node.
	points map[int]pointInput
	// counts are ANALYZE's rows per node (nil: not analyzed).
	counts    []int64
	consumers [][]int
	labels    []labels
}

// newPlanBuilder prepares the labels of every node of plan.
func newPlanBuilder(e *Engine, plan *dataflow.Plan, verbose bool, points []pointInput, counts []int64) *planBuilder {
	b := &planBuilder{e: e, plan: plan, counts: counts, points: map[int]pointInput{}, verbose: verbose,
		consumers: make([][]int, len(plan.Nodes)), labels: make([]labels, len(plan.Nodes))}
	sources := map[repr.CollectionID]bool{}
	for i, n := range plan.Nodes {
		if s, ok := n.Op.(dataflow.Source); ok {
			sources[s.Collection] = true
		}
		if _, ok := n.Op.(dataflow.Fixpoint); ok {
			continue // the loop's variable is read inside the loop only
		}
		for _, in := range n.Inputs {
			b.consumers[in] = append(b.consumers[in], i)
		}
	}
	b.qualify = verbose || len(sources) > 1
	for _, p := range points {
		if _, ok := e.choosePath(p); ok && !disablePointReads {
			b.points[p.node] = p
		}
	}
	for i := range plan.Nodes {
		b.labels[i] = b.nodeLabels(i)
	}
	return b
}

// in is the labels of node i's k-th input.
func (b *planBuilder) in(i, k int) labels { return b.labels[b.plan.Nodes[i].Inputs[k]] }

// nodeLabels computes the labels of node i's output columns from its
// inputs'.
func (b *planBuilder) nodeLabels(i int) labels {
	n := b.plan.Nodes[i]
	switch op := n.Op.(type) {
	case dataflow.Source:
		return b.sourceLabels(op, len(n.Types))
	case dataflow.MFP:
		ext := b.mfpLabels(i, op)
		if op.Project == nil {
			return ext
		}
		return colLabels(op.Project, ext)
	case dataflow.Reduce:
		out := labels(colLabels(op.Key, b.in(i, 0)))
		for _, a := range op.Aggs {
			out = append(out, relabel(a.String(), b.in(i, 0)))
		}
		return out
	case dataflow.Join:
		return append(append(labels{}, b.in(i, 0)...), b.in(i, 1)...)
	case dataflow.DeltaJoin:
		var out labels
		for k := range n.Inputs {
			out = append(out, b.in(i, k)...)
		}
		return out
	case dataflow.Union:
		// The columns of the first input that names them (a constant's
		// labels are its values).
		for k := range n.Inputs {
			if _, ok := b.plan.Nodes[n.Inputs[k]].Op.(dataflow.Constant); !ok {
				return b.in(i, k)
			}
		}
	case dataflow.TopK:
		if op.Rank {
			return append(append(labels{}, b.in(i, 0)...), "row_number() OVER (?)")
		}
	case dataflow.Window:
		out := append(labels{}, b.in(i, 0)...)
		for _, f := range op.Funcs {
			out = append(out, relabel(f.String(), b.in(i, 0))+" OVER (?)")
		}
		return out
	case dataflow.SessionWindow:
		return append(append(labels{}, b.in(i, 0)...), "window_start", "window_end")
	case dataflow.FlatMap:
		return b.flatMapLabels(i, op)
	case dataflow.Constant:
		return constantLabels(op, len(n.Types))
	case dataflow.Variable:
		out := make(labels, len(n.Types))
		for k := range out {
			out[k] = expr.QuoteIdent(op.Name) + ".column" + itoa(k+1)
		}
		return out
	}
	if len(n.Inputs) > 0 {
		return b.in(i, 0)
	}
	return make(labels, len(n.Types))
}

// sourceLabels names a source's columns from the catalog.
func (b *planBuilder) sourceLabels(op dataflow.Source, ncols int) labels {
	out := make(labels, ncols)
	obj := b.e.cat.byID[uint64(op.Collection)]
	for k := range out {
		name := "column" + itoa(k+1)
		if obj != nil && k < len(obj.Columns) {
			name = expr.QuoteIdent(obj.Columns[k].Name)
		}
		if b.qualify {
			name = expr.QuoteIdent(op.Name) + "." + name
		}
		out[k] = name
	}
	return out
}

// mfpLabels are the labels of an MFP's input columns followed by its
// mapped columns (each printed over the columns before it).
func (b *planBuilder) mfpLabels(i int, op dataflow.MFP) labels {
	ext := append(labels{}, b.in(i, 0)...)
	for _, m := range op.Map {
		ext = append(ext, pgExpr(m, ext))
	}
	return ext
}

// flatMapLabels are a FlatMap's input labels, then each function's
// columns (a record function's column names, else its name), then
// ordinality.
func (b *planBuilder) flatMapLabels(i int, op dataflow.FlatMap) labels {
	out := append(labels{}, b.in(i, 0)...)
	for _, f := range op.Funcs {
		if f.Func.Record {
			for _, c := range f.Func.Cols {
				out = append(out, expr.QuoteIdent(c.Name))
			}
			continue
		}
		out = append(out, f.Func.Name)
	}
	if op.Ordinality {
		out = append(out, "ordinality")
	}
	return out
}

// constantLabels are a one-row Constant's values, or the columns of
// PostgreSQL's "*VALUES*" relation.
func constantLabels(op dataflow.Constant, ncols int) labels {
	out := make(labels, ncols)
	for k := range out {
		if len(op.Rows) == 1 && k < len(op.Rows[0]) {
			out[k] = op.Rows[0][k].String()
			continue
		}
		out[k] = `"*VALUES*".column` + itoa(k+1)
	}
	return out
}

// build returns the tree of node i (a fresh tree each call: a node that
// several nodes read is printed under each).
func (b *planBuilder) build(i int) *planNode {
	n := b.plan.Nodes[i]
	var pn *planNode
	switch op := n.Op.(type) {
	case dataflow.Source:
		pn = b.scan(i, op)
	case dataflow.MFP:
		return b.mfp(i, op)
	case dataflow.Reduce:
		pn = b.aggregate(i, op)
	case dataflow.Join:
		pn = b.join(i, op)
	case dataflow.DeltaJoin:
		pn = b.deltaJoin(i, op)
	case dataflow.TopK:
		return b.topK(i, op)
	default:
		pn = b.other(i)
	}
	b.finish(i, pn)
	return pn
}

// finish sets what every node of dataflow node i shares: its output, its
// width and its actual rows.
func (b *planBuilder) finish(i int, pn *planNode) {
	pn.output = b.labels[i]
	pn.width = rowWidth(b.plan.Nodes[i].Types)
	pn.actual = -1
	if b.counts != nil {
		pn.actual = b.counts[i]
	}
	if pn.rows < 1 {
		pn.rows = 1
	}
}

// children builds node i's inputs, marking their Parent Relationship:
// Outer and Inner for two inputs, Member for more, Outer for one.
func (b *planBuilder) children(i int) []*planNode {
	ins := b.plan.Nodes[i].Inputs
	out := make([]*planNode, len(ins))
	for k, in := range ins {
		out[k] = b.build(in)
		switch {
		case len(ins) == 2 && k == 1 && !isUnion(b.plan.Nodes[i].Op):
			out[k].parent = "Inner"
		case len(ins) > 2 || isUnion(b.plan.Nodes[i].Op):
			out[k].parent = "Member"
		default:
			out[k].parent = "Outer"
		}
	}
	return out
}

// isUnion reports whether op is a Union (whose inputs are Members).
func isUnion(op dataflow.Op) bool {
	_, ok := op.(dataflow.Union)
	return ok
}

// relation names the collection a Source reads: its name, qualified by
// its schema under VERBOSE (qualify), and the JSON properties.
func (b *planBuilder) relation(op dataflow.Source) (string, []planProp) {
	name := expr.QuoteIdent(op.Name)
	props := []planProp{{"Relation Name", op.Name}}
	if obj := b.e.cat.byID[uint64(op.Collection)]; obj != nil && b.verbose && obj.Schema != "" {
		props = append(props, planProp{"Schema", obj.Schema})
		name = expr.QuoteIdent(obj.Schema) + "." + name
	}
	return name, append(props, planProp{"Alias", op.Name})
}

// scan is a Seq Scan of a Source (an ad hoc query's key read becomes an
// Index Scan in mfp).
func (b *planBuilder) scan(i int, op dataflow.Source) *planNode {
	name, props := b.relation(op)
	rows := b.e.collectionSize(uint64(op.Collection))
	pages := math.Ceil(float64(rows*int64(rowWidth(b.plan.Nodes[i].Types))) / 8192)
	return &planNode{typ: "Seq Scan", title: "Seq Scan on " + name, head: props,
		rows: rows, total: pages + float64(rows)*0.01, base: rows}
}

// mfp builds an MFP: its filter and output merged into its input's node,
// or a Result node over an input that other nodes read too. A key read
// of an ad hoc query (points) turns the Source's Seq Scan into an Index
// Scan.
func (b *planBuilder) mfp(i int, op dataflow.MFP) *planNode {
	in := b.plan.Nodes[i].Inputs[0]
	ext := b.mfpLabels(i, op)
	var filters []string
	for _, f := range op.Filter {
		filters = append(filters, pgExpr(f, ext))
	}
	var child *planNode
	if p, ok := b.points[in]; ok {
		var conds []string
		child, conds = b.indexScan(in, p)
		// The Index Cond's conjuncts need no recheck.
		filters = slices.DeleteFunc(filters, func(f string) bool { return slices.Contains(conds, f) })
	} else {
		child = b.build(in)
	}
	pn := child
	if len(b.consumers[in]) > 1 {
		pn = &planNode{typ: "Result", title: "Result", rows: child.rows, startup: child.startup, total: child.total,
			children: []*planNode{child}}
		child.parent = "Outer"
	}
	if len(filters) > 0 {
		pn.addFilter(conjunction(filters), op.Filter)
	}
	pn.total += float64(pn.rows) * 0.0025 * float64(len(op.Map))
	b.finish(i, pn)
	return pn
}

// addFilter adds a Filter (predicates preds, printed cond) to n, ANDed
// with one it has, and scales its row estimate.
func (n *planNode) addFilter(cond string, preds []expr.Expr) {
	for k, p := range n.tail {
		if p.key == "Filter" {
			n.tail[k].val = "(" + p.val.(string) + " AND " + cond + ")"
			cond = ""
		}
	}
	if cond != "" {
		n.tail = append(n.tail, planProp{"Filter", cond})
	}
	n.total += float64(n.rows) * 0.0025 * float64(len(preds))
	n.rows = estimateFilter(n.rows, preds)
}

// estimateFilter scales rows by the selectivity of preds: 0.5% for an
// equality with a constant, a third for anything else (PostgreSQL's
// defaults without statistics).
func estimateFilter(rows int64, preds []expr.Expr) int64 {
	f := float64(rows)
	for _, p := range preds {
		if c, ok := p.(*expr.Call); ok && c.Fn.Name == "=" && len(c.Args) == 2 && (isLit(c.Args[0]) || isLit(c.Args[1])) {
			f *= 0.005
		} else {
			f /= 3
		}
	}
	return max(1, int64(math.Round(f)))
}

// isLit reports whether x is a constant.
func isLit(x expr.Expr) bool {
	_, ok := x.(*expr.Lit)
	return ok
}

// indexScan is the Index Scan (or, over a collection's own key order, an
// Index Scan of its primary key) with which an ad hoc query reads source
// node i by key, and the conjuncts of its Index Cond (the key range
// read).
func (b *planBuilder) indexScan(i int, p pointInput) (*planNode, []string) {
	op := b.plan.Nodes[i].Op.(dataflow.Source)
	name, props := b.relation(op)
	path, _ := b.e.choosePath(p)
	idx := path.name
	if idx == "" {
		idx = op.Name
	}
	var conds []string
	for k, part := range path.parts[:path.neq] {
		conds = append(conds, eqCond(b.keyName(op, path.names[k]), p.p.eq[part]))
	}
	if path.rng {
		part, col := path.parts[path.neq], b.keyName(op, path.names[path.neq])
		if v := p.p.lo[part]; v != nil {
			conds = append(conds, "("+col+" >= "+pgExpr(v, nil)+")")
		}
		if v := p.p.hi[part]; v != nil {
			conds = append(conds, "("+col+" <= "+pgExpr(v, nil)+")")
		}
	}
	pn := &planNode{typ: "Index Scan", title: "Index Scan using " + expr.QuoteIdent(idx) + " on " + name,
		head: append([]planProp{{"Scan Direction", "Forward"}, {"Index Name", idx}}, props...)}
	n := b.e.collectionSize(uint64(op.Collection))
	pn.rows = b.pointRows(n, p, path)
	pn.startup, pn.total = indexScanCost(n, pn.rows, rowWidth(b.plan.Nodes[i].Types), len(conds), 1)
	if len(conds) > 0 {
		pn.tail = append(pn.tail, planProp{"Index Cond", conjunction(conds)})
	}
	b.finish(i, pn)
	return pn, conds
}

// pointRows estimates the rows a key read of p along path finds in a
// collection of n rows: one per combination of key values when they fix
// a unique key (the primary key, a unique index), else the filter
// estimates' selectivities (0.5% per equality, a third per range bound).
func (b *planBuilder) pointRows(n int64, p pointInput, path accessPath) int64 {
	combos := 1
	for _, part := range path.parts[:path.neq] {
		combos *= len(p.p.eq[part])
	}
	unique := path.name != "" && path.index == 0
	if ix := b.e.cat.byID[path.index]; ix != nil && ix.Index != nil {
		unique = ix.Index.Unique && path.where == ""
	}
	if unique && path.neq == len(path.parts) {
		return int64(max(1, min(int64(combos), n)))
	}
	f := float64(n) * float64(combos) * math.Pow(0.005, float64(path.neq))
	if path.rng {
		part := path.parts[path.neq]
		for _, v := range []expr.Expr{p.p.lo[part], p.p.hi[part]} {
			if v != nil {
				f /= 3
			}
		}
	}
	return max(1, min(n, int64(math.Round(f))))
}

// indexScanCost is the cost of one of loops Index Scans, each finding
// rows of a collection of n rows, with nconds conditions, in
// PostgreSQL's units (its btcostestimate and cost_index without
// statistics): the descent costs log2(n) comparisons and 50 operator
// costs per level of a tree of 256 entries a page; then a random page
// (4.0) per leaf page and per row read, the loops together reading each
// of the index's and the collection's pages (8 kB of rows width bytes)
// at most once; and per row an index tuple (0.005), a tuple (0.01) and
// the conditions (0.0025 each).
func indexScanCost(n, rows int64, width, nconds int, loops int64) (startup, total float64) {
	leafPages := max(1, (n+255)/256)
	levels := 1
	for pages := leafPages; pages > 1; pages = (pages + 255) / 256 {
		levels++
	}
	startup = math.Ceil(math.Log2(float64(max(n, 1))))*0.0025 + float64(levels)*50*0.0025
	heapPages := max(1, int64(math.Ceil(float64(n*int64(width))/8192)))
	perLoop := min((rows+255)/256, leafPages) + min(rows, heapPages)
	pages := float64(min(perLoop*loops, leafPages+heapPages)) / float64(loops)
	total = startup + 4*pages + float64(rows)*(0.005+0.01+0.0025*float64(nconds))
	return startup, total
}

// keyName prints a key part of an access path: a column of the source,
// labelled as the source's columns are, or an expression as the path
// names it.
func (b *planBuilder) keyName(op dataflow.Source, part string) string {
	if obj := b.e.cat.byID[uint64(op.Collection)]; obj != nil && b.qualify {
		for _, c := range obj.Columns {
			if c.Name == part {
				return expr.QuoteIdent(op.Name) + "." + expr.QuoteIdent(part)
			}
		}
	}
	return part
}

// eqCond prints an equality key condition: (c = v), (c IS NULL), or
// (c = ANY ('{v1,v2}'::type[])) for several values.
func eqCond(col string, vals []expr.Expr) string {
	if len(vals) == 1 && isNullLit(vals[0]) {
		return "(" + col + " IS NULL)"
	}
	if len(vals) == 1 {
		return "(" + col + " = " + pgExpr(vals[0], nil) + ")"
	}
	parts := make([]string, len(vals))
	for k, v := range vals {
		parts[k] = pgExpr(v, nil)
	}
	return "(" + col + " = ANY (ARRAY[" + strings.Join(parts, ", ") + "]))"
}
