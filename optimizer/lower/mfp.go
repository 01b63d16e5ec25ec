package lower

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// mfp accumulates one fused map/filter/project over an input node.
//
// Invariant: proj[i] is the MFP-internal column (input columns, then maps)
// holding the i-th output column of the IR chain processed so far.
type mfp struct {
	input   int
	inTypes []repr.T
	maps    []expr.Expr
	filters []expr.Expr
	proj    []int
}

func newMFP(input int, inTypes []repr.T) *mfp {
	return &mfp{input: input, inTypes: inTypes, proj: identity(len(inTypes))}
}

// remap rewrites e from the chain's current columns to internal columns.
func (m *mfp) remap(e expr.Expr) expr.Expr {
	return expr.Remap(e, func(c int) int { return m.proj[c] })
}

// internalTypes returns the types of the internal columns.
func (m *mfp) internalTypes() []repr.T {
	ts := append([]repr.T(nil), m.inTypes...)
	for _, e := range m.maps {
		ts = append(ts, e.Type())
	}
	return ts
}

// outTypes returns the types of the projected output.
func (m *mfp) outTypes() []repr.T {
	in := m.internalTypes()
	out := make([]repr.T, len(m.proj))
	for i, c := range m.proj {
		out[i] = in[c]
	}
	return out
}

// isNoop reports whether the MFP passes its input through unchanged.
func (m *mfp) isNoop() bool {
	return len(m.maps) == 0 && len(m.filters) == 0 && ir.IsIdentity(m.proj, len(m.inTypes))
}

// emit adds the MFP node (unless it is a no-op) and returns the node index.
func (l *lowerer) emit(m *mfp) int {
	if m.isNoop() {
		return m.input
	}
	return l.add(dataflow.MFP{Map: m.maps, Filter: m.filters, Project: m.proj}, m.outTypes(), m.input)
}

// lowerMFP fuses the maximal chain of Map, Filter and Project rooted at rel
// that no other consumer reads part of, and a shared Project right over a
// Get (each consumer copies the projection, which costs nothing, so that
// its MFP reads the collection directly: a delta join then looks such an
// input up in the collection's shared arrangement, as TPC-H Q07's two
// nations, filtered apart, need). A Map above a Filter fuses when the
// filter runs first (see filtersFirst), keeping `SELECT 1/a ... WHERE a
// <> 0` safe.
func (l *lowerer) lowerMFP(rel ir.Rel) (int, error) {
	var chain []ir.Rel
	for {
		switch rel.(type) {
		case *ir.Map, *ir.Filter, *ir.Project:
			chain = append(chain, rel)
			rel = rel.Children()[0]
			if !l.dag.shared(rel) || projectOfGet(rel) {
				continue
			}
		}
		break
	}
	in, err := l.lower(rel)
	if err != nil {
		return 0, err
	}
	m := newMFP(in, rel.ColTypes())
	for i := len(chain) - 1; i >= 0; i-- {
		m = l.apply(m, chain[i])
	}
	return l.emit(m), nil
}

// apply adds one IR operator to m, emitting m and starting anew if needed.
func (l *lowerer) apply(m *mfp, op ir.Rel) *mfp {
	switch r := op.(type) {
	case *ir.Map:
		if !filtersFirst(m) && !allInfallible(r.Exprs) {
			m = newMFP(l.emit(m), m.outTypes())
		}
		for _, e := range r.Exprs {
			m.maps = append(m.maps, m.remap(e))
			m.proj = append(m.proj, len(m.inTypes)+len(m.maps)-1)
		}
	case *ir.Filter:
		for _, p := range r.Preds {
			m.filters = append(m.filters, m.remap(p))
		}
	case *ir.Project:
		proj := make([]int, len(r.Cols))
		for i, c := range r.Cols {
			proj[i] = m.proj[c]
		}
		m.proj = proj
	}
	return m
}

// filtersFirst reports whether exec runs every filter of m before any map
// expression appended to m now: an MFP runs a filter as soon as the
// columns it reads exist, after the filters before it (exec.mfpOp), and a
// filter reading only columns that exist now reads none of the new ones.
// Then a Map above the filters never sees the rows they drop, as in the
// unfused plan, whether or not its expressions can fail.
func filtersFirst(m *mfp) bool {
	width := len(m.inTypes) + len(m.maps)
	for _, f := range m.filters {
		for _, c := range expr.Columns(f) {
			if c >= width {
				return false
			}
		}
	}
	return true
}

// allInfallible reports whether evaluating every expression cannot fail.
func allInfallible(es []expr.Expr) bool {
	for _, e := range es {
		switch e.(type) {
		case *expr.Col, *expr.Lit:
		default:
			return false
		}
	}
	return true
}

// projectOfGet reports whether rel is a Project whose input is a Get.
func projectOfGet(rel ir.Rel) bool {
	p, ok := rel.(*ir.Project)
	if !ok {
		return false
	}
	_, ok = p.Input.(*ir.Get)
	return ok
}
