package sql

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// subStream turns a subscription into result rows, in time order: the
// snapshot (unless disabled) at the subscription's time, then each commit's
// changes, each followed by a progress row when progress is on. Columns:
// eddy_timestamp, [eddy_progressed,] eddy_diff, then the relation's columns.
type subStream struct {
	sub      *Subscription
	opts     subscribeOptions
	cols     []resultCol
	pending  []repr.Row
	started  bool
	finished bool
	// err is why the subscription ended (sticky: every later fill with
	// nothing pending returns it, so a FETCH that returned the last rows
	// does not swallow it).
	err error
}

// start makes the snapshot (or, without it, the first progress row)
// pending, once.
func (st *subStream) start() {
	if st.started {
		return
	}
	st.started = true
	if st.opts.snapshot {
		st.add(st.sub.Time, st.sub.Snapshot)
	} else if st.opts.progress {
		st.pending = append(st.pending, st.progressRow(st.sub.Time))
	}
	if c := st.sub.Catchup; c != nil {
		st.add(c.Time, c.Updates)
		if st.opts.progress {
			st.pending = append(st.pending, st.progressRow(c.Time))
		}
	}
}

// wait makes at least one row pending, waiting for the next commit when
// none is. It returns early, with nothing pending, when timeout fires (nil:
// never) or the subscription ended without error; it returns 57014 when
// ctx is cancelled and the subscription's error when it ended abnormally
// (once the rows that arrived before are taken).
func (st *subStream) wait(ctx context.Context, timeout <-chan time.Time) error {
	st.start()
	for len(st.pending) == 0 {
		if st.finished {
			return st.err
		}
		select {
		case ev, ok := <-st.sub.Events:
			st.receive(ev, ok)
		case <-ctx.Done():
			return canceled(ctx)
		case <-timeout:
			return nil
		}
	}
	return nil
}

// poll moves one commit that has already arrived into pending, without
// waiting; it reports whether there was one.
func (st *subStream) poll() bool {
	st.start()
	if st.finished {
		return false
	}
	select {
	case ev, ok := <-st.sub.Events:
		st.receive(ev, ok)
		return ok
	default:
		return false
	}
}

// receive handles one receive from Events: a commit's rows, or (!ok) the
// end of the subscription.
func (st *subStream) receive(ev SubEvent, ok bool) {
	if !ok {
		st.finished, st.err = true, st.sub.Err()
		return
	}
	st.sub.Consumed(ev)
	st.add(ev.Time, ev.Updates)
}

// add appends one time's updates (and its progress row).
func (st *subStream) add(t uint64, us []repr.Update) {
	for _, u := range us {
		r := make(repr.Row, 0, len(st.cols))
		r = append(r, repr.NewInt(int64(t)))
		if st.opts.progress {
			r = append(r, repr.NewBool(false))
		}
		r = append(r, repr.NewInt(u.Diff))
		st.pending = append(st.pending, append(r, u.Row...))
	}
	if st.opts.progress {
		st.pending = append(st.pending, st.progressRow(t))
	}
}

// progressRow marks logical time t as complete: all its changes precede it.
func (st *subStream) progressRow(t uint64) repr.Row {
	r := make(repr.Row, len(st.cols))
	r[0], r[1] = repr.NewInt(int64(t)), repr.NewBool(true)
	return r
}

// take removes up to n pending rows (n <= 0: all).
func (st *subStream) take(n int) []repr.Row {
	if n <= 0 || n > len(st.pending) {
		n = len(st.pending)
	}
	out := st.pending[:n:n]
	st.pending = st.pending[n:]
	return out
}

