package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// A prepared SELECT is planned once, with its parameters as expr.Param
// nodes (planner.Options.GenericParams), optimized and lowered; each Bind
// then only decodes values into the evaluation context. This is
// PostgreSQL's generic plan. The plan is tied to the catalog version it
// was built against and is rebuilt after any DDL. A statement that cannot
// be planned generically (an untyped parameter, LIMIT $1) is planned with
// the bound values at every execution, as before.

// disableGenericPlans is a test knob: with it set every execution plans
// with the bound values as literals (the reference behaviour).
var disableGenericPlans bool

// cachedPlan is a statement's generic plan, or the record that it has
// none, for one catalog version.
type cachedPlan struct {
	version uint64
	tz      string         // the session time zone literals were folded in
	q       *planner.Query // nil: no generic plan
	plan    *dataflow.Plan
	points  []pointInput
	// point is the plan's direct point path (pointplan.go; nil: none).
	point *pointPlan
}

// planGeneric plans n with generic parameters under the engine's read
// lock, returning the catalog version planned against, or cached when
// the cached plan (st.plan) is current.
func (st *Statement) planGeneric(n *pg.Node, tz string) (q *planner.Query, v uint64, cached bool, err error) {
	e := st.s.e
	e.mu.RLock()
	defer e.mu.RUnlock()
	v = e.cat.version
	if c := st.plan; c != nil && c.version == v && c.tz == tz {
		return nil, v, true, nil
	}
	q, err = planner.PlanQuery(e.cat, n, planner.Options{ParamTypes: st.paramTypes, GenericParams: true, TimeZone: tz})
	return q, v, false, err
}

// genericPlan returns the statement's generic plan for the current
// catalog, building it on first use and after DDL; nil when the statement
// has none.
func (st *Statement) genericPlan(n *pg.Node) *cachedPlan {
	if disableGenericPlans || !typesKnown(st.paramTypes) {
		return nil
	}
	tz := st.s.settings.timeZone
	q, v, cached, err := st.planGeneric(n, tz)
	if cached {
		return st.plan.orNil()
	}
	c := &cachedPlan{version: v, tz: tz}
	if err == nil {
		if plan, _, cerr := compile(q.Rel); cerr == nil {
			c.q, c.plan, c.points = q, plan, pointInputs(plan)
			c.point = directPoint(plan, c.points)
		}
	}
	st.plan = c
	return c.orNil()
}

func (c *cachedPlan) orNil() *cachedPlan {
	if c.q == nil {
		return nil
	}
	return c
}

// typesKnown reports whether every parameter has a known type.
func typesKnown(ts []repr.T) bool {
	for _, t := range ts {
		if t.Family == repr.FamUnknown {
			return false
		}
	}
	return true
}

// checkResultTypes fails a statement whose result columns changed type
// since it was described (a table dropped and recreated differently): the
// client decodes rows by the described types, as PostgreSQL also insists.
// Only a statement described under an older catalog is checked.
func (st *Statement) checkResultTypes(version uint64, cols []planner.ResultColumn) error {
	if !st.described || st.cols == nil || version == st.catVersion {
		return nil
	}
	if len(cols) != len(st.cols) {
		return errResultChanged
	}
	for i, c := range cols {
		if c.Type != st.cols[i].Type {
			return errResultChanged
		}
	}
	return nil
}

// catalogVersion returns the catalog's change counter.
func (e *Engine) catalogVersion() uint64 {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cat.version
}

var errResultChanged = repr.Errorf(repr.CodeFeatureNotSupported, "cached plan must not change result type")
