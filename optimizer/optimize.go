package optimizer

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/optimizer/rules"
)

// Optimize rewrites rel into an equivalent, cheaper-to-maintain plan (same
// output columns and multiset semantics) by running rules.Default. It fails
// only on an optimizer bug: a phase that reaches no fixed point, or a
// rewrite that changed the output column types.
func Optimize(rel ir.Rel) (ir.Rel, error) {
	out, _, err := OptimizeTrace(rel)
	return out, err
}

// OptimizeTrace is Optimize that also returns the rules that fired, in
// order (for EXPLAIN and tests).
func OptimizeTrace(rel ir.Rel) (ir.Rel, rules.Trace, error) {
	out, trace, err := rules.Run(rel, rules.Default...)
	if err != nil {
		return nil, trace, err
	}
	if !slices.Equal(out.ColTypes(), rel.ColTypes()) {
		return nil, trace, fmt.Errorf("optimizer changed the output types from %v to %v (rules fired: %s)",
			rel.ColTypes(), out.ColTypes(), trace)
	}
	return out, trace, nil
}