// bindSubscribe opens the subscription of a SUBSCRIBE statement at Bind
// (its columns must be known before it runs), or declares a cursor over it
// (only inside a transaction block, as PostgreSQL requires of DECLARE
// without HOLD; the cursor ends with the transaction).
func (p *Portal) bindSubscribe(x *parse.Subscribe) error {
	s := p.st.s
	if x.CursorName != "" && s.tx == txIdle {
		return repr.Errorf(repr.CodeNoActiveTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if err := p.st.checkPrivileges(); err != nil {
		return err
	}
	sub, cols, opts, err := s.openSubscription(x)
	if err != nil {
		return err
	}
	role, needs := s.currentUser(), p.st.needs
	sub.sub.check = func() error { return s.checkPrivilegesLocked(role, needs) }
	st := &subStream{sub: sub, opts: opts, cols: cols}
	if x.CursorName != "" {
		if err := s.declareCursor(&cursor{name: x.CursorName, sql: p.st.stmt.SQL, cols: cols, sub: st}); err != nil {
			return err
		}
		p.tag, p.executed = "DECLARE CURSOR", true
		return nil
	}
	p.stream, p.st.cols = st, cols
	return nil
}

// abortGrace is how long a streaming statement whose subscription was
// ended (it fell behind, or its view was dropped) may stay blocked writing
// to a client that does not read before its connection is cut.
const abortGrace = 2 * time.Second

// streamRows writes a subscription's rows as they happen until the client
// cancels (57014) or the subscription ends. A client that stops reading
// blocks the writes, never the engine: its subscription overflows and is
// ended, and if the writes are still blocked abortGrace later, the
// connection is aborted (the writer's Abort, when it has one).
func (p *Portal) streamRows(ctx context.Context, w RowWriter) (string, error) {
	st := p.stream
	defer st.sub.Close()
	if a, ok := w.(interface{ Abort() }); ok {
		defer watchStalled(st.sub, a.Abort)()
	}
	for {
		if err := st.wait(ctx, nil); err != nil {
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

// watchStalled calls abort if sub ends with an error and the returned stop
// function is not called within abortGrace after that. stop waits for the
// watcher, so abort never runs after stop returns.
func watchStalled(sub *Subscription, abort func()) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-done:
			return
		case <-sub.Ended():
		}
		if sub.Err() == nil {
			return
		}
		t := time.NewTimer(abortGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			abort()
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// copySubscribe streams the subscription of COPY (SUBSCRIBE ...) TO
// STDOUT in COPY text format, one row per CopyData message, until the
// client cancels.
func (p *Portal) copySubscribe(ctx context.Context, w io.Writer) (string, error) {
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
		c.buf = appendCopyText(c.buf, v, '\t')
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

// Abort forwards to the wire writer's Abort (see streamRows).
func (c copyRowWriter) Abort() {
	if a, ok := c.w.(interface{ Abort() }); ok {
		a.Abort()
	}
}

// fetchSubscribe executes FETCH n c over a SUBSCRIBE cursor. It waits
// until at least one row is available (Materialize's semantics), or
// fetch_timeout passes (then it returns no rows), and returns up to n of
// the rows available then without waiting for more (ALL: every available
// row).
func (p *Portal) fetchSubscribe(ctx context.Context, st *subStream, fs *pg.FetchStmt) error {
	n, err := fetchCount(fs)
	if err != nil {
		return err
	}
	var timeout <-chan time.Time
	if d := p.st.s.fetchTimeout(); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	// A FETCH waiting for commits must not hold back a block with DDL,
	// whose next statement waits for every running one (ddlidle.go).
	wait := func() error { return st.wait(ctx, timeout) }
	if err := p.st.s.e.gate.outside(ctx, p.st.s, true, wait); err != nil {
		return err
	}
	for (n <= 0 || len(st.pending) < n) && st.poll() {
	}
	p.rows = st.take(n)
	p.tag = "FETCH " + formatInt(int64(len(p.rows)))
	if fs.Ismove {
		p.tag, p.rows = "MOVE "+formatInt(int64(len(p.rows))), nil
	}
	return nil
}

// fetchCount is how many rows FETCH asks for: n >= 1, or 0 for ALL. A
// SUBSCRIBE cursor only moves forward, and FORWARD 0 (re-fetch the current
// row) has no meaning for it.
func fetchCount(fs *pg.FetchStmt) (int, error) {
	if fs.Direction != pg.FetchDirection_FETCH_FORWARD {
		return 0, repr.Unsupported("FETCH %s on a SUBSCRIBE cursor", strings.TrimPrefix(fs.Direction.String(), "FETCH_"))
	}
	switch {
	case fs.HowMany >= 1<<31-1: // ALL
		return 0, nil
	case fs.HowMany <= 0:
		return 0, repr.Unsupported("FETCH FORWARD 0 (re-fetch the current row) on a SUBSCRIBE cursor")
	}
	return int(fs.HowMany), nil
}

// subscribeBuffer is the session's subscribe_buffer: how many commits a
// subscription opened by this session may fall behind.
func (s *Session) subscribeBuffer() int {
	v, _ := s.settings.get("subscribe_buffer")
	n, _ := strconv.Atoi(v)
	return n
}

// fetchTimeout is the session's fetch_timeout (0: FETCH waits until a row
// is available).
func (s *Session) fetchTimeout() time.Duration {
	v, _ := s.settings.get("fetch_timeout")
	d, _ := parseDurationSetting(v)
	return d
}

// checkStreamSetting validates subscribe_buffer (1..1024 commits) and
// fetch_timeout (a duration: an integer in milliseconds, or a number with
// one of PostgreSQL's units us, ms, s, min, h, d), returning the value to
// store.
func checkStreamSetting(name, value string) (string, error) {
	if name == "subscribe_buffer" {
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil || n < 1 || n > maxSubscriberBuffer {
			return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"subscribe_buffer\": \"%s\"", value).
				WithHint("A number of commits from 1 to %d.", maxSubscriberBuffer)
		}
		return strconv.Itoa(n), nil
	}
	if _, err := parseDurationSetting(value); err != nil {
		return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"fetch_timeout\": \"%s\"", value).
			WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\"; a bare number is milliseconds.")
	}
	return strings.TrimSpace(value), nil
}

// parseDurationSetting parses a time setting the way PostgreSQL does for
// statement_timeout: a bare number is milliseconds.
func parseDurationSetting(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := v, "ms"
	if i >= 0 {
		num, unit = v[:i], strings.TrimSpace(v[i:])
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("invalid duration %q", v)
	}
	units := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
		"min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("invalid unit %q", unit)
	}
	return time.Duration(f * float64(u)), nil
}

// formatInt is the text form of an integer.
func formatInt(v int64) string { return strconv.FormatInt(v, 10) }
