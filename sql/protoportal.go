package sql

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// Protocol portals read by SQL FETCH, MOVE and CLOSE. In PostgreSQL a
// portal bound with the extended protocol lives in the same namespace as
// DECLAREd cursors, so FETCH n FROM p reads the named portal p from where
// Execute left it (and a later Execute goes on from where FETCH left it),
// MOVE skips rows and CLOSE drops the portal. Such a portal was not
// declared SCROLL: it moves only forward (55000 otherwise, also for FETCH
// RELATIVE 0 on a row, which re-reads by moving back one). FETCH returns
// text, whatever the Bind's result formats; a portal whose statement
// returns no rows cannot be fetched from (XX000 "unsupported portal
// strategy", PostgreSQL's message). pgwire drops every portal once the
// connection is idle outside a transaction block, so only a block's
// portals are there to fetch from.

// protocolPortal finds the protocol portal bound under name, if any.
func (s *Session) protocolPortal(name string) (*Portal, bool) {
	if s.backend.Portal == nil || name == "" {
		return nil, false
	}
	return s.backend.Portal(name)
}

// fetchPortal executes FETCH or MOVE fs on protocol portal q: it runs q's
// statement if no Execute has yet, then moves q's position as a NO SCROLL
// cursor over its rows would move.
func (p *Portal) fetchPortal(ctx context.Context, q *Portal, fs *pg.FetchStmt) error {
	switch {
	case q == p:
		return repr.Errorf("55000", "portal \"%s\" cannot be run", fs.Portalname)
	case q.stream != nil || q.copy != nil || q.copyTo != nil:
		return repr.Unsupported("FETCH from the portal of %s", stmtKind(q.st.stmt.AST))
	case len(q.st.cols) == 0:
		return repr.Errorf(repr.CodeInternal, "unsupported portal strategy")
	}
	if !q.executed {
		q.executed = true
		if err := q.run(ctx); err != nil {
			return err
		}
	}
	if err := q.materialize(); err != nil {
		return err
	}
	c := &cursor{name: fs.Portalname, rows: q.rows, pos: q.pos, noScroll: true}
	if q.pastEnd {
		c.pos = len(q.rows) + 1
	}
	rows, moved, err := c.fetch(fs.Direction, fs.HowMany)
	if err != nil {
		return err
	}
	q.pos, q.pastEnd = min(c.pos, len(q.rows)), c.pos > len(q.rows)
	if fs.Ismove {
		p.tag = "MOVE " + formatInt(int64(moved))
		return nil
	}
	p.rows = rows
	p.tag = "FETCH " + formatInt(int64(len(rows)))
	return nil
}

// executedTag is the command tag of an Execute that wrote n rows and
// completed: for a SELECT, PostgreSQL counts the rows of this Execute
// (SELECT 1 after a FETCH read the rest), for other statements the
// statement's tag.
func (p *Portal) executedTag(n int) string {
	if p.st.stmt.Ext == nil && p.st.stmt.AST.GetSelectStmt() != nil && strings.HasPrefix(p.tag, "SELECT ") {
		return selectTag(n)
	}
	return p.tag
}
