package rules

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// PushFilterThroughSessionWindow moves predicates over session key
// columns only below a SessionWindow:
//
//	(Filter (SessionWindow $in $key ...) $p) => (SessionWindow (Filter $in $p) $key ...)   when $p reads only $key
//
// The filtered-out groups then keep no rows in the session state. Safe
// because sessions are formed per group of the key and a deterministic
// predicate over the key keeps or drops a whole group, so the sessions of
// the surviving groups are unchanged. Everything else stays above: a
// predicate over another input column would remove rows that link or
// extend sessions (SQL filters the session rows after they are formed),
// one over window_start or window_end reads columns that do not exist
// below, and volatile predicates or those without columns would be
// evaluated differently. Safe under retractions: a group's fate does not
// depend on its contents.
var PushFilterThroughSessionWindow = Rule{Name: "PushFilterThroughSessionWindow", Root: (*ir.Filter)(nil), Apply: func(e ir.Rel) ir.Rel {
	f, ok := e.(*ir.Filter)
	if !ok {
		return nil
	}
	s, ok := f.Input.(*ir.SessionWindow)
	if !ok {
		return nil
	}
	down, keep := partition(f.Preds, func(p expr.Expr) bool {
		cols := expr.Columns(p)
		return !expr.IsVolatile(p) && len(cols) > 0 && subset(cols, s.Key)
	})
	if len(down) == 0 {
		return nil
	}
	ns := *s
	ns.Input = &ir.Filter{Input: s.Input, Preds: down}
	return ir.NewFilter(&ns, keep...)
}}
