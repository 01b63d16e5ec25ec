package sql

import (
	"context"
	"fmt"
	"runtime/debug"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
)

// planQuery plans a SELECT against the catalog (under the read lock, since
// DDL mutates the catalog).
func (e *Engine) planQuery(n *pg.Node, opts planner.Options) (*planner.Query, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return planner.PlanQuery(e.cat, n, opts)
}

// execSelect runs a query and buffers its rows.
func (p *Portal) execSelect(ctx context.Context, n *pg.Node) error {
	s := p.st.s
	q, err := s.e.planQuery(n, planner.Options{ParamTypes: p.st.paramTypes, Params: p.params})
	if err != nil {
		return err
	}
	rows, err := s.e.runQuery(q, s.evalCtx(), s.ws)
	if err != nil {
		return err
	}
	p.rows = rows
	p.tag = fmt.Sprintf("SELECT %d", len(rows))
	return nil
}

func stack() string { return string(debug.Stack()) }
