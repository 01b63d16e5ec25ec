package sql

import (
	"context"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Streaming ad hoc results. A SELECT without ORDER BY whose plan is
// monotone (sources, maps and filters, inner joins, unions, table
// functions: given insertions only, each Step's output is insertions
// that later Steps never retract) produces its answer piece by piece:
// instead of running its dataflow over every input at once (a
// consolidated output, then the expanded rows, then the encoded result:
// three copies of the answer before the first row goes out), the portal
// steps its inputs' snapshots (queryFeed: O(1) snapshots taken under the
// engine lock, so the answer is the inputs at one logical time) in
// chunks as the client takes rows, small inputs and the small sides of
// joins first, the largest last, so the first row leaves at once, a
// portal read with an Execute row limit computes only what was asked
// for, and the memory of the result is one chunk's (the joins' state is
// their own, accounted by exec). A chunk starts at streamChunk rows and
// doubles up to feedChunk. Plans reading shared arrangements (which must
// hold the engine lock while they run), transactions that wrote to an
// input (their retractions would retract rows already sent) and small
// inputs (under streamMinRows rows: the buffered path's cost per
// statement is lower) take the buffered path.

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
	arr    exec.Arrangements // probe-only joins' (query_probe.go)
	feed   *queryFeed
	ctx    *expr.Ctx
	chunk  []repr.Row // rows of the last stepped chunk not handed out yet
	offset int64      // OFFSET rows still to skip
	limit  int64      // LIMIT rows still to hand out (< 0: no limit)
	ncols  int        // visible columns
	// transient says which Steps' growth is freed once they are done
	// (see transientGrowth).
	transient growth
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

// monotone reports whether plan, fed insertions only, outputs insertions
// only, each final once output: every node is a source, constant, MFP,
// union, table function or inner join that reads no shared arrangement.
func monotone(plan *dataflow.Plan) bool {
	for _, n := range plan.Nodes {
		switch op := n.Op.(type) {
		case dataflow.Source, dataflow.Constant, dataflow.MFP, dataflow.Union, dataflow.FlatMap:
		case dataflow.Join:
			if op.Kind != dataflow.InnerJoin || op.Shared != nil {
				return false
			}
		case dataflow.DeltaJoin:
			for _, path := range op.Paths {
				for _, l := range path {
					if l.Shared != 0 {
						return false
					}
				}
			}
		default:
			return false
		}
	}
	return true
}

// streamQuery returns a rowStream for q when allowed and its plan
// qualifies (see above), else nil.
func (e *Engine) streamQuery(allowed bool, q *planner.Query, plan *dataflow.Plan, points []pointInput, ctx *expr.Ctx, ws *writeSet) (*rowStream, error) {
	if !allowed || disableStreaming || len(q.OrderBy) > 0 || len(q.Locks) > 0 || !monotone(plan) {
		return nil, nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if shared, skip := e.sharedPlan(plan, points, ws); skip != nil || !monotone(shared) {
		return nil, nil
	}
	df, err := exec.Build(plan)
	if err != nil {
		return nil, err
	}
	for _, id := range df.Sources() {
		if len(ws.pending(uint64(id))) > 0 || isSystemRelation(uint64(id)) {
			return nil, nil
		}
	}
	if err := e.checkReadable(df.Sources()); err != nil {
		return nil, err
	}
	feed, err := e.openFeedBy(points, df.Sources(), nil, ctx, e.readTime(ws), ws, streamMinRows-1, streamChunk)
	if err != nil || len(feed.scans) == 0 {
		feed.close()
		return nil, err
	}
	df, arr := probeDataflow(plan, feed, df, nil)
	return &rowStream{df: df, arr: arr, feed: feed, ctx: ctx, offset: q.Offset, limit: q.Limit, ncols: len(q.Columns),
		transient: transientGrowth(df.Plan())}, nil
}

// next returns the next row (ok false at the end).
func (r *rowStream) next() (repr.Row, bool, error) {
	for {
		if r.limit == 0 || r.df == nil {
			r.release()
			return nil, false, nil
		}
		if len(r.chunk) == 0 {
			more, err := r.step()
			if err != nil || !more {
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

// step runs the next chunk of the inputs through the dataflow (more false
// when none is left). The plan is monotone, so each chunk's output is its
// part of the answer.
func (r *rowStream) step() (more bool, err error) {
	in, ok, err := r.feed.next(r.ctx)
	if err != nil || !ok {
		return false, err
	}
	mark := stepMark(r.ctx)
	out, err := r.df.StepInput(r.ctx, r.feed.t, exec.Input{Updates: in, Arrangements: r.arr}, nil)
	if err != nil {
		return false, err
	}
	r.df.Commit()
	if r.transient == growthAll || r.transient == growthLast && r.feed.lastFed {
		mark.free() // the Step's output, dropped as it is sent
	}
	r.chunk, err = expand(out)
	return true, err
}

// growth says which Steps of a stream keep nothing (see transientGrowth).
type growth uint8

const (
	growthKept growth = iota // the Steps may keep state: their growth stays accounted
	growthLast               // the Steps of the last input keep nothing
	growthAll                // no Step keeps anything
)

// transientGrowth classifies the Steps of plan: a plan without joins
// keeps nothing; one whose only join is probe-only (query_probe.go: it
// probes with the input fed last) keeps nothing while that input is fed
// (the other side is whole by then); otherwise a Step may arrange rows,
// and its growth stays accounted until the stream ends.
func transientGrowth(plan *dataflow.Plan) growth {
	joins, probes := 0, 0
	for _, n := range plan.Nodes {
		switch op := n.Op.(type) {
		case dataflow.DeltaJoin:
			return growthKept
		case dataflow.Join:
			joins++
			if op.Shared != nil && op.Shared.Index == probeIndex {
				probes++
			}
		}
	}
	switch {
	case joins == 0:
		return growthAll
	case joins == 1 && probes == 1:
		return growthLast
	}
	return growthKept
}

// release drops the snapshots and the dataflow once the stream ends.
func (r *rowStream) release() {
	r.feed.close()
	r.chunk, r.df = nil, nil
}

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
