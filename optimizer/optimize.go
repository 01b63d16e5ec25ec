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
	out, trace, err := rules.Run(rel, phases()...)
	if err != nil {
		return nil, trace, err
	}
	if !slices.Equal(out.ColTypes(), rel.ColTypes()) {
		return nil, trace, fmt.Errorf("optimizer changed the output types from %v to %v (rules fired: %s)",
			rel.ColTypes(), out.ColTypes(), trace)
	}
	return out, trace, nil
}

// disabled names the rules and passes Optimize skips (SetDisabledForTesting).
var disabled map[string]bool

// SetDisabledForTesting makes Optimize skip the named rules and passes, or
// none when called without names. It is a test-only knob: tests change the
// optimizer's output with it to show that a stored plan, not a new one,
// runs a view after a restart. Not safe to call while Optimize runs.
func SetDisabledForTesting(names ...string) {
	disabled = map[string]bool{}
	for _, n := range names {
		disabled[n] = true
	}
}

// phases returns rules.Default without the disabled rules and passes.
func phases() []rules.Phase {
	if len(disabled) == 0 {
		return rules.Default
	}
	var out []rules.Phase
	for _, p := range rules.Default {
		if p.Pass != nil && disabled[p.Pass.Name] {
			continue
		}
		q := p
		q.Rules = nil
		for _, r := range p.Rules {
			if !disabled[r.Name] {
				q.Rules = append(q.Rules, r)
			}
		}
		out = append(out, q)
	}
	return out
}
