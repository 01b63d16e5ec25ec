package sql

import (
	"sync/atomic"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Direct point reads. The commonest query a client repeats, `SELECT cols
// FROM v WHERE key = $1`, compiles to a plan of two nodes: a Source and
// the MFP that filters and projects it, with the filter fixing a key
// prefix (pointInputs). Such a plan needs no dataflow: the rows of the
// key range are read under the engine's read lock (pointSnapshot, as
// the general path reads them) and the MFP is applied to them directly
// (exec.MFPEval, which evaluates and consolidates exactly as the built
// operator and Dataflow.StepInput do), so the answer, its row order and
// its memory accounting are the general path's, without building
// operators, a feed or a Step per query. Anything else (no usable
// access path, the transaction's own pending writes to the collection,
// an event-time source, row locks) takes the general path.

// disableDirectPoints is a test knob: with it set point reads go through
// a built dataflow, the reference the direct path is compared with.
var disableDirectPoints bool

// directPointCount counts the queries answered by the direct path
// (tests check that it ran).
var directPointCount atomic.Int64

// pointPlan is a plan's direct point path: its one point input, read
// through mfp over columns of types in.
type pointPlan struct {
	in   pointInput
	mfp  dataflow.MFP
	cols []repr.T
	// eval is built on first use; a pointPlan belongs to one statement
	// (one session), so it is never used concurrently.
	eval *exec.MFPEval
}

// directPoint returns the direct point path of plan (points are its
// point inputs), nil when plan is not exactly Source -> MFP (the output)
// over a point input without an event-time column.
func directPoint(plan *dataflow.Plan, points []pointInput) *pointPlan {
	if len(plan.Nodes) != 2 || len(points) != 1 || plan.Output != 1 || points[0].node != 0 {
		return nil
	}
	src, ok := plan.Nodes[0].Op.(dataflow.Source)
	if !ok || src.HasEventTime {
		return nil
	}
	m, ok := plan.Nodes[1].Op.(dataflow.MFP)
	if !ok || len(plan.Nodes[1].Inputs) != 1 || plan.Nodes[1].Inputs[0] != 0 {
		return nil
	}
	return &pointPlan{in: points[0], mfp: m, cols: plan.Nodes[0].Types}
}

// runPointPlan answers q by pp's direct path, presenting the rows as
// runPlan does; ok is false (and nothing was read) when the direct path
// does not apply to this execution.
func (e *Engine) runPointPlan(pp *pointPlan, q *planner.Query, ctx *expr.Ctx, ws *writeSet) (rows []repr.Row, ok bool, err error) {
	if pp == nil || disablePointReads || disableDirectPoints || len(q.Locks) > 0 {
		return nil, false, nil
	}
	if pp.eval == nil {
		if pp.eval, err = exec.NewMFPEval(pp.mfp, pp.cols); err != nil {
			return nil, false, err
		}
	}
	in, ok, err := e.readPoint(pp.in, ctx, ws)
	if !ok || err != nil {
		return nil, ok, err
	}
	directPointCount.Add(1)
	if err := growMemory(ctx, updatesBytesSampled(in)); err != nil {
		return nil, true, err
	}
	out, err := pp.eval.Apply(ctx, in)
	if err != nil {
		return nil, true, err
	}
	if rows, err = resultRows(ctx, q, out); err != nil {
		return nil, true, err
	}
	return trimRows(q, window(rows, q.Offset, q.Limit)), true, nil
}

// readPoint reads p's key ranges as insertions at the statement's time
// under the engine's read lock; ok is false when they cannot serve the
// query alone (the transaction wrote to the collection, or no access
// path applies).
func (e *Engine) readPoint(p pointInput, ctx *expr.Ctx, ws *writeSet) ([]repr.Update, bool, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if len(ws.pending(uint64(p.coll))) > 0 {
		return nil, false, nil
	}
	if err := e.checkReadable([]repr.CollectionID{p.coll}); err != nil {
		return nil, true, err
	}
	in, ok, err := e.pointSnapshot(p, ctx, e.readTime(ws), ws)
	if ok && err == nil {
		pointReadCount.Add(1)
	}
	return in, ok || err != nil, err
}
