package sql

import (
	"context"
	"io"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// subStream turns a subscription into result rows, in time order: the
// snapshot (unless disabled) at the subscription's time, then each commit's
// changes, each followed by a progress row when progress is on. Columns:
// eddy_timestamp, [eddy_progressed,] eddy_diff, then the relation's columns.
type subStream struct {
	sub      *Subscription
	opts     subscribeOptions
	cols     []resultCol
	pending  []types.Row
	started  bool
	finished bool
}

// fill makes rows pending: the snapshot first, then the next commit,
// waiting for one when wait is set. It returns an error when the
// subscription ended abnormally or ctx was cancelled.
func (st *subStream) fill(ctx context.Context, wait bool) error {
	if !st.started {
		st.started = true
		if st.opts.snapshot {
			st.add(st.sub.Time, st.sub.Snapshot)
		} else if st.opts.progress {
			st.pending = append(st.pending, st.progressRow(st.sub.Time))
		}
		if len(st.pending) > 0 {
			return nil
		}
	}
	for len(st.pending) == 0 && !st.finished {
		var ev SubEvent
		var ok bool
		if wait {
			select {
			case ev, ok = <-st.sub.Events:
			case <-ctx.Done():
				return canceled()
			}
		} else {
			select {
			case ev, ok = <-st.sub.Events:
			default:
				return nil
			}
		}
		if !ok {
			st.finished = true
			return st.sub.Err()
		}
		st.add(ev.Time, ev.Updates)
	}
	return nil
}

// add appends one time's updates (and its progress row).
func (st *subStream) add(t uint64, us []exec.Update) {
	for _, u := range us {
		r := make(types.Row, 0, len(st.cols))
		r = append(r, types.NewInt(int64(t)))
		if st.opts.progress {
			r = append(r, types.NewBool(false))
		}
		r = append(r, types.NewInt(u.Diff))
		st.pending = append(st.pending, append(r, u.Row...))
	}
	if st.opts.progress {
		st.pending = append(st.pending, st.progressRow(t))
	}
}

// progressRow marks logical time t as complete: all its changes precede it.
func (st *subStream) progressRow(t uint64) types.Row {
	r := make(types.Row, len(st.cols))
	r[0], r[1] = types.NewInt(int64(t)), types.NewBool(true)
	return r
}

// take removes up to n pending rows (n <= 0: all).
func (st *subStream) take(n int) []types.Row {
	if n <= 0 || n > len(st.pending) {
		n = len(st.pending)
	}
	out := st.pending[:n:n]
	st.pending = st.pending[n:]
	return out
}

// bindSubscribe opens the subscription of a SUBSCRIBE statement at Bind
// (its columns must be known before it runs), or declares a cursor over it.
func (p *Portal) bindSubscribe(x *parse.Subscribe) error {
	s := p.st.s
	sub, cols, opts, err := s.openSubscription(x)
	if err != nil {
		return err
	}
	st := &subStream{sub: sub, opts: opts, cols: cols}
	if x.CursorName != "" {
		s.declareCursor(x.CursorName, st)
		p.tag, p.executed = "DECLARE CURSOR", true
		return nil
	}
	p.stream, p.st.cols = st, cols
	return nil
}

// streamRows writes a subscription's rows as they happen until the client
// cancels (57014) or the subscription ends.
func (p *Portal) streamRows(ctx context.Context, w RowWriter) (string, error) {
	st := p.stream
	defer st.sub.Close()
	for {
		if err := st.fill(ctx, true); err != nil {
			return "", err
		}
		if st.finished && len(st.pending) == 0 {
			return "SUBSCRIBE", nil
		}
		for _, r := range st.take(0) {
			if err := w.WriteRow(p.encode(r)); err != nil {
				return "", err
			}
		}
		if f, ok := w.(interface{ Flush() error }); ok {
			if err := f.Flush(); err != nil {
				return "", err
			}
		}
	}
}

// IsCopyOut reports whether the portal is COPY (SUBSCRIBE ...) TO STDOUT.
func (p *Portal) IsCopyOut() bool { return p.stream != nil && p.copyOut }

// CopyOutFormat reports text format for every column.
func (p *Portal) CopyOutFormat() (int16, []int16) { return 0, make([]int16, len(p.stream.cols)) }

// CopyOut streams the subscription in COPY text format, one row per
// CopyData message, until the client cancels.
func (p *Portal) CopyOut(ctx context.Context, w io.Writer) (string, error) {
	_, err := p.streamRows(ctx, copyRowWriter{w: w, cols: p.stream.cols})
	if err != nil {
		return "", err
	}
	return "COPY 0", nil
}

// copyRowWriter formats rows in COPY's text format.
type copyRowWriter struct {
	w    io.Writer
	cols []resultCol
	buf  []byte
}

func (c copyRowWriter) WriteRow(vals [][]byte) error {
	c.buf = c.buf[:0]
	for i, v := range vals {
		if i > 0 {
			c.buf = append(c.buf, '\t')
		}
		if v == nil {
			c.buf = append(c.buf, `\N`...)
			continue
		}
		c.buf = appendCopyEscaped(c.buf, v)
	}
	c.buf = append(c.buf, '\n')
	_, err := c.w.Write(c.buf)
	return err
}

func (c copyRowWriter) Flush() error {
	if f, ok := c.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// appendCopyEscaped escapes a value for COPY's text format.
func appendCopyEscaped(buf, v []byte) []byte {
	for _, b := range v {
		switch b {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, b)
		}
	}
	return buf
}

// declareCursor registers a cursor over a subscription (replacing one of
// the same name).
func (s *Session) declareCursor(name string, st *subStream) {
	if s.cursors == nil {
		s.cursors = map[string]*subStream{}
	}
	if old := s.cursors[name]; old != nil {
		old.sub.Close()
	}
	s.cursors[name] = st
}

// cursor finds a declared cursor.
func (s *Session) cursor(name string) (*subStream, error) {
	st := s.cursors[name]
	if st == nil {
		return nil, pgerr.New(pgerr.CodeInvalidCursor, "cursor \"%s\" does not exist", name)
	}
	return st, nil
}

// closeCursors ends every cursor's subscription (session end).
func (s *Session) closeCursors() {
	for name, st := range s.cursors {
		st.sub.Close()
		delete(s.cursors, name)
	}
}

// execFetch executes FETCH n c over a SUBSCRIBE cursor: it returns the rows
// available, waiting for the next commit when there are none.
func (p *Portal) execFetch(ctx context.Context, fs *pg.FetchStmt) error {
	st, err := p.st.s.cursor(fs.Portalname)
	if err != nil {
		return err
	}
	if fs.Direction != pg.FetchDirection_FETCH_FORWARD {
		return pgerr.Unsupported("FETCH %s on a SUBSCRIBE cursor", strings.TrimPrefix(fs.Direction.String(), "FETCH_"))
	}
	n := int(fs.HowMany)
	if fs.HowMany >= 1<<31-1 { // FETCH ALL
		n = 0
	}
	if err := st.fill(ctx, true); err != nil {
		return err
	}
	for n <= 0 || len(st.pending) < n {
		before := len(st.pending)
		if err := st.fill(ctx, false); err != nil || len(st.pending) == before {
			break
		}
	}
	p.rows = st.take(n)
	p.tag = "FETCH " + formatInt(int64(len(p.rows)))
	if fs.Ismove {
		p.tag, p.rows = "MOVE "+formatInt(int64(len(p.rows))), nil
	}
	return nil
}

// execCloseCursor executes CLOSE c / CLOSE ALL.
func (p *Portal) execCloseCursor(cs *pg.ClosePortalStmt) error {
	s := p.st.s
	p.tag = "CLOSE CURSOR"
	if cs.Portalname == "" {
		s.closeCursors()
		return nil
	}
	st, err := s.cursor(cs.Portalname)
	if err != nil {
		return err
	}
	st.sub.Close()
	delete(s.cursors, cs.Portalname)
	return nil
}

// formatInt is the text form of an integer.
func formatInt(v int64) string { return strconv.FormatInt(v, 10) }
