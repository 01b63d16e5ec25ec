package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/sql/parse"
)

// Reading one's own writes through materialized views.
//
// A materialized view's stored contents are the committed state: the
// pending writes of a transaction block reach it only at COMMIT. So that
// a query in a block (explicit, or the implicit block of a multi-statement
// Query such as `INSERT ...; SELECT * FROM v`) sees its block's writes
// through a view, as it sees them in the tables, a view that reads a
// written table (directly or through other views) is planned from its
// query, like a plain view, whose table reads add the pending writes.
// EMIT ON WINDOW CLOSE views keep their stored contents (their query
// alone would not say which windows are closed).

// pendingCatalog is the catalog of a query in a block with pending
// writes: materialized views over written tables read as plain views.
type pendingCatalog struct {
	*Catalog
	ws *writeSet
}

// Relation implements planner.Catalog.
func (c pendingCatalog) Relation(schema, name string) (*planner.Relation, error) {
	rel, err := c.Catalog.Relation(schema, name)
	if err != nil || rel.Kind != planner.RelMaterializedView {
		return rel, err
	}
	o := c.byID[uint64(rel.ID)]
	if o == nil || o.EmitOnWindowClose || !c.readsPending(o, map[uint64]bool{}) {
		return rel, nil
	}
	stmts, err := parse.Parse(o.SQL)
	if err != nil || len(stmts) != 1 {
		return rel, nil // planned as stored; it parsed when created
	}
	cp := *rel
	cp.Kind, cp.View = planner.RelView, stmts[0].AST
	return &cp, nil
}

// readsPending reports whether o reads, directly or through views, a
// relation the transaction wrote.
func (c pendingCatalog) readsPending(o *Object, seen map[uint64]bool) bool {
	for _, d := range o.Deps {
		if len(c.ws.pending(d)) > 0 {
			return true
		}
		if dep := c.byID[d]; dep != nil && !seen[d] && (dep.Kind == planner.RelView || dep.Kind == planner.RelMaterializedView) {
			seen[d] = true
			if c.readsPending(dep, seen) {
				return true
			}
		}
	}
	return false
}

// pendingViews reports whether some materialized view reads a relation
// ws wrote. The caller holds e.mu.
func (e *Engine) pendingViews(ws *writeSet) bool {
	if ws == nil || ws.empty() {
		return false
	}
	pc := pendingCatalog{e.cat, ws}
	for _, mv := range e.views {
		if !mv.transient && pc.readsPending(mv.obj, map[uint64]bool{}) {
			return true
		}
	}
	return false
}

// planQueryIn plans a query of a transaction with write set ws (nil
// outside a block): against pendingCatalog when some view reads its
// writes, else as planQuery.
func (e *Engine) planQueryIn(n *pg.Node, opts planner.Options, ws *writeSet) (*planner.Query, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.pendingViews(ws) {
		return planner.PlanQuery(pendingCatalog{e.cat, ws}, n, opts)
	}
	return planner.PlanQuery(e.cat, n, opts)
}

// readsOwnWrites reports whether the session's block wrote a relation
// some materialized view reads (its queries then bypass cached plans).
func (s *Session) readsOwnWrites() bool {
	if s.ws == nil || s.ws.empty() {
		return false
	}
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	return s.e.pendingViews(s.ws)
}
