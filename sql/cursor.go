package sql

import (
	"context"
	"fmt"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// SQL cursors: DECLARE, FETCH, MOVE, CLOSE.
//
// A cursor over a query reads its result when it is declared (PostgreSQL's
// snapshot at DECLARE: the committed state plus the block's own writes so
// far) and keeps it: ad hoc execution computes a whole result anyway, and a
// cursor that survives its transaction (WITH HOLD) must keep its rows in
// PostgreSQL too. A kept result can be read in any direction, so FETCH
// supports every PostgreSQL direction; only a cursor declared NO SCROLL
// refuses to move backward. A cursor over a SUBSCRIBE reads the
// subscription as it goes (subscribe_stream.go) and only moves forward.
//
// Cursors share one namespace, which protocol portals reach too
// (cursorportal.go). One without HOLD can only be declared in a
// block and closes when the block ends; one WITH HOLD survives COMMIT and
// is dropped if its declaring block rolls back; ROLLBACK TO closes those
// declared after the savepoint.

// cursor is an open cursor.
type cursor struct {
	name    string
	sql     string
	seq     uint64
	created time.Time
	hold    bool
	binary  bool
	// scroll is SCROLL; noScroll is NO SCROLL (neither: backward allowed,
	// as PostgreSQL allows it for plans that can go backward).
	scroll, noScroll bool
	cols             []resultCol
	// rows is a query cursor's result read so far, rows base+1 through
	// base+len(rows) (a NO SCROLL cursor forgets the rows it passed:
	// base); pos is its position: 0 before the first row, i on row i
	// (1-based), known()+1 after the last.
	rows []repr.Row
	base int
	pos  int
	// lazy, while set, produces the rest of the result as FETCH asks
	// (select_stream.go); mem accounts the kept rows and the stream.
	lazy *rowStream
	mem  *memAccount
	err  error
	// sub is set for a cursor over a SUBSCRIBE.
	sub *subStream
}

// Cursor option bits of DeclareCursorStmt.Options (PostgreSQL's
// parsenodes.h).
const (
	cursorBinary   = 0x01
	cursorScroll   = 0x02
	cursorNoScroll = 0x04
	cursorHold     = 0x20
)

var (
	errDuplicateCursor = repr.ErrorKind{Code: "42P03", Format: "cursor \"%s\" already exists"}
	errNoCursor        = repr.ErrorKind{Code: repr.CodeInvalidCursor, Format: "cursor \"%s\" does not exist"}
)

// close releases the cursor's subscription or stream and its memory.
func (c *cursor) close() {
	if c.sub != nil {
		c.sub.sub.Close()
	}
	if c.lazy != nil {
		c.lazy.release()
		c.lazy = nil
	}
	c.rows = nil
	c.mem.release()
}

// declareCursor registers c under its name, which must be free.
func (s *Session) declareCursor(c *cursor) error {
	if _, ok := s.cursors[c.name]; ok {
		c.close()
		return errDuplicateCursor.New(c.name)
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursorSeq++
	c.seq, c.created = s.cursorSeq, time.Now()
	s.cursors[c.name] = c
	if c.hold && s.tx != txIdle {
		s.blk.holdCursors = append(s.blk.holdCursors, c.name)
	}
	return nil
}

// cursor finds a declared cursor (34000 if none).
func (s *Session) cursor(name string) (*cursor, error) {
	c := s.cursors[name]
	if c == nil {
		return nil, errNoCursor.New(name)
	}
	return c, nil
}

// dropCursor closes and forgets the named cursor, if it is open.
func (s *Session) dropCursor(name string) {
	if c := s.cursors[name]; c != nil {
		c.close()
		delete(s.cursors, name)
	}
}

// closeCursors closes every cursor (session end, CLOSE ALL, DISCARD ALL).
func (s *Session) closeCursors() {
	for name := range s.cursors {
		s.dropCursor(name)
	}
}

// closeTxCursors closes the cursors without HOLD (the block ended).
func (s *Session) closeTxCursors() {
	for name, c := range s.cursors {
		if !c.hold {
			s.dropCursor(name)
		}
	}
}

// closeCursorsAfter closes the cursors declared after the cursor counter
// was seq (ROLLBACK TO).
func (s *Session) closeCursorsAfter(seq uint64) {
	for name, c := range s.cursors {
		if c.seq > seq {
			s.dropCursor(name)
		}
	}
}

// execDeclare executes DECLARE name CURSOR FOR query: the query runs now
// and the cursor keeps its rows.
func (p *Portal) execDeclare(dc *pg.DeclareCursorStmt) error {
	s := p.st.s
	c := &cursor{name: dc.Portalname, sql: p.st.stmt.SQL, hold: dc.Options&cursorHold != 0,
		binary: dc.Options&cursorBinary != 0, scroll: dc.Options&cursorScroll != 0, noScroll: dc.Options&cursorNoScroll != 0}
	if !c.hold && s.tx == txIdle {
		return errOnlyInBlock.New("DECLARE CURSOR")
	}
	if _, ok := s.cursors[c.name]; ok || (s.backend.HasPortal != nil && s.backend.HasPortal(c.name)) {
		return errDuplicateCursor.New(c.name)
	}
	if dc.Query.GetSelectStmt() == nil {
		return repr.Errorf("42P11", "cannot open %s query as cursor", strings.TrimSuffix(strings.ToUpper(stmtKind(dc.Query)), "STMT"))
	}
	if err := refuseModifyingWith(dc.Query, "DECLARE CURSOR must not contain"); err != nil {
		return err
	}
	// Locking blocks below the top level run (and lock their rows) now,
	// not as the cursor reads them: more conflicts, never fewer.
	q, err := s.e.planLockingQuery(dc.Query, planner.Options{ParamTypes: p.st.paramTypes, Params: p.params,
		TimeZone: s.settings.timeZone}, s.evalCtx(), s.ws)
	if err != nil {
		return err
	}
	s.markQueried()
	if err := s.e.openCursor(c, q, s.evalCtx(), s.ws); err != nil {
		return err
	}
	c.cols = queryColumns(q.Columns)
	p.tag = "DECLARE CURSOR"
	return s.declareCursor(c)
}

// execFetch executes FETCH and MOVE.
func (p *Portal) execFetch(ctx context.Context, fs *pg.FetchStmt) error {
	c, err := p.st.s.cursor(fs.Portalname)
	if q, ok := p.st.s.protocolPortal(fs.Portalname); err != nil && ok {
		return p.fetchPortal(ctx, q, fs)
	}
	if err != nil {
		return err
	}
	if c.sub != nil {
		return p.fetchSubscribe(ctx, c.sub, fs)
	}
	c.interrupt(ctx)
	rows, moved, err := c.fetch(fs.Direction, fs.HowMany)
	if err != nil {
		return err
	}
	if fs.Ismove {
		p.tag = "MOVE " + formatInt(int64(moved))
		return nil
	}
	p.rows = rows
	p.tag = "FETCH " + formatInt(int64(len(rows)))
	return nil
}

// fetchAll is FetchStmt.HowMany for ALL (PostgreSQL's FETCH_ALL, LONG_MAX).
const fetchAll = 1<<63 - 1

// fetch moves the cursor as FETCH direction n does and returns the rows it
// passes over (in the order read) and how many.
func (c *cursor) fetch(dir pg.FetchDirection, n int64) ([]repr.Row, int, error) {
	// FORWARD 0, BACKWARD 0 and RELATIVE 0 re-read the current row by
	// moving back onto it, as PostgreSQL does.
	onRow := c.pos > 0 && c.pos <= c.known()
	backward := dir == pg.FetchDirection_FETCH_BACKWARD && (n != 0 || onRow) ||
		(dir == pg.FetchDirection_FETCH_RELATIVE && (n < 0 || n == 0 && onRow)) ||
		(dir == pg.FetchDirection_FETCH_FORWARD && n == 0 && onRow) ||
		(dir == pg.FetchDirection_FETCH_ABSOLUTE && (n <= 0 || int(min(n, fetchAll-1)) <= c.pos))
	if backward && c.noScroll {
		return nil, 0, repr.Errorf("55000", "cursor can only scan forward").
			WithHint("Declare it with SCROLL option to enable backward scan.")
	}
	switch dir {
	case pg.FetchDirection_FETCH_FORWARD:
		if n == 0 {
			return c.relative(0)
		}
		rows, err := c.forward(n)
		return rows, len(rows), err
	case pg.FetchDirection_FETCH_BACKWARD:
		if n == 0 {
			return c.relative(0)
		}
		rows := c.backward(n)
		return rows, len(rows), nil
	case pg.FetchDirection_FETCH_ABSOLUTE:
		return c.absolute(n)
	case pg.FetchDirection_FETCH_RELATIVE:
		return c.relative(n)
	}
	return nil, 0, repr.Unsupported("FETCH %s", dir)
}

// forward returns the next n rows and moves past them (after the last
// row if fewer remain).
func (c *cursor) forward(n int64) ([]repr.Row, error) {
	if err := c.fill(min(int64(c.pos), fetchAll-n) + n); err != nil { // saturating
		return nil, err
	}
	last := c.known()
	from := min(c.pos, last)
	to := last
	if n < int64(last-from) {
		to = from + int(n)
	}
	out := c.slice(from, to)
	c.pos = to
	if int64(len(out)) < n {
		c.pos = last + 1
	}
	c.forget()
	return out, nil
}

// backward returns the previous n rows, nearest first, and moves onto the
// last one returned (before the first row if fewer remain).
func (c *cursor) backward(n int64) []repr.Row {
	var out []repr.Row
	pos := min(c.pos, c.known()+1)
	for int64(len(out)) < n && pos > 1 {
		pos--
		out = append(out, c.rows[pos-1-c.base])
	}
	c.pos = pos
	if int64(len(out)) < n {
		c.pos = 0
	}
	return out
}

// absolute moves to row k (from the end when negative) and returns it.
func (c *cursor) absolute(k int64) ([]repr.Row, int, error) {
	if k < 0 {
		if err := c.fill(fetchAll); err != nil {
			return nil, 0, err
		}
		k = max(int64(c.known())+1+k, 0)
	}
	return c.moveTo(k)
}

// relative moves k rows from the current position and returns the row
// reached; RELATIVE 0 returns the current row again.
func (c *cursor) relative(k int64) ([]repr.Row, int, error) {
	target := int64(c.pos) + k
	if k > 0 && target < int64(c.pos) { // overflow
		target = fetchAll
	}
	return c.moveTo(max(target, 0))
}

// moveTo positions the cursor at row k, clamped to before the first
// (k = 0) or after the last, and returns the row there, if any.
func (c *cursor) moveTo(k int64) ([]repr.Row, int, error) {
	if err := c.fill(k); err != nil {
		return nil, 0, err
	}
	last := int64(c.known())
	if k > last {
		c.pos = int(last) + 1
		return nil, 0, nil
	}
	c.pos = int(k)
	if k == 0 {
		return nil, 0, nil
	}
	row := c.slice(int(k-1), int(k))
	c.forget()
	return row, 1, nil
}

// execCloseCursor executes CLOSE name / CLOSE ALL.
func (p *Portal) execCloseCursor(cs *pg.ClosePortalStmt) error {
	s := p.st.s
	p.tag = "CLOSE CURSOR"
	if cs.Portalname == "" {
		s.closeCursors()
		return nil
	}
	if _, err := s.cursor(cs.Portalname); err != nil {
		if s.backend.ClosePortal != nil && s.backend.ClosePortal(cs.Portalname) {
			return nil
		}
		return err
	}
	s.dropCursor(cs.Portalname)
	return nil
}

// fetchFormats are the result formats of a FETCH from a BINARY cursor
// (every column binary), or formats unchanged.
func (s *Session) fetchFormats(n *pg.Node, formats []int16) []int16 {
	if fs := n.GetFetchStmt(); fs != nil {
		if c := s.cursors[fs.Portalname]; c != nil && c.binary && len(formats) == 0 {
			return []int16{1}
		}
	}
	return formats
}

// openCursor computes c's query q: lazily when it streams (a monotone
// plan read from O(1) snapshots taken now, select_stream.go) and the
// block reads no pinned snapshot (whose spilled clones end with the
// block, while a WITH HOLD cursor outlives it), else at once.
func (e *Engine) openCursor(c *cursor, q *planner.Query, ctx *expr.Ctx, ws *writeSet) error {
	c.mem = e.mem.account(fmt.Sprintf("cursor %q", c.name))
	ctx.Memory = c.mem.memory()
	plan, _, err := compile(q.Rel)
	if err != nil {
		return err
	}
	points := pointInputs(plan)
	if snapshotOf(ws) == nil {
		if c.lazy, err = e.streamQuery(true, q, plan, points, ctx, ws); c.lazy != nil || err != nil {
			return err
		}
	}
	c.rows, err = e.runPlan(q, plan, points, ctx, ws)
	return err
}

// interrupt makes ctx (the FETCH's or Execute's statement context) end
// the cursor's stream when cancelled.
func (c *cursor) interrupt(ctx context.Context) {
	if c.lazy != nil {
		c.lazy.ctx.Interrupt = ctx.Done()
	}
}

// known returns the number of rows read so far (the whole result's once
// the stream ended).
func (c *cursor) known() int { return c.base + len(c.rows) }

// fill reads rows from the stream until k are known or it ends. An error
// of the stream ends it and is the FETCH's (and every later one's).
func (c *cursor) fill(k int64) error {
	if c.err != nil {
		return c.err
	}
	for c.lazy != nil && int64(c.known()) < k {
		row, ok, err := c.lazy.next()
		if err == nil && ok && c.mem != nil {
			err = c.mem.Grow(rowMemBytes(row))
		}
		if err != nil || !ok {
			c.lazy.release()
			c.lazy, c.err = nil, err
			return err
		}
		c.rows = append(c.rows, row)
	}
	return nil
}

// slice returns rows from+1 through to (from >= base).
func (c *cursor) slice(from, to int) []repr.Row {
	return c.rows[from-c.base : to-c.base : to-c.base]
}

// forget drops, for a NO SCROLL cursor, the rows at or before its
// position, which it can never read again.
func (c *cursor) forget() {
	if !c.noScroll || c.pos <= c.base {
		return
	}
	drop := min(c.pos, c.known()) - c.base
	for _, r := range c.rows[:drop] {
		c.mem.free(rowMemBytes(r))
	}
	c.rows = append([]repr.Row(nil), c.rows[drop:]...)
	c.base += drop
}
