package sql

import (
	"context"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Data-modifying WITH statements: WITH d AS (DELETE FROM t ... RETURNING
// *) INSERT INTO archive SELECT * FROM d, or WITH u AS (UPDATE ...
// RETURNING ...) SELECT ... FROM u.
//
// As in PostgreSQL, every part (each data-modifying WITH query, in
// order, then the main statement) runs exactly once and reads the same
// snapshot: the tables as the statement found them (the block's earlier
// writes included), never another part's changes (writeSet.readAs). A
// part sees the rows the parts before it returned, as constant relations
// (planner.CTEResult). The parts' changes go to the one write set in
// order, so constraints are checked against all of them (an INSERT may
// reuse a key a DELETE part freed) and views see the whole statement at
// one logical time. Two parts may update or delete rows of the same
// table: a row one part changed is skipped by the parts that run after it
// (modifying_order.go). WITH RECURSIVE with data-modifying parts is 0A000.

// returningAsWith rewrites an INSERT, UPDATE or DELETE whose RETURNING
// list has subqueries into its data-modifying WITH form
// (planner.RewriteReturning), which execModifying runs: the main SELECT
// evaluates RETURNING over the rows written, reading the tables as the
// statement found them. It returns the statement and the write's command
// tag prefix ("" when it is unchanged).
func returningAsWith(n *pg.Node) (*pg.Node, string) {
	r := planner.RewriteReturning(n)
	if r == nil {
		return n, ""
	}
	name, _ := writeCommandName(n)
	if name == "INSERT" {
		name = "INSERT 0"
	}
	return r, name
}

// hasModifyingCTE reports whether statement n has data-modifying WITH
// queries at its top level.
func hasModifyingCTE(n *pg.Node) bool {
	ces, _ := planner.ModifyingCTEs(n)
	return len(ces) > 0
}

// execModifying executes a statement with data-modifying WITH queries.
func (p *Portal) execModifying(ctx context.Context, n *pg.Node) error {
	s := p.st.s
	ces, w := planner.ModifyingCTEs(n)
	if err := checkModifyingParts(n, ces, w); err != nil {
		return err
	}
	ws := s.ws
	if s.tx == txIdle {
		ws = &writeSet{}
	}
	ectx := s.evalCtx()
	mark := ws.mark()
	ws.readAs = ws.frozen()
	opts := planner.Options{ParamTypes: p.st.paramTypes, Params: p.params, TimeZone: s.settings.timeZone,
		ModifyingCTEs: planner.DescribeModifyingCTEs(n)} // no rows until a part runs; nothing run earlier reads it
	deleting := false
	ws.claims = rowClaims{}
	err := func() error {
		for _, ce := range modifyingOrder(n, ces, w) {
			if ce == nil {
				if err := p.runMain(n, opts, ectx, ws, &deleting); err != nil {
					return err
				}
				continue
			}
			d, rows, _, err := s.e.runPart(planner.CTEStatement(w, ce), opts, ectx, ws)
			if err != nil {
				return err
			}
			deleting = deleting || d.del != nil
			opts.ModifyingCTEs[ce] = &planner.CTEResult{Columns: d.returningCols, Rows: rows}
		}
		return nil
	}()
	ws.claims = nil
	ws.readAs = nil
	if err == nil {
		err = s.e.checkStatement(ws, mark, ectx, deleting)
	}
	if err != nil {
		ws.rollbackTo(mark)
		p.rows = nil
		return err
	}
	if s.tx == txIdle {
		return s.e.commit(ws)
	}
	return nil
}

// runMain runs the main statement of a WITH statement with
// data-modifying parts: a SELECT reading the tables as the statement
// found them, or a write into ws (deleting notes a DELETE).
func (p *Portal) runMain(n *pg.Node, opts planner.Options, ectx *expr.Ctx, ws *writeSet, deleting *bool) error {
	if n.GetSelectStmt() != nil {
		return p.runMainQuery(n, opts, ectx, ws.readAs)
	}
	d, rows, tag, err := p.st.s.e.runPart(n, opts, ectx, ws)
	if err == nil {
		*deleting = *deleting || d.del != nil
		p.tag, p.rows = tag, rows
	}
	return err
}

// runPart plans and runs one write of a WITH statement into ws, returning
// its plan, its RETURNING rows and its command tag.
func (e *Engine) runPart(n *pg.Node, opts planner.Options, ectx *expr.Ctx, ws *writeSet) (*dmlPlan, []repr.Row, string, error) {
	d, err := e.planDML(n, opts)
	if err != nil {
		return nil, nil, "", err
	}
	changed, tag, err := e.writeRows(d, ectx, ws, false)
	if err != nil || d.returning == nil {
		return d, nil, tag, err
	}
	rows, err := evalRows(d.returning, changed, ectx)
	return d, rows, tag, err
}

// runMainQuery runs the SELECT of a WITH statement with data-modifying
// parts, reading the tables as read (the state before the statement).
func (p *Portal) runMainQuery(n *pg.Node, opts planner.Options, ectx *expr.Ctx, read *writeSet) error {
	s := p.st.s
	q, err := s.e.planQuery(n, opts)
	if err != nil {
		return err
	}
	rows, err := s.e.runQuery(q, ectx, read)
	if err != nil {
		return err
	}
	p.rows, p.tag = rows, "SELECT "+strconv.Itoa(len(rows))
	return nil
}

// checkModifyingParts refuses what a WITH statement with data-modifying
// parts cannot do honestly: WITH RECURSIVE, and row locks.
func checkModifyingParts(n *pg.Node, ces []*pg.CommonTableExpr, w *pg.WithClause) error {
	switch {
	case w.Recursive:
		return repr.Unsupported("WITH RECURSIVE with a data-modifying statement")
	case len(n.GetSelectStmt().GetLockingClause()) > 0:
		return repr.Unsupported("%s with a data-modifying WITH query", planner.LockName(n.GetSelectStmt()))
	}
	return nil
}

// refuseModifyingWith is PostgreSQL's 0A000 for a view, materialized view
// or cursor whose query has data-modifying WITH parts at its top level
// (what says which: "views must not contain"), which it cannot run once
// per read as it would have to.
func refuseModifyingWith(query *pg.Node, what string) error {
	if ces, _ := planner.ModifyingCTEs(query); len(ces) > 0 {
		return repr.Errorf(repr.CodeFeatureNotSupported, "%s data-modifying statements in WITH", what)
	}
	return nil
}
