package exec

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// MFPEval applies one MFP to updates outside any dataflow: the direct
// path of a point read (sql/pointplan.go), whose plan is a Source read
// through one MFP, so that a query returning a row builds no dataflow, no
// operators and no state log. It evaluates exactly as the MFP operator
// of a built dataflow does (same filter placement, same shared
// subexpressions, same projection) and consolidates its output as
// Dataflow.StepInput does, so the two give the same rows in the same
// order.
//
// An MFPEval keeps scratch space between calls: it is not safe for
// concurrent use. The rows it returns are fresh (never its scratch) and
// stay valid.
type MFPEval struct {
	op  *mfpOp
	log stateLog
}

// NewMFPEval prepares spec over input columns of types in, with the
// checks Build makes for an MFP node.
func NewMFPEval(spec dataflow.MFP, in []repr.T) (*MFPEval, error) {
	op, err := newMFP(spec, in)
	if err != nil {
		return nil, err
	}
	return &MFPEval{op: op, log: stateLog{off: true}}, nil
}

// Apply maps, filters and projects ins (at their own times and diffs)
// and returns the consolidated result. It honours ctx's Interrupt every
// pollEvery rows; memory is the caller's to account (its output is at
// most one row per input update).
func (m *MFPEval) Apply(ctx *expr.Ctx, ins []repr.Update) ([]repr.Update, error) {
	if ctx == nil {
		ctx = &expr.Ctx{}
	}
	s := stepCtx{ctx: ctx, log: &m.log, slab: exactSlab(len(ins), len(m.op.spec.Project))}
	out, err := m.op.step(&s, [][]repr.Update{ins})
	if err != nil {
		return nil, err
	}
	if len(out) == 1 && out[0].Diff != 0 {
		return out, nil // step's slice is fresh: Consolidate would copy it
	}
	return Consolidate(out), nil
}

// exactSlabRows is the most input rows exactSlab sizes a slab for.
const exactSlabRows = 64

// exactSlab returns a slab for the output rows of n input rows of width
// datums each: for a point read's few rows, one allocation of exactly
// their datums instead of rowSlab's first chunk (32 datums, 1.5 KiB, for
// a one-row answer of two columns).
func exactSlab(n, width int) *rowSlab {
	if n == 0 || n > exactSlabRows || width == 0 {
		return &rowSlab{}
	}
	return &rowSlab{buf: make([]repr.Datum, 0, n*width)}
}
