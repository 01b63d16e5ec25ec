package sql

import (
	"context"

	"github.com/eddydb/eddy/repr"
)

// Cursors as protocol portals. In PostgreSQL a DECLAREd cursor is a portal:
// the extended protocol may Describe it, Execute it with a row limit and
// Close it by the cursor's name (psycopg 3's server-side cursors Describe
// the portal after DECLARE). pgwire keeps the portals it binds itself and
// falls back to CursorPortal for a name it does not hold, so both kinds
// share one namespace per session.

// CursorPortal returns a portal reading the named open cursor, or false if
// none is open. The portal reads the cursor's own position: Execute moves
// it as FETCH FORWARD does, so FETCH and Execute interleave as in
// PostgreSQL.
func (s *Session) CursorPortal(name string) (*Portal, bool) {
	c := s.cursors[name]
	if c == nil {
		return nil, false
	}
	st := &Statement{s: s, src: c.sql, cols: c.cols, described: true}
	var formats []int16
	if c.binary {
		formats = []int16{1}
	}
	return &Portal{st: st, formats: formats, executed: true, cur: c}, true
}

// CloseCursor closes the named cursor, if it is open (protocol Close of a
// portal that is a cursor).
func (s *Session) CloseCursor(name string) { s.dropCursor(name) }

// executeCursor is Execute of a cursor's portal: the next maxRows rows (0:
// all) from the cursor's position. As in PostgreSQL, a fetch that returns
// exactly maxRows rows suspends the portal; the tag is the query's,
// SELECT n.
func (p *Portal) executeCursor(ctx context.Context, w RowWriter, maxRows int) (tag string, suspended bool, err error) {
	s := p.st.s
	c := p.cur
	if s.cursors[c.name] != c {
		return "", false, errNoPortalCursor.New(c.name)
	}
	if s.tx == txFailed {
		return "", false, errInFailedTx
	}
	if c.sub != nil {
		return "", false, repr.Unsupported("Execute of the portal of a SUBSCRIBE cursor (use FETCH)")
	}
	n := int64(maxRows)
	if n <= 0 {
		n = fetchAll
	}
	c.interrupt(ctx)
	rows, err := c.forward(n)
	if err != nil {
		return "", false, err
	}
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return "", false, canceled(ctx)
		}
		if err := w.WriteRow(p.encode(r)); err != nil {
			return "", false, err
		}
	}
	if maxRows > 0 && len(rows) == maxRows {
		return "", true, nil
	}
	return selectTag(len(rows)), false, nil
}

var errNoPortalCursor = repr.ErrorKind{Code: repr.CodeInvalidCursor, Format: "portal \"%s\" does not exist"}
