package sql

import (
	"context"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// dmlPlan is a planned INSERT, UPDATE or DELETE.
type dmlPlan struct {
	ins           *planner.Insert
	upd           *planner.Update
	del           *planner.Delete
	table         *planner.Relation
	returning     []expr.Expr
	returningCols []planner.ResultColumn
	paramTypes    []repr.T
}

// source is the query producing the rows of an INSERT, or finding those
// of an UPDATE ... FROM or DELETE ... USING (nil: none).
func (d *dmlPlan) source() *planner.Query {
	switch {
	case d.ins != nil:
		return d.ins.Source.WithRel()
	case d.upd != nil:
		return d.upd.From
	}
	return d.del.From
}

// planDML plans a data-modifying statement under the catalog read lock.
func (e *Engine) planDML(n *pg.Node, opts planner.Options) (*dmlPlan, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	d := &dmlPlan{paramTypes: opts.ParamTypes}
	var err error
	switch {
	case n.GetInsertStmt() != nil:
		d.ins, err = planner.PlanInsert(e.cat, n.GetInsertStmt(), opts)
		if err == nil {
			d.table, d.returning, d.returningCols, d.paramTypes = d.ins.Table, d.ins.Returning, d.ins.ReturningColumns, d.ins.Source.ParamTypes
		}
	case n.GetUpdateStmt() != nil:
		d.upd, err = planner.PlanUpdate(e.cat, n.GetUpdateStmt(), opts)
		if err == nil {
			d.table, d.returning, d.returningCols, d.paramTypes = d.upd.Table, d.upd.Returning, d.upd.ReturningColumns, d.upd.ParamTypes
		}
	case n.GetDeleteStmt() != nil:
		d.del, err = planner.PlanDelete(e.cat, n.GetDeleteStmt(), opts)
		if err == nil {
			d.table, d.returning, d.returningCols, d.paramTypes = d.del.Table, d.del.Returning, d.del.ReturningColumns, d.del.ParamTypes
		}
	}
	if err == nil && d.table.Kind != planner.RelTable {
		err = repr.Errorf(repr.CodeWrongObjectType, "cannot change %s \"%s\"", kindName(d.table.Kind), d.table.Name)
	}
	return d, err
}

// execDML plans and executes a write. In autocommit mode it commits at
// once; inside a block the changes join the block's write set.
func (p *Portal) execDML(ctx context.Context, n *pg.Node) error {
	s := p.st.s
	d, rebound := p.st.takeDML(), false
	if d == nil && len(p.params) > 0 && n == p.st.stmt.AST {
		d = p.st.rebindInsert(p.params)
		rebound = d != nil
	}
	ectx := s.evalCtx()
	if d == nil || len(p.params) > 0 && !rebound || n != p.st.stmt.AST {
		version := s.e.catalogVersion()
		err := s.e.withLockedSubqueries(planner.Options{ParamTypes: p.st.paramTypes, Params: p.params,
			TimeZone: s.settings.timeZone}, ectx, s.ws, func(opts planner.Options) (err error) {
			d, err = s.e.planDML(n, opts)
			return err
		})
		if err != nil {
			return err
		}
		if n == p.st.stmt.AST {
			p.st.keepInsert(d, version)
		}
	}
	var err error
	ws := s.ws
	if s.tx == txIdle {
		ws = &writeSet{}
	}
	mark := ws.mark()
	changed, tag, err := s.e.writeRows(d, ectx, ws, s.tx == txIdle)
	if err == nil {
		err = s.e.checkStatement(ws, mark, ectx, d.del != nil)
	}
	if err == nil {
		err = ws.accountSince(mark, ectx)
	}
	if err != nil {
		ws.rollbackTo(mark)
		return err
	}
	if s.tx == txIdle {
		if err := s.e.commit(ws); err != nil {
			return err
		}
	}
	p.tag = tag
	if d.returning != nil {
		p.rows, err = evalRows(d.returning, changed, ectx)
	}
	return err
}

// writeRows executes planned write d into ws, returning the rows changed
// (for RETURNING) and the command tag. autocommit says that ws is
// committed right after (see addRows).
func (e *Engine) writeRows(d *dmlPlan, ctx *expr.Ctx, ws *writeSet, autocommit bool) (changed []repr.Row, tag string, err error) {
	switch {
	case d.ins != nil && d.ins.OnConflict != nil:
		changed, err = e.upsertRows(d.ins, ctx, ws)
		tag = fmt.Sprintf("INSERT 0 %d", len(changed))
	case d.ins != nil:
		changed, err = e.insertRows(d.ins, ctx, ws, autocommit)
		tag = fmt.Sprintf("INSERT 0 %d", len(changed))
	case d.upd != nil:
		changed, err = e.updateRows(d.upd, ctx, ws)
		tag = fmt.Sprintf("UPDATE %d", len(changed))
	default:
		changed, err = e.deleteRows(d.del, ctx, ws)
		tag = fmt.Sprintf("DELETE %d", len(changed))
	}
	if err == nil {
		e.countWrite(ws, uint64(d.table.ID), writeKind(d), len(changed))
		ws.countMods(uint64(d.table.ID), len(changed))
	}
	return changed, tag, err
}

// writeKind is d's statement kind for the activity counters: 'i', 'u' or
// 'd' (an upsert's rows count as inserted, whichever they were).
func writeKind(d *dmlPlan) byte {
	switch {
	case d.ins != nil:
		return 'i'
	case d.upd != nil:
		return 'u'
	}
	return 'd'
}

// insertRows evaluates the INSERT's source and adds its rows to ws.
// A VALUES list of closed expressions is evaluated directly (see
// valuesRows); any other source runs as a query. autocommit says that ws
// is committed right after (see addRows).
func (e *Engine) insertRows(ins *planner.Insert, ctx *expr.Ctx, ws *writeSet, autocommit bool) ([]repr.Row, error) {
	rows, ok, err := valuesRows(ins.Source, ctx)
	if !ok {
		rows, err = e.runQuery(ins.Source, ctx, ws.reader())
	}
	if err != nil {
		return nil, err
	}
	return rows, e.addRows(ins.Table, rows, ws, autocommit)
}

// valuesRows evaluates an INSERT source that is a VALUES list whose
// expressions read no columns, in statement order, without optimizing,
// lowering and running a dataflow for it: for a 1,000-row INSERT that
// machinery costs more than the write itself. Each expression is
// evaluated exactly once with ctx, as the dataflow's Constant+MFP would,
// so results and errors are the same (the first failing row in statement
// order reports). ok is false for any other source.
func valuesRows(q *planner.Query, ctx *expr.Ctx) (rows []repr.Row, ok bool, err error) {
	if q.Rows != nil {
		return q.Rows, true, nil // evaluated at plan time
	}
	v, isValues := q.Rel.(*ir.Values)
	if !isValues || len(q.OrderBy) > 0 || q.Limit >= 0 || q.Offset > 0 || len(v.Types) != len(q.Columns) {
		return nil, false, nil
	}
	for _, r := range v.Rows {
		for _, x := range r {
			if !closedExpr(x) {
				return nil, false, nil
			}
		}
	}
	rows = make([]repr.Row, len(v.Rows))
	flat := make([]repr.Datum, len(v.Rows)*len(v.Types))
	for i, r := range v.Rows {
		row := flat[i*len(v.Types) : (i+1)*len(v.Types) : (i+1)*len(v.Types)]
		for j, x := range r {
			if row[j], err = evalClosed(x, ctx); err != nil {
				return nil, true, err
			}
		}
		rows[i] = row
	}
	return rows, true, nil
}

// evalClosed evaluates an expression that reads no columns.
func evalClosed(x expr.Expr, ctx *expr.Ctx) (repr.Datum, error) {
	if lit, ok := x.(*expr.Lit); ok {
		return lit.D, nil
	}
	return x.Eval(ctx, nil)
}

// closedExpr reports whether x is built only of the known scalar forms
// and reads no column (so it can be evaluated without an input row).
func closedExpr(x expr.Expr) bool {
	switch x := x.(type) {
	case *expr.Lit:
		return true
	case *expr.Call:
		return allClosed(x.Args)
	case *expr.Cast:
		return closedExpr(x.Arg)
	case *expr.And:
		return allClosed(x.Args)
	case *expr.Or:
		return allClosed(x.Args)
	case *expr.Not:
		return closedExpr(x.Arg)
	case *expr.IsNull:
		return closedExpr(x.Arg)
	case *expr.Coalesce:
		return allClosed(x.Args)
	case *expr.Case:
		for _, w := range x.Whens {
			if !closedExpr(w.Cond) || !closedExpr(w.Then) {
				return false
			}
		}
		return x.Else == nil || closedExpr(x.Else)
	}
	return false
}

func allClosed(xs []expr.Expr) bool {
	for _, x := range xs {
		if !closedExpr(x) {
			return false
		}
	}
	return true
}

// addRows adds new rows of table t to ws after checking NOT NULL and
// primary-key uniqueness as of the transaction; on error ws is unchanged.
//
// With autocommit (ws is empty and is committed right after), the key
// probes are left to the commit, which finds duplicates anyway as it
// applies the rows in order (Collection.Apply refuses them), with the
// same error: probing here too would cost one more B-tree lookup and map
// insertion per row. Only when a row violates NOT NULL are the rows before
// it probed, so that an earlier duplicate key is still the error reported,
// as PostgreSQL checks row by row.
func (e *Engine) addRows(t *planner.Relation, rows []repr.Row, ws *writeSet, autocommit bool) error {
	var bad repr.Row
	var err error
	if autocommit && ws.empty() {
		bad, err = e.firstNotNull(t, rows, ws)
	} else {
		bad, err = e.firstInvalid(t, rows, ws)
	}
	if err != nil {
		return err
	}
	if bad != nil {
		return duplicateKey(e.objectOf(t), bad)
	}
	ws.addAll(uint64(t.ID), rows, 1)
	return nil
}

// firstNotNull is firstInvalid without key probes unless a row violates
// NOT NULL: then the rows before it are probed for a duplicate key.
func (e *Engine) firstNotNull(t *planner.Relation, rows []repr.Row, ws *writeSet) (repr.Row, error) {
	for i, r := range rows {
		if err := checkNotNull(t, r); err != nil {
			if bad, _ := e.firstInvalid(t, rows[:i], ws); bad != nil {
				return bad, nil
			}
			return nil, err
		}
	}
	return nil, nil
}

// firstInvalid checks rows in order, each for NOT NULL and then for a
// primary key already live (committed, pending in ws, or earlier in rows),
// and returns the first failure: a not-null error, or the duplicate row.
// The engine's read lock is taken once for the whole batch.
func (e *Engine) firstInvalid(t *planner.Relation, rows []repr.Row, ws *writeSet) (repr.Row, error) {
	live := e.liveKeys(t, ws)
	if live == nil {
		for _, r := range rows {
			if err := checkNotNull(t, r); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, r := range rows {
		if err := checkNotNull(t, r); err != nil {
			return nil, err
		}
		k := live.key(r)
		if live.has(k) {
			return r, nil
		}
		live.add(k, 1)
	}
	return nil, nil
}

// updateRows applies an UPDATE: for every live row passing the filter, a
// retraction of the old row and an insertion of the new one. All
// retractions precede all insertions so that rows may swap keys. The
// rows returned (for RETURNING) are the new rows, followed for an
// UPDATE ... FROM by the columns of the FROM items' matching row.
func (e *Engine) updateRows(u *planner.Update, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, error) {
	rows, counts, err := e.targetRows(u.Table, u.Filter, u.From, ctx, ws)
	if err != nil {
		return nil, err
	}
	n := len(u.Table.Columns)
	rows, counts = ws.claims.claim(uint64(u.Table.ID), n, rows, counts)
	olds, news := make([]repr.Row, len(rows)), make([]repr.Row, len(rows))
	for i, r := range rows {
		nr := make(repr.Row, len(u.Set), len(r))
		for j, x := range u.Set {
			if nr[j], err = x.Eval(ctx, r); err != nil {
				return nil, err
			}
		}
		if err := checkNotNull(u.Table, nr); err != nil {
			return nil, err
		}
		olds[i], news[i] = r[:n:n], nr
	}
	if err := e.checkUpdatedKeys(u.Table, olds, news, ws); err != nil {
		return nil, err
	}
	id := uint64(u.Table.ID)
	var out []repr.Row
	for i, old := range olds {
		ws.add(id, old, -counts[i])
	}
	e.rowLocks.holdWritten(ws.owner, u.Table, olds, news)
	for i, nr := range news {
		ws.add(id, nr, counts[i])
		ret := append(nr, rows[i][n:]...)
		for k := int64(0); k < counts[i]; k++ {
			out = append(out, ret)
		}
	}
	return out, nil
}

// deleteRows retracts every live row passing the filter. The rows
// returned (for RETURNING) are the deleted rows, followed for a DELETE
// ... USING by the columns of the USING items' matching row.
func (e *Engine) deleteRows(d *planner.Delete, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, error) {
	rows, counts, err := e.targetRows(d.Table, d.Filter, d.From, ctx, ws)
	if err != nil {
		return nil, err
	}
	id, n := uint64(d.Table.ID), len(d.Table.Columns)
	rows, counts = ws.claims.claim(id, n, rows, counts)
	var out []repr.Row
	for i, r := range rows {
		ws.add(id, r[:n:n], -counts[i])
		e.rowLocks.holdWritten(ws.owner, d.Table, []repr.Row{r[:n:n]}, nil)
		for k := int64(0); k < counts[i]; k++ {
			out = append(out, r)
		}
	}
	return out, nil
}

// matchingRows returns the table's rows as the statement sees them (with
// the transaction's own changes) that pass filter, with their
// multiplicities; at REPEATABLE READ or SERIALIZABLE, 40001 if a later
// commit changed one of them (checkUnchanged).
func (e *Engine) matchingRows(t *planner.Relation, filter expr.Expr, ctx *expr.Ctx, ws *writeSet) (rows []repr.Row, counts []int64, err error) {
	live, err := e.liveRowsWhere(t, ws, filter, ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range live {
		if filter != nil {
			ok, err := isTrue(filter, ctx, u.Row)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
		}
		rows = append(rows, u.Row)
		counts = append(counts, u.Diff)
	}
	return rows, counts, e.checkUnchanged(uint64(t.ID), rows, ws)
}

func isTrue(e expr.Expr, ctx *expr.Ctx, row repr.Row) (bool, error) {
	d, err := e.Eval(ctx, row)
	if err != nil {
		return false, err
	}
	return !d.IsNull() && d.Bool(), nil
}

// checkNotNull enforces NOT NULL (and primary-key) columns: 23502.
func checkNotNull(t *planner.Relation, r repr.Row) error {
	for i, c := range t.Columns {
		if r[i].IsNull() && (c.NotNull || inKey(t.PrimaryKey, i)) {
			return repr.Errorf(repr.CodeNotNullViolation,
				"null value in column \"%s\" of relation \"%s\" violates not-null constraint", c.Name, t.Name)
		}
	}
	return nil
}

func inKey(key []int, i int) bool {
	for _, k := range key {
		if k == i {
			return true
		}
	}
	return false
}

// evalRows evaluates RETURNING expressions over the changed rows.
func evalRows(exprs []expr.Expr, rows []repr.Row, ctx *expr.Ctx) ([]repr.Row, error) {
	out := make([]repr.Row, len(rows))
	for i, r := range rows {
		o := make(repr.Row, len(exprs))
		for j, x := range exprs {
			v, err := x.Eval(ctx, r)
			if err != nil {
				return nil, err
			}
			o[j] = v
		}
		out[i] = o
	}
	return out, nil
}
