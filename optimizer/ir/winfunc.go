package ir

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Window appends to each input row one column per window function of
// Funcs, evaluated at the row's position in its partition: the rows with
// equal Key columns, ordered by Order and then by the whole row (so the
// order is total and deterministic; PostgreSQL leaves the order of peers
// unspecified, and row_number() over peers may differ from its choice).
// Each function reads input columns only (the planner maps arguments,
// partition and order expressions to columns below it); see
// expr.WinFunc for the functions and frames.
//
// Not linear: a row's arrival or retraction changes the values of other
// rows of its partition (all later ones for row_number, rank or a running
// sum; its neighbours for lag and lead). Rules may move a deterministic
// filter over Key columns only below it (it keeps or drops whole
// partitions); any other filter changes which rows each row sees and
// stays above. State: per partition, every live row with its function
// values (dataflow.Window); a change recomputes only the positions whose
// values it can change.
type Window struct {
	Input Rel
	Key   []int
	Order []expr.SortCol
	Funcs []expr.WinFunc
}

// ColTypes implements Rel: the input's columns, then one per function.
func (w *Window) ColTypes() []repr.T {
	in := w.Input.ColTypes()
	out := append(in[:len(in):len(in)], make([]repr.T, 0, len(w.Funcs))...)
	for _, f := range w.Funcs {
		out = append(out, f.T)
	}
	return out
}

// Children implements Rel.
func (w *Window) Children() []Rel { return []Rel{w.Input} }

// WithChildren implements Rel.
func (w *Window) WithChildren(in []Rel) Rel { c := *w; c.Input = in[0]; return &c }

// String implements Rel.
func (w *Window) String() string { return Format(w) }

func (w *Window) header() string {
	funcs := make([]string, len(w.Funcs))
	for i, f := range w.Funcs {
		funcs[i] = f.String()
	}
	return fmt.Sprintf("Window key=[%s] order=[%s] funcs=[%s]", colList(w.Key), OrderString(w.Order), strings.Join(funcs, ", "))
}
