package dataflow

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Window computes window functions over partitions of its input: the
// rows are grouped by the Key columns, each partition is ordered by Order
// (ties broken by the whole row, so the order is total and deterministic),
// and each input row is output followed by one column per function of
// Funcs, evaluated at the row's position in its partition. A row with
// multiplicity n occupies n consecutive positions, each output with its
// own function values.
//
// State: per partition, every live row in order with its function values
// (see exec/winfunc.go for what a change recomputes).
type Window struct {
	Key   []int
	Order []expr.SortCol
	Funcs []expr.WinFunc
}

func (Window) opName() string { return "Window" }

// args prints key=[...] order=[...] funcs=[...].
func (op Window) args() string {
	funcs := make([]string, len(op.Funcs))
	for i, f := range op.Funcs {
		funcs[i] = f.String()
	}
	return fmt.Sprintf("key=%s order=[%s] funcs=[%s]", formatCols(op.Key), expr.FormatSortCols(op.Order), strings.Join(funcs, ", "))
}

// window parses key=[...] order=[...] funcs=[...] over input columns in;
// a function's result type is out's column when out is given.
func (a *argReader) window(in, out []repr.T) Window {
	w := Window{Key: a.cols("key")}
	for _, it := range a.list("order") {
		c, err := expr.ParseSortCol(it)
		a.fail(err)
		w.Order = append(w.Order, c)
	}
	for _, c := range append(append([]int(nil), w.Key...), orderCols(w.Order)...) {
		if c < 0 || c >= len(in) {
			a.fail(fmt.Errorf("column #%d out of range", c))
		}
	}
	for i, it := range a.list("funcs") {
		f, err := expr.ParseWinFunc(it, in)
		a.fail(err)
		if err == nil && out != nil && len(in)+i < len(out) {
			f.T = out[len(in)+i]
		}
		w.Funcs = append(w.Funcs, f)
	}
	return w
}

func orderCols(order []expr.SortCol) []int {
	cols := make([]int, len(order))
	for i, o := range order {
		cols[i] = o.Col
	}
	return cols
}

// windowTypes is the input's types followed by each function's.
func windowTypes(op Window, in []repr.T) []repr.T {
	out := append([]repr.T(nil), in...)
	for _, f := range op.Funcs {
		out = append(out, f.T)
	}
	return out
}
