package sql

import (
	"context"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/optimizer"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// viewRel is the relation a materialized view maintains for a planned
// query: ORDER BY with LIMIT/OFFSET becomes a TopK (ORDER BY alone does not
// order a view's contents), and hidden sort columns are projected away.
func viewRel(q *planner.Query) ir.Rel {
	rel := q.Rel
	if q.Limit >= 0 || q.Offset > 0 {
		rel = &ir.TopK{Input: rel, Order: q.OrderBy, Limit: q.Limit, Offset: q.Offset}
	}
	cols := make([]int, len(q.Columns))
	for i := range cols {
		cols[i] = i
	}
	return ir.NewProject(rel, cols...)
}

// execExplain explains a query, the query of a CREATE MATERIALIZED VIEW,
// or INSERT, UPDATE or DELETE: by default as PostgreSQL's plan tree
// (explain_pg.go); with the DATAFLOW option in Eddy's own form, the
// optimized IR and the incremental dataflow (for writes explain_dml.go),
// as text, JSON or YAML (explainFormat). ANALYZE also executes the
// statement, once, as it would run alone (a write commits unless a block
// holds it); the DATAFLOW form reports its command tag.
func (p *Portal) execExplain(ctx context.Context, es *pg.ExplainStmt) error {
	p.tag = "EXPLAIN"
	format, err := explainFormat(es)
	if err != nil {
		return err
	}
	n := es.Query
	opts := planner.Options{ParamTypes: p.st.paramTypes, Params: p.params, TimeZone: p.st.s.settings.timeZone}
	if !explainOption(es, "analyze") || explainOption(es, "dataflow") {
		// Locking blocks below the top level are planned as the
		// queries they are, unlocked: this plan never runs (EXPLAIN
		// (DATAFLOW, ANALYZE) runs the statement apart, p.analyze).
		opts.Locked = planner.DescribeLockedSubqueries()
	}
	if ctas := n.GetCreateTableAsStmt(); ctas != nil && ctas.Objtype == pg.ObjectType_OBJECT_MATVIEW {
		// Planned as the view would be (temporal filters, 0A000 for what
		// a view cannot maintain).
		n, opts.MaterializedView = ctas.Query, true
	}
	if n.GetInsertStmt() != nil {
		if r := planner.RewriteReturning(n); r != nil {
			n = r // RETURNING with subqueries runs as a data-modifying WITH
		}
	}
	switch {
	case n.GetSelectStmt() == nil && n.GetInsertStmt() == nil && n.GetUpdateStmt() == nil && n.GetDeleteStmt() == nil:
		return repr.Unsupported("EXPLAIN of %s", stmtKind(n))
	case hasModifyingCTE(n) && explainOption(es, "dataflow"):
		return repr.Unsupported("EXPLAIN (DATAFLOW) of a statement with a data-modifying WITH query")
	case !explainOption(es, "dataflow"):
		return p.explainPG(ctx, es, n, opts, explainOptions(es, format))
	case format == explainXML:
		return repr.Unsupported("EXPLAIN (DATAFLOW, FORMAT XML)")
	}
	var text string
	switch {
	case n.GetSelectStmt() != nil:
		q, err := p.st.s.e.planQuery(n, opts)
		if err != nil {
			return err
		}
		if text, err = p.st.s.e.explainQuery(q, opts.MaterializedView, explainOption(es, "verbose")); err != nil {
			return err
		}
	case n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil:
		if text, err = p.explainDML(n, opts, explainOption(es, "verbose")); err != nil {
			return err
		}
	default:
		return repr.Unsupported("EXPLAIN of %s", stmtKind(n))
	}
	if explainOption(es, "analyze") {
		if opts.MaterializedView {
			return repr.Unsupported("EXPLAIN ANALYZE of CREATE MATERIALIZED VIEW")
		}
		tag, err := p.analyze(ctx, n)
		if err != nil {
			return err
		}
		text += "Actual:\n" + tag + "\n"
	}
	p.rows = format.render(text)
	return nil
}

// explainQuery is the text of EXPLAIN of a planned query: its optimized
// IR and its dataflow, as a materialized view (view) or an ad hoc query
// would run them, with the state and access reports, and with verbose the
// rules that fired.
func (e *Engine) explainQuery(q *planner.Query, view, verbose bool) (string, error) {
	plan, rel, err := compile(viewRel(q))
	if err != nil {
		return "", err
	}
	var autos string
	e.readLocked(func() {
		if view {
			plan = isolateSources(plan, e.cat.isTable)
			autos = e.describeAutoIndexes(plan)
			plan, _, _ = e.deltaJoins(e.cat, plan, nil)
			plan, _ = e.shareArrangements(e.cat, plan, nil)
			plan, _ = e.shareReduces(e.cat, plan, nil)
			plan = borrowArrangements(plan)
		} else { // as runPlan would run it (outside a transaction's writes)
			plan, _ = e.sharedPlan(plan, pointInputs(plan), nil)
		}
	})
	text := "Optimized plan:\n" + ir.Format(rel) + "\nDataflow:\n" + plan.String() + stateReport(plan) +
		e.accessReport(plan, !view) + autos
	if verbose {
		_, trace, err := optimizer.OptimizeTrace(viewRel(q))
		if err != nil {
			return "", err
		}
		text += "Rules fired:\n  " + strings.Join(trace.Names(), " ") + "\n"
	}
	return text, nil
}

// analyze executes the explained statement n for EXPLAIN ANALYZE, once,
// under the session's transaction rules (a write is refused in a
// read-only transaction, 25006, and commits unless a block holds it), and
// returns its command tag; its rows are discarded, as PostgreSQL does.
func (p *Portal) analyze(ctx context.Context, n *pg.Node) (string, error) {
	if err := p.st.s.checkWritable(n); err != nil {
		return "", err
	}
	run := &Portal{st: p.st, params: p.params}
	var err error
	if hasModifyingCTE(n) {
		err = run.execModifying(ctx, n)
	} else if n.GetSelectStmt() != nil {
		err = run.execSelect(ctx, n)
	} else {
		err = run.execDML(ctx, n)
	}
	return run.tag, err
}

// explainOption reports whether EXPLAIN has the boolean option name
// (either spelling: EXPLAIN VERBOSE or EXPLAIN (VERBOSE [true])).
func explainOption(es *pg.ExplainStmt, name string) bool {
	for _, o := range es.Options {
		d := o.GetDefElem()
		if d == nil || d.Defname != name {
			continue
		}
		if d.Arg == nil {
			return true
		}
		v := strings.ToLower(d.Arg.GetString_().GetSval())
		if b := d.Arg.GetBoolean(); b != nil {
			return b.Boolval
		}
		return v == "" || v == "true" || v == "on" || v == "1"
	}
	return false
}

// textRow builds a row of text values.
func textRow(vals ...string) repr.Row {
	r := make(repr.Row, len(vals))
	for i, v := range vals {
		r[i] = repr.NewText(v)
	}
	return r
}

// accessReport lists, for EXPLAIN, the joins that read a shared
// arrangement (sharedjoin.go), e.g. `%3 Join reads %2 from index t_a_idx
// (shared arrangement)`, and, for an ad hoc query (adhoc), the sources it
// reads by key range with the access path each uses (pointread.go), e.g.
// `%0 IndexScan t_a_idx (a = 5)`; "" when there are none.
func (e *Engine) accessReport(plan *dataflow.Plan, adhoc bool) string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var b strings.Builder
	for _, s := range e.describeShared(plan) {
		b.WriteString(s + "\n")
	}
	for _, p := range pointInputs(plan) {
		if s := e.describeAccess(p); s != "" && adhoc {
			b.WriteString("%" + strconv.Itoa(p.node) + " " + s + "\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Access:\n" + b.String()
}

// stateReport lists each stateful operator and whether a watermark bounds
// its state (and if not, which column would), for EXPLAIN.
func stateReport(plan *dataflow.Plan) string {
	df, err := exec.Build(plan)
	if err != nil {
		return ""
	}
	reports := df.Bounded()
	if len(reports) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("State:\n")
	for _, r := range reports {
		b.WriteString(r.String() + "\n")
	}
	return b.String()
}
