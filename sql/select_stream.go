package sql

import (
	"context"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Streaming ad hoc results. A SELECT that scans, filters and projects one
// stored collection, without ORDER BY, needs no state: its dataflow is one
// Source and at most one MFP. Instead of stepping the whole snapshot at
// once (a consolidated output, then the expanded rows, then the encoded
// result: three copies of the answer before the first row goes out), the
// portal steps the snapshot in chunks of streamChunk updates as the client
// takes rows, so the first row leaves at once, a portal read with an
// Execute row limit computes only what was asked for, and the memory of
// the result beyond the snapshot itself is one chunk. The snapshot is
// taken under the engine lock as for any query, so the answer is the
// collection at one logical time. Small collections (under streamMinRows)
// take the buffered path, whose cost per statement is lower.

const (
	streamChunk   = 1024
	streamMinRows = 4096
)

// disableStreaming makes every SELECT take the buffered path (tests
// compare the two).
var disableStreaming = false

// rowStream produces a streaming SELECT's rows chunk by chunk.
type rowStream struct {
	df     *exec.Dataflow
	ctx    *expr.Ctx
	t      repr.Time
	src    repr.CollectionID
	in     []repr.Update // the snapshot's updates not stepped yet
	chunk  []repr.Row    // rows of the last stepped chunk not handed out yet
	offset int64         // OFFSET rows still to skip
	limit  int64         // LIMIT rows still to hand out (< 0: no limit)
	ncols  int           // visible columns
	// head is the row peek returned and take has not consumed yet.
	head    repr.Row
	hasHead bool
}

// peek returns the next row without consuming it (ok false at the end).
func (r *rowStream) peek() (repr.Row, bool, error) {
	if !r.hasHead {
		row, ok, err := r.next()
		if err != nil || !ok {
			return nil, false, err
		}
		r.head, r.hasHead = row, true
	}
	return r.head, true, nil
}

// take consumes the row peek returned.
func (r *rowStream) take() { r.head, r.hasHead = nil, false }

// streamable reports whether plan is a Source of a stored user collection
// (not a system relation) possibly followed by one MFP, and returns the
// collection.
func streamable(plan *dataflow.Plan) (repr.CollectionID, bool) {
	if len(plan.Nodes) == 0 || len(plan.Nodes) > 2 || plan.Output != len(plan.Nodes)-1 {
		return 0, false
	}
	src, ok := plan.Nodes[0].Op.(dataflow.Source)
	if !ok || isSystemRelation(uint64(src.Collection)) {
		return 0, false
	}
	if len(plan.Nodes) == 2 {
		if _, ok := plan.Nodes[1].Op.(dataflow.MFP); !ok {
			return 0, false
		}
	}
	return src.Collection, true
}

// streamQuery returns a rowStream for q when allowed and its plan
// qualifies (see streamable; no ORDER BY, no point read, a large enough
// collection the transaction has not written to), else nil.
func (e *Engine) streamQuery(allowed bool, q *planner.Query, plan *dataflow.Plan, points []pointInput, ctx *expr.Ctx, ws *writeSet) (*rowStream, error) {
	id, ok := streamable(plan)
	if !allowed || disableStreaming || !ok || len(q.OrderBy) > 0 || len(q.Locks) > 0 || len(ws.pending(uint64(id))) > 0 {
		return nil, nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	c, err := e.peekColl(uint64(id), ws)
	if c == nil || err != nil || c.Len() < streamMinRows {
		return nil, err
	}
	for _, p := range points {
		if _, ok := e.choosePathIn(p, c); ok && !disablePointReads {
			return nil, nil // an index narrows the read: the buffered path is faster
		}
	}
	noteRead(ws, uint64(id))
	if err := e.checkReadable([]repr.CollectionID{id}); err != nil {
		return nil, err
	}
	df, err := exec.Build(plan)
	if err != nil {
		return nil, err
	}
	t := e.readTime(ws)
	return &rowStream{df: df, ctx: ctx, t: t, src: id, in: scanUpdates(c, t),
		offset: q.Offset, limit: q.Limit, ncols: len(q.Columns)}, nil
}

// next returns the next row (ok false at the end).
func (r *rowStream) next() (repr.Row, bool, error) {
	for {
		if r.limit == 0 {
			r.release()
			return nil, false, nil
		}
		if len(r.chunk) == 0 {
			if len(r.in) == 0 {
				r.release()
				return nil, false, nil
			}
			if err := r.step(); err != nil {
				r.release()
				return nil, false, err
			}
			continue
		}
		row := r.chunk[0]
		r.chunk = r.chunk[1:]
		if r.offset > 0 {
			r.offset--
			continue
		}
		if r.limit > 0 {
			r.limit--
		}
		return row[:r.ncols], true, nil
	}
}

// step runs the next chunk of the snapshot through the dataflow. The
// dataflow is stateless, so each chunk's output is its part of the
// answer; the snapshot is consolidated, so no multiplicity is negative.
func (r *rowStream) step() error {
	n := min(streamChunk, len(r.in))
	part := r.in[:n]
	out, err := r.df.StepInput(r.ctx, r.t, exec.Input{Updates: map[repr.CollectionID][]repr.Update{r.src: part}}, nil)
	clear(part) // the rows are the stream's no longer
	r.in = r.in[n:]
	if err != nil {
		return err
	}
	r.df.Commit()
	r.chunk, err = expand(out)
	return err
}

// release drops the snapshot and the dataflow once the stream ends.
func (r *rowStream) release() { r.in, r.chunk, r.df = nil, nil, nil }

// executeStream is Execute of a streaming SELECT: it writes up to maxRows
// rows (0: all) as the stream produces them, suspending when rows remain.
// An error (a cancel, a division by zero in a later chunk) fails the
// statement after the rows already sent, as in PostgreSQL.
func (p *Portal) executeStream(ctx context.Context, w RowWriter, maxRows int) (string, bool, error) {
	from := p.pos
	// Each Execute has its own statement context (statement_timeout).
	p.lazy.ctx.Interrupt = ctx.Done()
	for {
		row, ok, err := p.lazy.peek()
		if err != nil {
			return "", false, p.streamFailed(ctx, err)
		}
		if !ok {
			p.pastEnd = true
			return p.executedTag(p.pos - from), false, nil
		}
		if maxRows > 0 && p.pos-from == maxRows {
			return "", true, nil
		}
		if ctx.Err() != nil {
			return "", false, p.streamFailed(ctx, canceled(ctx))
		}
		if err := w.WriteRow(p.encode(row)); err != nil {
			return "", false, err
		}
		p.lazy.take()
		p.pos++
	}
}

// streamFailed turns a streaming SELECT's error into the statement's, as
// run does for others: 57014 for a cancel, and a failed block.
func (p *Portal) streamFailed(ctx context.Context, err error) error {
	p.lazy.release()
	err = asCanceled(ctx, err)
	if s := p.st.s; s.tx == txBlock {
		s.tx = txFailed
	}
	return err
}

// materialize turns a streaming portal into a buffered one (FETCH reads
// rows by position): the rows already sent are placeholders, the rest
// are computed now.
func (p *Portal) materialize() error {
	if p.lazy == nil {
		return nil
	}
	rows := make([]repr.Row, p.pos, p.pos+streamChunk)
	p.lazy.ctx.Interrupt = p.st.s.interrupt()
	for {
		row, ok, err := p.lazy.peek()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		rows = append(rows, row)
		p.lazy.take()
	}
	p.rows, p.lazy = rows, nil
	return nil
}
