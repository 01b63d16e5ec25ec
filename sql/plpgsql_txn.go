package sql

import (
	"encoding/json"

	"github.com/eddydb/eddy/repr"
)

// COMMIT and ROLLBACK in PL/pgSQL: a procedure run by CALL, or a DO
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
