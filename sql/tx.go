package sql

import (
	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// execTransaction handles BEGIN, COMMIT and ROLLBACK. COMMIT makes the
// block's writes visible to every view atomically at one logical time; a
// failed block's COMMIT rolls back, reporting ROLLBACK as PostgreSQL does.
func (p *Portal) execTransaction(ts *pg.TransactionStmt) error {
	s := p.st.s
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		p.tag = "BEGIN"
		if s.tx == txIdle {
			s.tx, s.ws = txBlock, &writeSet{}
		}
		return nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		p.tag = "COMMIT"
		s.closeCursors() // cursors end with their transaction, as in PostgreSQL
		ws, state, seqs := s.ws, s.tx, s.restartSeqs
		s.tx, s.ws, s.restartSeqs = txIdle, nil, nil
		switch state {
		case txFailed:
			p.tag = "ROLLBACK"
		case txBlock:
			if err := s.e.commit(ws); err != nil {
				return err
			}
			return s.e.restartSequences(seqs)
		}
		return nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		p.tag = "ROLLBACK"
		s.closeCursors()
		s.tx, s.ws, s.restartSeqs = txIdle, nil, nil
		return nil
	}
	return repr.Unsupported("transaction statement %s", ts.Kind)
}
