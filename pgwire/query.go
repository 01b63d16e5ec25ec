package pgwire

import (
	"context"
	"io"

	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// handleQuery runs a simple-protocol Query: every statement of the string in
// turn, stopping at the first error, then ReadyForQuery. Like PostgreSQL's
// exec_simple_query it first drops the unnamed statement and portal.
func (c *conn) handleQuery(sql string) {
	delete(c.stmts, "")
	c.closePortal("")
	ctx := c.beginStatement()
	defer c.endStatement()
	c.runQuery(ctx, sql)
	c.readyForQuery()
}

// runQuery prepares sql and runs its statements; errors become ErrorResponse.
func (c *conn) runQuery(ctx context.Context, sql string) {
	stmts, err := c.sess.Prepare(ctx, sql, nil)
	if err != nil {
		c.sendError(err)
		return
	}
	if len(stmts) == 0 {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return
	}
	for _, st := range stmts {
		if !c.runSimple(ctx, st) || c.fatal {
			return
		}
	}
}

// runSimple binds st with no parameters and text results, describes and runs
// it; false after an error.
func (c *conn) runSimple(ctx context.Context, st Statement) bool {
	p, err := st.Bind(ctx, nil, nil, nil)
	if err != nil {
		c.sendError(err)
		return false
	}
	defer p.Close()
	if cols := p.Columns(); cols != nil {
		c.sendRowDescription(cols)
	}
	tag, suspended, err := c.execute(ctx, p, 0)
	c.sendNotices()
	c.sendChangedParameters()
	if err == nil && suspended {
		err = repr.Errorf(repr.CodeInternal, "portal suspended without a row limit")
	}
	if err != nil {
		c.sendError(err)
		return false
	}
	c.sendCommandComplete(tag)
	return true
}

// execute runs (or resumes) portal p, switching to COPY IN for CopyInPortal.
func (c *conn) execute(ctx context.Context, p Portal, maxRows int) (tag string, suspended bool, err error) {
	if cp, ok := p.(CopyInPortal); ok {
		tag, err = c.copyIn(ctx, cp)
		return tag, false, err
	}
	if cp, ok := p.(CopyOutPortal); ok {
		tag, err = c.copyOut(ctx, cp)
		return tag, false, err
	}
	return p.Execute(ctx, &c.rows, maxRows)
}

// copyIn sends CopyInResponse and streams the client's CopyData to
// cp.CopyIn. On success the rest of the stream (up to CopyDone) is drained so
// the protocol stays in step; on failure leftovers are dropped by the main
// loop, as in PostgreSQL.
func (c *conn) copyIn(ctx context.Context, cp CopyInPortal) (string, error) {
	format, colFormats := cp.CopyInFormat()
	resp := pgproto3.CopyInResponse{OverallFormat: byte(format), ColumnFormatCodes: make([]uint16, len(colFormats))}
	for i, f := range colFormats {
		resp.ColumnFormatCodes[i] = uint16(f)
	}
	c.be.Send(&resp)
	if err := c.flush(); err != nil {
		return "", err
	}
	r := copyReader{c: c}
	tag, err := cp.CopyIn(ctx, &r)
	if err == nil {
		err = r.drain()
	}
	if r.connErr != nil {
		c.fatal = true
	}
	return tag, err
}

// copyReader is the io.Reader given to CopyIn: it reads CopyData messages
// straight from the connection on the connection's goroutine (no pipe, no
// extra goroutine), returning io.EOF at CopyDone and an error at CopyFail.
type copyReader struct {
	c       *conn
	buf     []byte // rest of the current CopyData payload (aliases the read buffer)
	err     error  // sticky: io.EOF, CopyFail, a protocol or connection error
	connErr error  // the connection failed while reading
}

// Read implements io.Reader.
func (r *copyReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.next()
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// next receives one message of the copy stream.
func (r *copyReader) next() {
	msg, err := r.c.be.Receive()
	if err != nil {
		r.connErr = err
		r.err = repr.Errorf("08006", "connection lost during COPY: %v", err)
		if r.c.shuttingDown.Load() {
			r.err = errAdminShutdown
		}
		return
	}
	switch m := msg.(type) {
	case *pgproto3.CopyData:
		r.buf = m.Data
	case *pgproto3.CopyDone:
		r.err = io.EOF
	case *pgproto3.CopyFail:
		r.err = repr.Errorf(repr.CodeQueryCanceled, "COPY from stdin failed: %s", m.Message)
	case *pgproto3.Flush, *pgproto3.Sync:
		// Ignored during copy-in: clients may send them not knowing the
		// statement was a COPY (protocol docs, "COPY Operations").
	case *pgproto3.Terminate:
		r.connErr = io.EOF
		r.err = repr.Errorf("08006", "client terminated the connection during COPY")
	default:
		r.err = protocolViolation("unexpected message type %T during COPY from stdin", msg)
	}
}

// drain consumes the stream up to CopyDone; it returns the CopyFail or
// connection error if the stream ends otherwise.
func (r *copyReader) drain() error {
	for {
		r.buf = nil
		if r.err != nil {
			if r.err == io.EOF {
				return nil
			}
			return r.err
		}
		r.next()
	}
}

// copyOut sends CopyOutResponse, then each of the portal's writes as a
// CopyData message, then CopyDone.
func (c *conn) copyOut(ctx context.Context, cp CopyOutPortal) (string, error) {
	format, colFormats := cp.CopyOutFormat()
	resp := pgproto3.CopyOutResponse{OverallFormat: byte(format), ColumnFormatCodes: make([]uint16, len(colFormats))}
	for i, f := range colFormats {
		resp.ColumnFormatCodes[i] = uint16(f)
	}
	c.be.Send(&resp)
	w := copyWriter{c: c}
	tag, err := cp.CopyOut(ctx, &w)
	if err != nil {
		return "", err
	}
	c.be.Send(&pgproto3.CopyDone{})
	return tag, nil
}

// copyWriter turns each Write into one CopyData message, buffered like
// DataRows; Flush sends them.
type copyWriter struct {
	c   *conn
	msg pgproto3.CopyData
}

// Write implements io.Writer: p is sent as one CopyData message.
func (w *copyWriter) Write(p []byte) (int, error) {
	w.msg.Data = p
	w.c.be.Send(&w.msg)
	w.msg.Data = nil
	w.c.pending += 5 + len(p)
	if w.c.pending >= flushThreshold {
		if err := w.c.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush implements Flusher.
func (w *copyWriter) Flush() error { return w.c.flush() }

// Abort implements Aborter.
func (w *copyWriter) Abort() { w.c.abortWrites() }
