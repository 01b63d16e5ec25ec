package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/eddydb/eddy/optimizer/ir"
)

// Rule is a named rewrite of one ir node. Apply returns the replacement for
// e, or nil to decline; it must decline (not return an equal tree) when it
// has nothing to do, or Run would count it as progress forever.
type Rule struct {
	Name string
	// Root, a typed nil such as (*ir.Filter)(nil), is the operator the
	// rule's pattern starts with: Run offers the rule only nodes of that
	// type. Nil offers it every node.
	Root  ir.Rel
	Apply func(e ir.Rel) ir.Rel
}

// Phase is a named, ordered list of rules run bottom-up to a fixed point.
// Earlier rules win when several match the same node. A phase with a Pass
// runs it once over the whole tree instead.
type Phase struct {
	Name  string
	Rules []Rule
	Pass  *Pass
}

// Pass is a named rewrite of a whole tree, run once: for decisions that
// need more than one node in view (join ordering), which a bottom-up rule
// cannot make without undoing itself. Apply returns the rewritten tree (rel
// itself when it changes nothing).
type Pass struct {
	Name  string
	Apply func(rel ir.Rel) ir.Rel
}

// MaxSteps caps the rule applications of one phase. Real plans need a few
// hundred at most; reaching the cap means two rules undo each other.
const MaxSteps = 10000

// Trace lists the rules that fired, in firing order (a rule appears once
// per application).
type Trace []string

// Names returns the distinct rule names of t, sorted.
func (t Trace) Names() []string {
	out := slices.Clone([]string(t))
	slices.Sort(out)
	return slices.Compact(out)
}

// Has reports whether rule name fired at least once.
func (t Trace) Has(name string) bool { return slices.Contains(t, name) }

// String prints the distinct names, sorted, separated by spaces.
func (t Trace) String() string { return strings.Join(t.Names(), " ") }

// Run applies phases in order to rel and returns the rewritten tree and the
// rules that fired. It fails only when a phase exceeds MaxSteps.
func Run(rel ir.Rel, phases ...Phase) (ir.Rel, Trace, error) {
	var trace Trace
	for _, p := range phases {
		if p.Pass != nil {
			out := p.Pass.Apply(rel)
			if !ir.Equal(out, rel) {
				trace = append(trace, p.Pass.Name)
			}
			rel = out
			continue
		}
		r := &runner{phase: p}
		out, err := r.rewrite(rel)
		trace = append(trace, r.trace...)
		if err != nil {
			return nil, trace, err
		}
		rel = out
	}
	return rel, trace, nil
}

// runner rewrites one tree with one phase.
type runner struct {
	phase Phase
	steps int
	trace Trace
	// byRoot caches, per operator type, the phase's rules whose Root is
	// that type or nil, in phase order.
	byRoot map[reflect.Type][]Rule
	// fixed maps each node rewrite has seen to its fixed point (see
	// rewrite); nodes are immutable, so a pointer names a subtree.
	fixed map[ir.Rel]ir.Rel
}

// rulesFor returns the rules of the phase that can match e.
func (r *runner) rulesFor(e ir.Rel) []Rule {
	t := reflect.TypeOf(e)
	if rules, ok := r.byRoot[t]; ok {
		return rules
	}
	if r.byRoot == nil {
		r.byRoot = map[reflect.Type][]Rule{}
	}
	var rules []Rule
	for _, rule := range r.phase.Rules {
		if rule.Root == nil || reflect.TypeOf(rule.Root) == t {
			rules = append(rules, rule)
		}
	}
	r.byRoot[t] = rules
	return rules
}

// rewrite returns e with its inputs rewritten, then the phase's rules
// applied at e until none fires. Each replacement is rewritten again from
// its leaves, so on return the whole subtree is at a fixed point.
//
// Rules see only the subtree they match, so a subtree's fixed point
// depends on nothing else: rewrite remembers the nodes it returned (fixed
// points) and the nodes they came from, and returns a known node's result
// at once. A rule firing high in the tree, whose replacement keeps most of
// the subtree below by reference, therefore costs only the nodes it
// rebuilt, not a second pass over everything below it.
func (r *runner) rewrite(e ir.Rel) (ir.Rel, error) {
	if out, ok := r.fixed[e]; ok {
		return out, nil
	}
	in := e
	e, err := r.rewriteChildren(e)
	if err != nil {
		return nil, err
	}
	for _, rule := range r.rulesFor(e) {
		out := rule.Apply(e)
		if out == nil {
			continue
		}
		r.steps++
		r.trace = append(r.trace, rule.Name)
		if r.steps > MaxSteps {
			return nil, fmt.Errorf("optimizer phase %s: no fixed point after %d rule applications (last: %s)",
				r.phase.Name, MaxSteps, rule.Name)
		}
		res, err := r.rewrite(out)
		if err == nil {
			r.remember(in, res)
		}
		return res, err
	}
	r.remember(in, e)
	return e, nil
}

// remember records that from rewrites to the fixed point to (and so does
// to itself).
func (r *runner) remember(from, to ir.Rel) {
	if r.fixed == nil {
		r.fixed = map[ir.Rel]ir.Rel{}
	}
	r.fixed[from] = to
	r.fixed[to] = to
}

// rewriteChildren rewrites each input of e, copying e only if one changed.
func (r *runner) rewriteChildren(e ir.Rel) (ir.Rel, error) {
	kids := e.Children()
	var out []ir.Rel
	for i, k := range kids {
		nk, err := r.rewrite(k)
		if err != nil {
			return nil, err
		}
		if nk != k && out == nil {
			out = slices.Clone(kids)
		}
		if out != nil {
			out[i] = nk
		}
	}
	if out == nil {
		return e, nil
	}
	return e.WithChildren(out), nil
}
