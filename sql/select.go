package sql

import (
	"context"
	"runtime/debug"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// planQuery plans a SELECT against the catalog (under the read lock, since
// DDL mutates the catalog).
func (e *Engine) planQuery(n *pg.Node, opts planner.Options) (*planner.Query, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return planner.PlanQuery(e.cat, n, opts)
}

// execSelect runs a query and buffers its rows, or sets up a stream of
// them when its plan allows (select_stream.go): with the statement's
// generic plan when it has one, else planned with the bound values.
func (p *Portal) execSelect(ctx context.Context, n *pg.Node) error {
	s := p.st.s
	ectx := s.evalCtx()
	var rows []repr.Row
	var err error
	if c := p.st.genericPlan(n); c != nil && !s.readsOwnWrites() {
		if err := p.st.checkResultTypes(c.version, c.q.Columns); err != nil {
			return err
		}
		ectx.Params = p.params
		if rows, ok, err := s.e.runPointPlan(c.point, c.q, ectx, s.ws); ok || err != nil {
			return p.setRows(rows, err)
		}
		if p.lazy, err = s.e.streamQuery(p.streamOK, c.q, c.plan, c.points, ectx, s.ws); p.lazy != nil || err != nil {
			p.tag = "SELECT 0" // executedTag counts the rows sent
			return err
		}
		rows, err = s.e.runPlan(c.q, c.plan, c.points, ectx, s.ws)
	} else {
		version := s.e.catalogVersion()
		var q *planner.Query
		q, err = s.e.planLockingQuery(n, planner.Options{ParamTypes: p.st.paramTypes, Params: p.params,
			TimeZone: s.settings.timeZone}, ectx, s.ws)
		if err != nil {
			return err
		}
		if err := p.st.checkResultTypes(version, q.Columns); err != nil {
			return err
		}
		plan, _, cerr := compile(q.Rel)
		if cerr != nil {
			return cerr
		}
		points := pointInputs(plan)
		if rows, ok, err := s.e.runPointPlan(directPoint(plan, points), q, ectx, s.ws); ok || err != nil {
			return p.setRows(rows, err)
		}
		if p.lazy, err = s.e.streamQuery(p.streamOK, q, plan, points, ectx, s.ws); p.lazy != nil || err != nil {
			p.tag = "SELECT 0" // executedTag counts the rows sent
			return err
		}
		rows, err = s.e.runPlan(q, plan, points, ectx, s.ws)
	}
	return p.setRows(rows, err)
}

// setRows buffers a SELECT's result rows (unless err) for Execute.
func (p *Portal) setRows(rows []repr.Row, err error) error {
	if err != nil {
		return err
	}
	p.rows = rows
	p.tag = selectTag(len(rows))
	return nil
}

// selectTags are the command tags of SELECTs returning fewer than
// len(selectTags) rows, built once: a point read returns one row, and
// its tag was built twice per query.
var selectTags = func() (tags [64]string) {
	for i := range tags {
		tags[i] = "SELECT " + strconv.Itoa(i)
	}
	return tags
}()

// selectTag returns the command tag of a SELECT that returned n rows.
func selectTag(n int) string {
	if n >= 0 && n < len(selectTags) {
		return selectTags[n]
	}
	return "SELECT " + strconv.Itoa(n)
}

func stack() string { return string(debug.Stack()) }
