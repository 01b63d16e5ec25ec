package sql

import (
	"maps"
	"time"

	"github.com/eddydb/eddy/repr"
)

// Implicit transactions.
//
// As in PostgreSQL's exec_simple_query, the statements of one
// multi-statement simple Query run as one implicit transaction block: the
// first statement outside a block opens it (startPart), the last one
// commits it (finishPart), and an error anywhere rolls back the
// statements before it (Failed) and skips the rest (pgwire stops at the
// first error). A BEGIN inside the string turns the implicit block into
// an explicit one that outlives the Query; COMMIT and ROLLBACK end it
// with PostgreSQL's WARNING "there is no transaction in progress", and
// the statements after them open a new implicit block. SAVEPOINT and its
// kin need an explicit block (25P01), as in PostgreSQL. A single
// statement stays in autocommit, and the extended protocol is unchanged.
//
// Unlike PostgreSQL, which refuses CREATE DATABASE and its like in a
// multi-statement Query, Eddy runs the statements that cannot run inside
// a block (CREATE SOURCE and SINK and their DROPs; see ddltxn.go) alone:
// the statements before them commit first, and those after form a new
// implicit block, since scripts create sources with their views in one
// string.

// startPart opens the implicit block for a statement of a multi-statement
// Query run outside a block.
func (s *Session) startPart(st *Statement) {
	if st.parts > 1 && s.tx == txIdle {
		s.beginBlock()
		s.blk.implicit = true
	}
}

// finishPart ends the implicit block after the Query's last statement,
// if it ran without error; err is the statement's own result, and the
// commit's error if that fails.
func (s *Session) finishPart(st *Statement, err error) error {
	if err != nil || st.parts < 2 || st.part != st.parts-1 || !s.blk.implicit || s.tx != txBlock {
		return err
	}
	if err := s.endTx(); err != nil {
		if s.tx == txBlock {
			s.tx = txFailed
		}
		return err
	}
	return nil
}

// beginBlock opens a transaction block with the session's default modes.
func (s *Session) beginBlock() {
	s.tx, s.ws = txBlock, &writeSet{owner: s}
	s.blk = block{committed: maps.Clone(s.settings.vals), sessionSets: map[string]string{}, who: s.who(),
		start: repr.TimeToTimestamp(time.Now())}
}

// abortImplicit rolls back an implicit block after an error.
func (s *Session) abortImplicit() {
	if s.tx != txIdle && s.blk.implicit {
		s.endRollback()
	}
}
