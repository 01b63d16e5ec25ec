package sql

import (
	"encoding/json"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// CALL, COMMIT and ROLLBACK in PL/pgSQL: a procedure run by CALL, or a DO
// block, that started outside a transaction block runs in a block of
// its own (plExec.atomic); COMMIT ends that block and opens the next
// (ROLLBACK undoes it first), as PostgreSQL's transaction-controlled
// procedures do. Everywhere else (inside a client's block, in a
// function, in a procedure another routine called, under an EXCEPTION
// block's savepoint) it is PostgreSQL's 2D000. AND CHAIN is 0A000.

// codeInvalidTxnTermination is PostgreSQL's 2D000.
const codeInvalidTxnTermination = "2D000"

// commit runs COMMIT in a procedure or DO block.
func (x *plExec) commit(f map[string]json.RawMessage) error { return x.endTxn(f, "COMMIT", "commit") }

// rollback runs ROLLBACK in a procedure or DO block.
func (x *plExec) rollback(f map[string]json.RawMessage) error {
	return x.endTxn(f, "ROLLBACK", "roll back")
}

// endTxn ends the routine's block with stmt and opens the next one.
func (x *plExec) endTxn(f map[string]json.RawMessage, stmt, verb string) error {
	if string(f["chain"]) == "true" {
		return repr.Unsupported("%s AND CHAIN in PL/pgSQL", stmt)
	}
	if !x.ownsTxn() {
		return repr.Errorf(codeInvalidTxnTermination, "invalid transaction termination")
	}
	if len(x.s.blk.savepoints) > 0 {
		return repr.Errorf(codeInvalidTxnTermination, "cannot %s while a subtransaction is active", verb)
	}
	if err := x.exec(stmt); err != nil {
		return err
	}
	return x.exec("BEGIN")
}

// ownsTxn reports whether x may end its transaction: it is the DO block
// or the procedure a CALL runs (not a routine they call), and that
// statement started outside a transaction block.
func (x *plExec) ownsTxn() bool {
	if !x.s.plTxnControl {
		return false
	}
	if x.call == nil {
		return x.s.plDepth == 0
	}
	return x.call.def.Proc && x.s.plDepth == 1
}

// txnControl marks the running CALL or DO as started outside a
// transaction block (so its routine may COMMIT) until the returned
// function restores the mark.
func (s *Session) txnControl() func() {
	prev := s.plTxnControl
	s.plTxnControl = s.tx == txIdle && s.plDepth == 0
	return func() { s.plTxnControl = prev }
}

// callProc runs CALL p(args) inside PL/pgSQL: the procedure runs as a
// nested routine, and the values of its OUT and INOUT parameters go to
// the variables written as their arguments (42601 when such an
// argument is not a variable, as PostgreSQL).
func (x *plExec) callProc(f map[string]json.RawMessage) error {
	text, err := exprOf(f["expr"])
	if err != nil {
		return err
	}
	orig, err := parseOne(text)
	if err != nil {
		return err
	}
	n, err := x.substitute(text)
	if err != nil {
		return err
	}
	cs, ocs := n.GetCallStmt(), orig.GetCallStmt()
	if cs == nil || ocs == nil {
		return repr.Errorf(repr.CodeSyntax, "query \"%s\" is not a CALL", text)
	}
	if err := x.interrupted(); err != nil {
		return err
	}
	c, err := x.s.e.callQuery(cs)
	if err != nil {
		return err
	}
	var targets []int
	if c.proc != nil && len(c.proc.OutArgs) > 0 {
		if targets, err = x.callTargets(c.proc, ocs.Funccall.Args); err != nil {
			return err
		}
	}
	q, err := c.plan(planner.Options{TimeZone: x.s.settings.timeZone}, func(n *pg.Node, opts planner.Options) (*planner.Query, error) {
		return x.s.e.planQueryIn(n, opts, x.s.ws)
	})
	if err != nil {
		return err
	}
	ectx := x.s.evalCtx()
	ectx.Interrupt = x.ctx.Done()
	rows, err := x.s.e.runQuery(q, ectx, x.s.ws)
	if err = asCanceled(x.ctx, err); err != nil || len(rows) == 0 {
		return err
	}
	for i, varno := range targets {
		if err := x.setVar(varno, plValue{rows[0][i], q.Columns[i].Type}); err != nil {
			return err
		}
	}
	return nil
}

// callTargets are the variables (datum numbers) written as the
// arguments of proc's OUT and INOUT parameters, in OutArgs order.
func (x *plExec) callTargets(proc *FuncDef, args []*pg.Node) ([]int, error) {
	targets := make([]int, len(proc.OutArgs))
	for i := range targets {
		targets[i] = -1
	}
	pos := 0
	for _, a := range args {
		out := -1
		if na := a.GetNamedArgExpr(); na != nil {
			for j, o := range proc.OutArgs {
				if o.Name == na.Name {
					out = j
				}
			}
			a = na.Arg
		} else if pos < len(proc.Modes) {
			if m := proc.Modes[pos]; m == 'o' || m == 'b' {
				out = outIndex(proc.Modes, pos)
			}
			pos++
		}
		if out < 0 {
			continue
		}
		v, ok := x.variableOf(a)
		if !ok {
			return nil, repr.Errorf(repr.CodeSyntax, "procedure parameter \"%s\" is an output parameter but corresponding argument is not writable", proc.OutArgs[out].Name)
		}
		targets[out] = v
	}
	for i, t := range targets {
		if t < 0 {
			return nil, repr.Errorf(repr.CodeSyntax, "procedure parameter \"%s\" is an output parameter but corresponding argument is not writable", proc.OutArgs[i].Name)
		}
	}
	return targets, nil
}

// variableOf is the datum number of the variable n names, if it is a
// lone variable reference.
func (x *plExec) variableOf(n *pg.Node) (int, bool) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return 0, false
	}
	i, ok := x.vars[strings.ToLower(cr.Fields[0].GetString_().Sval)]
	if !ok || x.datums[i].rec || x.datums[i].isRow {
		return 0, false
	}
	return i, true
}
