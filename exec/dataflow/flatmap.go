package dataflow

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
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
// more than expr.MaxTableFuncRows rows fails with 54000.
type FlatMap struct {
	Funcs      []expr.TableCall
	Ordinality bool
	Outer      bool
	On         []expr.Expr
}

func (FlatMap) opName() string { return "FlatMap" }

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
func (a *argReader) flatMap(in []repr.T) FlatMap {
	var op FlatMap
	for _, it := range a.list("funcs") {
		c, err := expr.ParseTableCall(it, in)
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
	op.On = a.exprs("on", expr.TableCallTypes(op.Funcs, op.Ordinality, in))
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
