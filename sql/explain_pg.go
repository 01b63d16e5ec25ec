package sql

import (
	"context"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// EXPLAIN's default form: PostgreSQL's plan tree (explain_tree.go) of
// the dataflow a statement runs. For an ad hoc SELECT that is the plan
// the query runs (key reads and shared arrangements included) under the
// Sort and Limit that order and cut its result; for CREATE MATERIALIZED
// VIEW the view's dataflow (delta joins, shared arrangements, with the
// automatic indexes it would create as a footer); for INSERT, UPDATE and
// DELETE a ModifyTable node over the rows it writes. ANALYZE runs the
// statement and adds each node's actual rows, as PostgreSQL does with
// TIMING OFF (exec never reads the clock, so per-node times do not
// exist), then Planning Time and Execution Time (SUMMARY OFF drops
// them). VERBOSE adds Output, schemas and the optimizer rules that
// fired. EXPLAIN (DATAFLOW) prints Eddy's own form instead (explain.go).

// explainOptions reads EXPLAIN's options for the PostgreSQL form.
func explainOptions(es *pg.ExplainStmt, format explainFormatKind) explainOpts {
	o := explainOpts{format: format, costs: true, verbose: explainOption(es, "verbose"), analyze: explainOption(es, "analyze")}
	if hasExplainOption(es, "costs") {
		o.costs = explainOption(es, "costs")
	}
	return o
}

// hasExplainOption reports whether EXPLAIN names option name.
func hasExplainOption(es *pg.ExplainStmt, name string) bool {
	for _, opt := range es.Options {
		if d := opt.GetDefElem(); d != nil && d.Defname == name {
			return true
		}
	}
	return false
}

// explainPG runs EXPLAIN of n (a SELECT, or a write) in PostgreSQL's
// form; view is set for CREATE MATERIALIZED VIEW's query.
func (p *Portal) explainPG(ctx context.Context, es *pg.ExplainStmt, n *pg.Node, opts planner.Options, o explainOpts) error {
	start := time.Now()
	var root *planNode
	var footers []planFooter
	var run func() error
	var err error
	switch {
	case hasModifyingCTE(n):
		root, footers, run, err = p.explainModifyingPG(ctx, n, opts, o)
	case n.GetSelectStmt() != nil:
		root, footers, run, err = p.explainSelectPG(ctx, n, opts, o)
	default:
		root, run, err = p.explainDMLPG(ctx, n, opts, o)
	}
	if err != nil {
		return err
	}
	planned := time.Since(start)
	summary := o.analyze
	if hasExplainOption(es, "summary") {
		summary = explainOption(es, "summary")
	}
	if o.analyze {
		if opts.MaterializedView {
			return repr.Unsupported("EXPLAIN ANALYZE of CREATE MATERIALIZED VIEW")
		}
		start = time.Now()
		if err := run(); err != nil {
			return err
		}
		ran := time.Since(start)
		if summary {
			footers = append([]planFooter{{"Planning Time", millis(planned)}}, footers...)
			if o.format == explainJSON {
				footers = append(footers, planFooter{"Triggers", []string{}})
			}
			footers = append(footers, planFooter{"Execution Time", millis(ran)})
		}
	} else if summary {
		footers = append([]planFooter{{"Planning Time", millis(planned)}}, footers...)
	}
	p.rows = renderPlan(root, footers, o)
	return nil
}

// millis is d in milliseconds.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// renderPlan is EXPLAIN's result rows in o's format: text one row per
// line, the others one value.
func renderPlan(root *planNode, footers []planFooter, o explainOpts) []repr.Row {
	switch o.format {
	case explainJSON:
		return []repr.Row{{repr.NewJSON(renderJSON(root, footers, o))}}
	case explainYAML:
		return []repr.Row{textRow(renderYAML(root, footers, o))}
	case explainXML:
		return []repr.Row{textRow(renderXML(root, footers, o))}
	}
	var out []repr.Row
	for _, l := range renderText(root, footers, o) {
		out = append(out, textRow(l))
	}
	return out
}

// explainSelectPG builds the tree of a SELECT (or of a materialized
// view's query), its footers, and, for ANALYZE, the function that runs
// it and fills in the actual rows.
func (p *Portal) explainSelectPG(ctx context.Context, n *pg.Node, opts planner.Options, o explainOpts) (*planNode, []planFooter, func() error, error) {
	e := p.st.s.e
	var q *planner.Query
	var err error
	if o.analyze && opts.Locked == nil && !opts.MaterializedView {
		// The locking blocks below the top level run (and lock) first,
		// as for the query itself (execSelect).
		q, err = e.planLockingQuery(n, opts, p.st.s.evalCtx(), p.st.s.ws)
	} else {
		q, err = e.planQuery(n, opts)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var footers []planFooter
	if o.verbose {
		_, trace, err := optimizer.OptimizeTrace(viewRel(q))
		if err != nil {
			return nil, nil, nil, err
		}
		footers = append(footers, planFooter{"Rules Fired", strings.Join(trace.Names(), " ")})
	}
	if opts.MaterializedView {
		root, autos, err := e.viewTree(q, o)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(autos) > 0 {
			footers = append(footers, planFooter{"Automatic Indexes", autos})
		}
		return root, footers, nil, nil
	}
	plan, _, err := compile(q.Rel)
	if err != nil {
		return nil, nil, nil, err
	}
	points := pointInputs(plan)
	var shared *dataflow.Plan
	var root *planNode
	e.readLocked(func() {
		shared, _ = e.sharedPlan(plan, points, nil)
		root = e.queryTree(q, shared, points, nil, o)
	})
	run := func() error {
		var st planStats
		s := p.st.s
		ectx := s.evalCtx()
		ectx.Params = p.params
		if _, err := e.runPlanStats(q, plan, points, ectx, s.ws, &st); err != nil {
			return err
		}
		e.mu.RLock()
		defer e.mu.RUnlock()
		*root = *e.queryTree(q, st.plan, points, st.counts, o)
		return nil
	}
	return root, footers, run, nil
}

// viewTree is the tree of a materialized view's dataflow as CREATE
// MATERIALIZED VIEW would install it, and the automatic indexes it would
// create.
func (e *Engine) viewTree(q *planner.Query, o explainOpts) (*planNode, []string, error) {
	plan, _, err := compile(viewRel(q))
	if err != nil {
		return nil, nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	plan = isolateSources(plan, e.cat.isTable)
	var autos []string
	for _, a := range e.viewAutos(e.cat, plan) {
		names := make([]string, len(a.cols))
		for k, c := range a.cols {
			names[k] = expr.QuoteIdent(a.rel.Columns[c].Name)
		}
		autos = append(autos, expr.QuoteIdent(a.rel.Name)+" ("+strings.Join(names, ", ")+")")
	}
	plan, _, _ = e.deltaJoins(e.cat, plan, nil)
	plan, _ = e.shareArrangements(e.cat, plan, nil)
	plan = borrowArrangements(plan)
	b := newPlanBuilder(e, plan, o.verbose, nil, nil)
	return b.build(plan.Output), autos, nil
}

// queryTree is the tree of an ad hoc query's plan (with counts, its
// actual rows), under a Sort for its ORDER BY and a Limit for LIMIT and
// OFFSET, as runPlan orders and cuts the rows, its output trimmed to the
// visible columns. The caller holds e.mu shared.
func (e *Engine) queryTree(q *planner.Query, plan *dataflow.Plan, points []pointInput, counts []int64, o explainOpts) *planNode {
	b := newPlanBuilder(e, plan, o.verbose, points, counts)
	root := b.build(plan.Output)
	out := b.labels[plan.Output]
	actual := root.actual
	if len(q.OrderBy) > 0 {
		root.parent = "Outer"
		root = &planNode{typ: "Sort", title: "Sort", children: []*planNode{root}, rows: root.rows, width: root.width,
			startup: root.total + float64(root.rows)*0.01, total: root.total + float64(root.rows)*0.02,
			output: out, actual: actual, tail: []planProp{{"Sort Key", sortKeys(q.OrderBy, out)}}}
	}
	if q.Limit >= 0 || q.Offset > 0 {
		root.parent = "Outer"
		rows := max(1, root.rows-q.Offset)
		if q.Limit >= 0 {
			rows = min(rows, max(q.Limit, 1))
		}
		if actual >= 0 {
			actual = max(0, min(actual-q.Offset, map[bool]int64{true: q.Limit, false: actual}[q.Limit >= 0]))
		}
		root = &planNode{typ: "Limit", title: "Limit", children: []*planNode{root}, rows: rows, width: root.width,
			startup: root.startup, total: root.total, output: out, actual: actual}
	}
	if len(out) > len(q.Columns) {
		root.output = out[:len(q.Columns)]
	}
	return root
}

// explainDMLPG builds the tree of INSERT, UPDATE or DELETE: a ModifyTable
// node ("Insert on t") over the query producing the rows (INSERT) or the
// scan finding them (UPDATE, DELETE), and for ANALYZE the function that
// runs the write and sets the node's actual rows (those RETURNING
// returns, 0 without it, as in PostgreSQL).
func (p *Portal) explainDMLPG(ctx context.Context, n *pg.Node, opts planner.Options, o explainOpts) (*planNode, func() error, error) {
	e := p.st.s.e
	d, err := e.planDML(n, opts)
	if err != nil {
		return nil, nil, err
	}
	op, filter := "Insert", expr.Expr(nil)
	switch {
	case d.upd != nil:
		op, filter = "Update", d.upd.Filter
	case d.del != nil:
		op, filter = "Delete", d.del.Filter
	}
	t := d.table
	name := expr.QuoteIdent(t.Name)
	if o.verbose {
		name = expr.QuoteIdent(t.Schema) + "." + name
	}
	root := &planNode{typ: "ModifyTable", title: op + " on " + name, actual: -1,
		head: []planProp{{"Operation", op}, {"Relation Name", t.Name}, {"Alias", t.Name}}}
	if o.verbose && t.Schema != "" {
		root.head = append(root.head[:2], planProp{"Schema", t.Schema}, planProp{"Alias", t.Name})
	}
	var child *planNode
	if src := d.source(); src != nil {
		if child, err = e.insertSourceTree(src, o); err != nil {
			return nil, nil, err
		}
		if d.ins != nil && d.ins.OnConflict != nil {
			oc := d.ins.OnConflict
			root.tail = append(root.tail, planProp{"Conflict Resolution", map[bool]string{true: "UPDATE", false: "NOTHING"}[oc.DoUpdate]})
		}
	} else {
		child = e.writeScanTree(t, filter, o)
	}
	child.parent = "Outer"
	root.children = []*planNode{child}
	root.startup, root.total, root.rows = child.startup, child.total+float64(child.rows)*0.01, 0
	if d.returning != nil {
		root.rows = child.rows
		root.output = make([]string, len(d.returning))
		ls := tableLabels(t, o.verbose)
		if src := d.source(); src != nil && d.ins == nil {
			for _, c := range src.Columns[len(ls):] {
				ls = append(ls, expr.QuoteIdent(c.Name))
			}
		}
		for i, x := range d.returning {
			root.output[i] = pgExpr(x, ls)
		}
	}
	run := func() error {
		tag, err := p.analyze(ctx, n)
		if err != nil {
			return err
		}
		root.actual = 0
		if d.returning != nil {
			fields := strings.Fields(tag)
			root.actual, _ = strconv.ParseInt(fields[len(fields)-1], 10, 64)
		}
		return nil
	}
	return root, run, nil
}

// tableLabels are the labels of a table's columns.
func tableLabels(t *planner.Relation, qualify bool) labels {
	out := make(labels, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = expr.QuoteIdent(c.Name)
		if qualify {
			out[i] = expr.QuoteIdent(t.Name) + "." + out[i]
		}
	}
	return out
}

// insertSourceTree is the tree of the query an INSERT reads.
func (e *Engine) insertSourceTree(q *planner.Query, o explainOpts) (*planNode, error) {
	plan, _, err := compile(q.Rel)
	if err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	points := pointInputs(plan)
	shared, _ := e.sharedPlan(plan, points, nil)
	return e.queryTree(q, shared, points, nil, o), nil
}

// writeScanTree is the scan with which UPDATE or DELETE finds the rows of
// t passing filter: the tree of a one-source plan reading t through that
// filter, so the key reads of pointread.go show as an Index Scan.
func (e *Engine) writeScanTree(t *planner.Relation, filter expr.Expr, o explainOpts) *planNode {
	types := make([]repr.T, len(t.Columns))
	for i, c := range t.Columns {
		types[i] = c.Type
	}
	plan := &dataflow.Plan{Nodes: []dataflow.Node{{Op: dataflow.Source{Collection: t.ID, Name: t.Name}, Types: types}}}
	if filter != nil {
		plan.Nodes = append(plan.Nodes, dataflow.Node{Op: dataflow.MFP{Filter: []expr.Expr{filter}}, Inputs: []int{0}, Types: types})
	}
	plan.Output = len(plan.Nodes) - 1
	e.mu.RLock()
	defer e.mu.RUnlock()
	b := newPlanBuilder(e, plan, o.verbose, pointInputs(plan), nil)
	return b.build(plan.Output)
}
