package ir

import (
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// FlatMap maps each input row to the rows of the set-returning functions
// Funcs called with arguments over it, in lockstep (NULL past a shorter
// result), each output row being the input row, the functions' columns
// and, with Ordinality, a bigint row number from 1. On predicates (over
// the output row) drop rows; with Outer an input row left with no row is
// output once padded with NULLs. It is a function in FROM (LATERAL when
// its arguments read earlier FROM items: the input is then those items)
// and the select list's set-returning functions (see dataflow.FlatMap).
//
// Linear and stateless: rules may move a filter over input columns only
// below an inner FlatMap (not Outer, where the padded row depends on On),
// and narrow its input to the columns read above or by its arguments.
type FlatMap struct {
	Input      Rel
	Funcs      []expr.TableCall
	Ordinality bool
	Outer      bool
	On         []expr.Expr
}

// ColTypes implements Rel: the input's, the functions', the ordinality.
func (m *FlatMap) ColTypes() []repr.T {
	return expr.TableCallTypes(m.Funcs, m.Ordinality, m.Input.ColTypes())
}

// Children implements Rel.
func (m *FlatMap) Children() []Rel { return []Rel{m.Input} }

// WithChildren implements Rel.
func (m *FlatMap) WithChildren(in []Rel) Rel { c := *m; c.Input = in[0]; return &c }

// String implements Rel.
func (m *FlatMap) String() string { return Format(m) }

func (m *FlatMap) header() string {
	calls := make([]string, len(m.Funcs))
	for i, c := range m.Funcs {
		calls[i] = c.String()
	}
	s := "FlatMap [" + strings.Join(calls, ", ") + "]"
	if m.Ordinality {
		s += " ordinality"
	}
	if m.Outer {
		s += " outer"
	}
	if len(m.On) > 0 {
		s += " on=" + exprList(m.On)
	}
	return s
}
