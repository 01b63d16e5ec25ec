package dataflow

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/sql/types"
)

// FlatMap maps each input row to zero or more output rows by calling the
// set-returning functions of Funcs with arguments over the row (LATERAL
// function calls, select-list set-returning functions). The functions run
// in lockstep (ROWS FROM and PostgreSQL 10's select-list semantics): the
// row's output has as many rows as the longest result, each the input row
// followed by every function's columns, NULL past a shorter result's end.
// With Ordinality a bigint column numbering the rows from 1 follows. On
// predicates (over that output row) drop the rows they do not accept;
// with Outer an input row none of whose rows survives is output once,
// padded with NULLs (LEFT JOIN LATERAL f(...) ON ...).
//
// Stateless and linear: an input update's rows are computed from the row
// alone, so a retraction retracts exactly the rows its insertion emitted.
// An error of a function (a zero step) fails the step; one call yielding
// more than scalar.MaxTableFuncRows rows fails with 54000.
type FlatMap struct {
	Funcs      []scalar.TableCall
	Ordinality bool
	Outer      bool
	On         []scalar.Expr
}

func (FlatMap) opName() string { return "FlatMap" }

// FlatMapTypes returns the output column types of a FlatMap over in: the
// input's, each function's columns, then the ordinality column.
func FlatMapTypes(funcs []scalar.TableCall, ordinality bool, in []types.T) []types.T {
	out := append([]types.T(nil), in...)
	for _, f := range funcs {
		out = append(out, f.Func.ColTypes()...)
	}
	if ordinality {
		out = append(out, types.Int8)
	}
	return out
}

func (op FlatMap) args() string {
	calls := make([]string, len(op.Funcs))
	for i, c := range op.Funcs {
		calls[i] = c.String()
	}
	s := "funcs=[" + strings.Join(calls, ", ") + "]"
	if op.Ordinality {
		s += " ordinality=true"
	}
	if op.Outer {
		s += " outer=true"
	}
	if len(op.On) > 0 {
		s += " on=" + formatExprs(op.On)
	}
	return s
}

// flatMap parses funcs=[f(...), ...] [ordinality=true] [outer=true] [on=[...]].
func (a *argReader) flatMap(in []types.T) FlatMap {
	var op FlatMap
	for _, it := range a.list("funcs") {
		c, err := scalar.ParseTableCall(it, in)
		if a.fail(err); err != nil {
			return op
		}
		op.Funcs = append(op.Funcs, c)
	}
	if len(op.Funcs) == 0 {
		a.fail(fmt.Errorf("FlatMap needs funcs"))
	}
	op.Ordinality = a.flag("ordinality")
	op.Outer = a.flag("outer")
	op.On = a.exprs("on", FlatMapTypes(op.Funcs, op.Ordinality, in))
	return op
}

// flag reads k=true (absent: false).
func (a *argReader) flag(k string) bool {
	v, ok := a.get(k)
	if ok && v != "true" {
		a.fail(fmt.Errorf("bad %s %q (want true)", k, v))
	}
	return ok
}
