package sql

import (
	"sort"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/optimizer/lower"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// runQuery evaluates a planned query once, as the batch case of the same
// incremental operators: the query's dataflow is fed the current contents
// of its sources (plus the transaction's own pending writes) as one
// insertion, and its output is the answer. The rows are then ordered,
// offset and limited, and trimmed to the visible columns.
func (e *Engine) runQuery(q *planner.Query, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, error) {
	plan, _, err := compile(q.Rel)
	if err != nil {
		return nil, err
	}
	return e.runPlan(q, plan, pointInputs(plan), ctx, ws)
}

// runPlan runs a query's compiled plan (points are its point inputs) and
// presents the rows as runQuery does. A plan whose joins read shared
// arrangements (sharedjoin.go) runs under the engine's read lock, since
// its lookups read the indexes as of the query's time.
func (e *Engine) runPlan(q *planner.Query, plan *dataflow.Plan, points []pointInput, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, error) {
	return e.runPlanStats(q, plan, points, ctx, ws, nil)
}

// planStats is what EXPLAIN ANALYZE learns from running a query's plan:
// the plan that ran (with its shared arrangements) and each node's rows.
type planStats struct {
	plan   *dataflow.Plan
	counts []int64
}

// runPlanStats is runPlan, recording into st (if not nil) the plan run
// and the rows each of its nodes produced.
func (e *Engine) runPlanStats(q *planner.Query, plan *dataflow.Plan, points []pointInput, ctx *expr.Ctx, ws *writeSet, st *planStats) ([]repr.Row, error) {
	e.mu.RLock()
	locked := true
	defer func() {
		if locked {
			e.mu.RUnlock()
		}
	}()
	var skip map[repr.CollectionID]bool
	if !q.Routines { // a routine's statements take the engine's lock
		plan, skip = e.sharedPlan(plan, points, ws)
	}
	if st == nil {
		plan = appendOnlyTopK(plan, ws)
	}
	df, err := exec.Build(plan)
	if err != nil {
		return nil, err
	}
	if st != nil {
		st.plan = plan
		df.CountRows()
	}
	t := e.readTime(ws)
	if err := e.checkReadable(df.Sources()); err != nil {
		return nil, err
	}
	feed, err := e.openFeed(points, df.Sources(), skip, ctx, t, ws)
	if err != nil {
		return nil, err
	}
	defer feed.close()
	if skip == nil {
		e.mu.RUnlock()
		locked = false
	} else {
		sharedJoinCount.Add(1)
	}
	var arr exec.Arrangements = arrangements{e}
	if st == nil {
		df, arr = probeDataflow(plan, feed, df, arr)
	}
	out, err := runFeed(df, feed, ctx, arr, queryTopN(q, plan, ws))
	if err != nil {
		return nil, err
	}
	if st != nil {
		st.counts = df.RowCounts()
	}
	rows, err := resultRows(ctx, q, out)
	if err != nil {
		return nil, err
	}
	if len(q.Locks) == 0 {
		rows = window(rows, q.Offset, q.Limit)
	} else if rows, err = e.lockRows(q, rows, ws); err != nil {
		return nil, err
	}
	return trimRows(q, rows), nil
}

// resultRows accounts the row headers of a query's consolidated output,
// expands it by multiplicity and sorts it by q's ORDER BY: the rows a
// query then windows (or locks) and trims.
func resultRows(ctx *expr.Ctx, q *planner.Query, out []repr.Update) ([]repr.Row, error) {
	if err := growMemory(ctx, int64(len(out))*rowHeaderBytes); err != nil {
		return nil, err
	}
	rows, err := expand(out)
	if err != nil {
		return nil, err
	}
	sortRows(rows, q.OrderBy)
	return rows, nil
}

// trimRows cuts the columns past q's result columns (hidden sort keys)
// off rows, in place.
func trimRows(q *planner.Query, rows []repr.Row) []repr.Row {
	for i, r := range rows {
		rows[i] = r[:len(q.Columns)]
	}
	return rows
}

// sharedPlan returns plan with its joins reading shared arrangements where
// indexes allow (shareArrangements), and the collections the query then
// need not read (onlyShared; nil when no join reads an arrangement). An
// input that a point read narrows (points) stays private: it is small,
// and sharing it would read the other side whole to look it up. Queries
// whose transaction has written to a shared input, or that call sequence
// functions (which may take e.mu, held while such a plan runs), keep
// their plan. The caller holds e.mu shared.
func (e *Engine) sharedPlan(plan *dataflow.Plan, points []pointInput, ws *writeSet) (*dataflow.Plan, map[repr.CollectionID]bool) {
	if snapshotOf(ws) != nil {
		return plan, nil // a snapshot's reads do not look up live arrangements
	}
	avoid := map[repr.CollectionID]bool{}
	for _, p := range points {
		if _, ok := e.choosePath(p); ok && !disablePointReads {
			avoid[p.coll] = true
		}
	}
	shared, used := e.shareArrangementsAvoiding(e.cat, plan, nil, avoid)
	if len(used) == 0 || callsSequences(plan) || e.probeRather(plan, shared) {
		return plan, nil
	}
	for _, id := range sharedCollections(shared) {
		if len(ws.pending(uint64(id))) > 0 {
			return plan, nil
		}
	}
	return shared, onlyShared(shared)
}

// callsSequences reports whether some expression of plan calls a
// sequence function.
func callsSequences(p *dataflow.Plan) bool {
	for _, n := range p.Nodes {
		var exprs []expr.Expr
		switch op := n.Op.(type) {
		case dataflow.MFP:
			exprs = append(append(exprs, op.Map...), op.Filter...)
		case dataflow.Join:
			exprs = op.Residual
		}
		for _, x := range exprs {
			if expr.ReadsCatalog(x) {
				return true // the session's Catalog takes e.mu
			}
			if callsFunc(x, "nextval") || callsFunc(x, "setval") || callsFunc(x, "currval") || callsFunc(x, "lastval") {
				return true
			}
		}
	}
	return false
}

// expand turns consolidated updates of a snapshot into rows, repeating a
// row by its multiplicity. A negative multiplicity is an engine bug.
func expand(us []repr.Update) ([]repr.Row, error) {
	var rows []repr.Row
	for _, u := range us {
		if u.Diff < 0 {
			return nil, repr.Errorf(repr.CodeInternal, "internal error: negative multiplicity %d in query result", u.Diff)
		}
		for i := int64(0); i < u.Diff; i++ {
			rows = append(rows, u.Row)
		}
	}
	return rows, nil
}

// sortRows orders rows by the ORDER BY columns (stable, so equal rows keep
// their order).
func sortRows(rows []repr.Row, order []expr.SortCol) {
	if len(order) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return compareBy(rows[i], rows[j], order) < 0 })
}

// compareBy compares rows by ORDER BY columns with their directions and
// NULL placement.
func compareBy(a, b repr.Row, order []expr.SortCol) int {
	for _, o := range order {
		x, y := a[o.Col], b[o.Col]
		var c int
		switch {
		case x.IsNull() && y.IsNull():
			c = 0
		case x.IsNull() || y.IsNull():
			c = 1
			if x.IsNull() == o.NullsFirst {
				c = -1
			}
			if c != 0 {
				return c
			}
		default:
			c = repr.Compare(x, y)
			if o.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// window applies OFFSET and LIMIT (limit < 0: none).
func window(rows []repr.Row, offset, limit int64) []repr.Row {
	if offset > 0 {
		if offset >= int64(len(rows)) {
			return nil
		}
		rows = rows[offset:]
	}
	if limit >= 0 && limit < int64(len(rows)) {
		rows = rows[:limit]
	}
	return rows
}

// compile optimizes a relation and lowers it to an exec dataflow.
func compile(rel ir.Rel) (*dataflow.Plan, ir.Rel, error) {
	opt, err := optimizer.Optimize(rel)
	if err != nil {
		return nil, nil, err
	}
	plan, err := lower.Lower(opt)
	return plan, opt, err
}
